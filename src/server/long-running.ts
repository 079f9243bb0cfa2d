// The reference's long-running requests (its LongRunningRequestCheck): watches, and the streaming
// and proxied subresources. They are exempt from the request timeout and end on their own terms.
import type { RequestInfo } from '../api/request-info.js';

const LONG_RUNNING_VERBS = new Set(['watch', 'proxy']);
const LONG_RUNNING_SUBRESOURCES = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

export function isLongRunning(info: RequestInfo): boolean {
  if (!info.isResourceRequest) return false;
  return LONG_RUNNING_VERBS.has(info.verb) || (info.subresource !== undefined && LONG_RUNNING_SUBRESOURCES.has(info.subresource));
}
