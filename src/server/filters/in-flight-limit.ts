// The in-flight limit slot. The reference (1.25) answers with API Priority and Fairness here, or,
// with it off, caps requests in flight (--max-requests-inflight 400, --max-mutating-requests-inflight
// 200; 429 beyond, long-running requests exempt). capstan does not limit yet: every request passes.
import type { Filter } from './context.js';

export function inFlightLimit(): Filter {
  return (_ctx, next) => next();
}
