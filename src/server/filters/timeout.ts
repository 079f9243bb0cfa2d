// The request timeout slot. The reference ends a request that runs past --request-timeout (60s)
// with a 504 Status, long-running requests (watch, proxy, exec, attach, log, port-forward)
// exempt. capstan sets no deadline yet: every request passes through.
import type { Filter } from './context.js';

export function timeout(): Filter {
  return (_ctx, next) => next();
}
