// Requests in flight, as the reference's max-in-flight filter counts them: read-only ones (get,
// list, watch) and mutating ones (every other verb) apart, long-running requests not at all. Beyond
// --max-requests-inflight (400) or --max-mutating-requests-inflight (200) a request is answered
// the reference's plain-text 429 with Retry-After: 1 — unless its user is in system:masters, who
// always gets an answer. 0 is no limit. Used only with API Priority and Fairness off (its gate or
// --enable-priority-and-fairness=false): otherwise filters/priority-and-fairness.ts shares the
// same total among priority levels, as the reference has one or the other. Counted
// (apiserver_current_inflight_requests, and for a limited kind its share of its limit in
// apiserver_flowcontrol_read_vs_write_current_requests, as the reference's filter does) when
// metrics are on.
// performance from its module, not the global: the global is an accessor, called at each use.
import { performance } from 'node:perf_hooks';
import { isLongRunningRequest } from '../../api/long-running.js';
import type { FlowControlMetrics } from '../../metrics/flowcontrol.js';
import type { RequestMetrics } from '../../metrics/requests.js';
import type { Filter } from './context.js';

/** The reference's read-only verbs; every other verb (and method of a non-resource request) mutates. */
const READ_ONLY_VERBS = new Set(['get', 'list', 'watch']);

export interface InFlightLimits {
  readOnly: number;
  mutating: number;
}

export function inFlightLimit(limits: InFlightLimits, metrics?: RequestMetrics, flowcontrol?: FlowControlMetrics): Filter {
  if (!metrics && limits.readOnly === 0 && limits.mutating === 0) return (_ctx, next) => next();
  const inFlight = { readOnly: 0, mutating: 0 };
  const shares = flowcontrol?.inFlightRatios(limits);
  return async (ctx, next) => {
    const info = ctx.info;
    if (isLongRunningRequest(info)) return next();
    const mutating = !READ_ONLY_VERBS.has(info.verb);
    const kind = mutating ? 'mutating' : 'readOnly';
    const limit = limits[kind];
    if (limit > 0 && inFlight[kind] >= limit) {
      if (!ctx.user.groups.includes('system:masters')) {
        ctx.res.writeHead(429, { 'Retry-After': '1', 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
        ctx.res.end('Too many requests, please try again later.\n');
        return;
      }
      // A super-user's request is served over the limit, and not counted against it.
      return next();
    }
    const share = shares?.[kind];
    inFlight[kind]++;
    share?.set(inFlight[kind], performance.now());
    metrics?.enter(mutating);
    try {
      await next();
    } finally {
      inFlight[kind]--;
      share?.set(inFlight[kind], performance.now());
      metrics?.leave(mutating);
    }
  };
}
