// May the user do what the request asks? 403 with the reference's message when not. The decision
// and its reason become the request's audit annotations.
import type { Guard } from '../../auth/guard.js';
import { auditOf } from '../../audit/record.js';
import type { Filter } from './context.js';

export function authorization(guard: Guard): Filter {
  return (ctx, next) => {
    const record = auditOf(ctx.res);
    guard.authorize(ctx.user, ctx.info, record && ((d) => {
      record.annotate('authorization.k8s.io/decision', d.allowed ? 'allow' : 'forbid');
      record.annotate('authorization.k8s.io/reason', d.reason);
    }));
    return next();
  };
}
