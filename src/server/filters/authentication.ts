// Who sent the request (client certificate, bearer token, or anonymous); 401 for a bad credential.
import type { IncomingMessage } from 'node:http';
import type { Guard } from '../../auth/guard.js';
import type { RequestCredentials } from '../../auth/types.js';
import type { Filter } from './context.js';

export function authentication(guard: Guard, credentials: (req: IncomingMessage) => RequestCredentials): Filter {
  return async (ctx, next) => {
    ctx.user = await guard.authenticatedUser(credentials(ctx.req));
    return next();
  };
}
