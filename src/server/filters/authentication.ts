// Who sent the request (client certificate, bearer token, or anonymous); 401 for a bad credential.
// Each attempt is counted (authentication_attempts, authentication_duration_seconds,
// authenticated_user_requests) when metrics are on.
// performance from its module, not the global: the global is an accessor, called at each use.
import { performance } from 'node:perf_hooks';
import type { IncomingMessage } from 'node:http';
import { UNAUTHORIZED, type Guard } from '../../auth/guard.js';
import type { RequestCredentials } from '../../auth/types.js';
import type { ServerMetrics } from '../../metrics/server-metrics.js';
import type { Filter } from './context.js';

export function authentication(guard: Guard, credentials: (req: IncomingMessage) => RequestCredentials, metrics?: ServerMetrics): Filter {
  if (!metrics) {
    return async (ctx, next) => {
      ctx.user = await guard.authenticatedUser(credentials(ctx.req));
      return next();
    };
  }
  return async (ctx, next) => {
    const started = performance.now();
    const outcome = await guard.identify(credentials(ctx.req));
    const seconds = (performance.now() - started) / 1000;
    if (outcome === undefined || outcome === 'invalid') {
      // No credential that said who (and anonymous requests off) fails; a refused one is an error.
      metrics.authenticated(outcome === 'invalid' ? 'error' : 'failure', undefined, seconds);
      throw UNAUTHORIZED();
    }
    metrics.authenticated('success', outcome.name, seconds);
    ctx.user = outcome;
    return next();
  };
}
