// The outermost filter: whatever a later filter or handler throws is answered as a Status (a
// StatusError as it is, anything else as the reference's 500 InternalError), never as a bare error.
import { sendStatusError } from '../../endpoints/request.js';
import type { Filter } from './context.js';

export function recover(): Filter {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      try {
        sendStatusError(ctx.res, err, ctx.out);
      } catch {
        // The connection is already unusable.
        ctx.res.destroy();
      }
    }
  };
}
