// The in-flight limit slot. The reference (1.25) answers with API Priority and Fairness here, or,
// with it off, caps requests in flight (--max-requests-inflight 400, --max-mutating-requests-inflight
// 200; 429 beyond, long-running requests exempt). capstan does not limit yet: every request passes,
// counted (apiserver_current_inflight_requests) when metrics are on.
import { isLongRunningRequest } from '../../api/long-running.js';
import type { RequestMetrics } from '../../metrics/requests.js';
import type { Filter } from './context.js';

/** The reference's read-only verbs; every other verb (and method of a non-resource request) mutates. */
const READ_ONLY_VERBS = new Set(['get', 'list', 'watch']);

export function inFlightLimit(metrics?: RequestMetrics): Filter {
  if (!metrics) return (_ctx, next) => next();
  return async (ctx, next) => {
    const info = ctx.info;
    if (isLongRunningRequest(info)) return next();
    const mutating = !READ_ONLY_VERBS.has(info.verb);
    metrics.enter(mutating);
    try {
      await next();
    } finally {
      metrics.leave(mutating);
    }
  };
}
