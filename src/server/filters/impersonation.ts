// Impersonate-User / -Group / -Uid / -Extra-*: the request acts as the user they name, each
// allowed by the `impersonate` verb (403 otherwise).
import type { Guard } from '../../auth/guard.js';
import type { Filter } from './context.js';

export function impersonation(guard: Guard): Filter {
  return (ctx, next) => {
    ctx.user = guard.impersonate(ctx.user, ctx.req.headers);
    return next();
  };
}
