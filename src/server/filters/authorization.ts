// May the user do what the request asks? 403 with the reference's message when not. The decision
// and its reason become the request's audit annotations.
import type { Guard } from '../../auth/guard.js';
import type { Decision } from '../../auth/types.js';
import { auditOf, type AuditRecord } from '../../audit/record.js';
import type { Filter } from './context.js';

export function authorization(guard: Guard): Filter {
  // No closure over the request's record: one in this function cost every call a context, audited or not.
  return (ctx, next) => {
    const record = auditOf(ctx.res);
    if (record === undefined) guard.authorize(ctx.user, ctx.info);
    else guard.authorize(ctx.user, ctx.info, annotateDecision, record);
    return next();
  };
}

/** The decision and its reason as the request's audit annotations. */
function annotateDecision(d: Decision, record: AuditRecord): void {
  record.annotate('authorization.k8s.io/decision', d.allowed ? 'allow' : 'forbid');
  record.annotate('authorization.k8s.io/reason', d.reason);
}
