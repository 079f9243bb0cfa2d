// Impersonate-User / -Group / -Uid / -Extra-*: the request acts as the user they name, each
// allowed by the `impersonate` verb (403 otherwise). The audit event keeps both users.
import type { Guard } from '../../auth/guard.js';
import { auditOf } from '../../audit/record.js';
import type { Filter } from './context.js';

export function impersonation(guard: Guard): Filter {
  return (ctx, next) => {
    const user = ctx.user;
    ctx.user = guard.impersonate(user, ctx.req.headers);
    if (ctx.user !== user) auditOf(ctx.res)?.logImpersonatedUser(ctx.user);
    return next();
  };
}
