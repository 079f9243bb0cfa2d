// Which requests are long-running, as the reference's BasicLongRunningRequestCheck says: watches,
// proxies, and the streaming subresources. They are kept out of the in-flight counts and tracked
// by apiserver_longrunning_requests instead.
import type { RequestInfo } from './request-info.js';

const LONG_RUNNING_SUBRESOURCES = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

export function isLongRunningRequest(info: RequestInfo): boolean {
  if (!info.isResourceRequest) return false;
  if (info.verb === 'watch' || info.verb === 'proxy') return true;
  return info.subresource !== undefined && LONG_RUNNING_SUBRESOURCES.has(info.subresource);
}
