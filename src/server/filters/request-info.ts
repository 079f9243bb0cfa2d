// Works out once what the request asks for (verb, group, version, resource, namespace, name,
// subresource; or a non-resource path) and how the answer is to be formatted.
import { requestInfo as infoOf } from '../../api/request-info.js';
import { wantsPretty } from '../../endpoints/request.js';
import type { Filter } from './context.js';

export function requestInfo(): Filter {
  return (ctx, next) => {
    const url = new URL(ctx.req.url ?? '/', 'http://localhost');
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
    ctx.query = url.searchParams;
    ctx.info = infoOf(ctx.req.method ?? 'GET', path, ctx.query);
    // Only once the path has been read: a path that cannot be decoded is answered unindented.
    ctx.out.pretty = wantsPretty(ctx.req, ctx.query);
    return next();
  };
}
