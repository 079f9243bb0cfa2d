// The audit slot: audit logging (the reference's audit policy and backends) records each request
// here, once authentication has said who sent it. Nothing is audited yet: every request passes.
import type { Filter } from './context.js';

export function audit(): Filter {
  return (_ctx, next) => next();
}
