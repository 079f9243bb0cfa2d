// The request timeout: a request that is not long-running (see api/long-running.ts) and has not
// answered within --request-timeout (60 s), or the shorter `?timeout=` it asks for, is answered
// the reference's 504 Timeout Status. As there, the handler is not stopped (a write it was
// making may still be stored); what it answers later goes nowhere.
import type { ServerResponse } from 'node:http';
import { badRequest, StatusError } from '../../errors.js';
import { sendStatusError } from '../../endpoints/request.js';
import { isLongRunningRequest } from '../../api/long-running.js';
import { parseDuration } from '../options.js';
import type { Filter } from './context.js';

const TIMED_OUT_MESSAGE = 'Timeout: request did not complete within requested timeout - context deadline exceeded';

export function timeout(requestTimeoutMs: number): Filter {
  return (ctx, next) => {
    if (isLongRunningRequest(ctx.info)) return next();
    let limit = requestTimeoutMs;
    const asked = ctx.query.get('timeout');
    if (asked !== null && asked !== '') {
      const ms = parseDuration(asked);
      if (ms === undefined) {
        sendStatusError(ctx.res, badRequest(`invalid timeout specified in the request URL - time: invalid duration ${JSON.stringify(asked)}`), ctx.out);
        return Promise.resolve();
      }
      // The server's limit caps what a request asks for.
      if (ms > 0 && ms < limit) limit = ms;
    }
    const timer = setTimeout(() => {
      if (ctx.res.headersSent || ctx.res.writableEnded) return;
      sendStatusError(ctx.res, new StatusError(504, 'Timeout', TIMED_OUT_MESSAGE, {}), ctx.out);
      discardLaterAnswers(ctx.res);
    }, limit);
    timer.unref();
    return next().finally(() => clearTimeout(timer));
  };
}

/** The handler runs on after a timeout; its answer, when it comes, is dropped instead of failing on a finished response. */
function discardLaterAnswers(res: ServerResponse): void {
  const ignored = { writeHead: () => res, setHeader: () => res, flushHeaders: () => undefined, write: () => true, end: () => res };
  Object.assign(res, ignored);
}
