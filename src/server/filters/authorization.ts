// May the user do what the request asks? 403 with the reference's message when not.
import type { Guard } from '../../auth/guard.js';
import type { Filter } from './context.js';

export function authorization(guard: Guard): Filter {
  return (ctx, next) => {
    guard.authorize(ctx.user, ctx.info);
    return next();
  };
}
