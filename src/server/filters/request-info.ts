// Works out once what the request asks for (verb, group, version, resource, namespace, name,
// subresource; or a non-resource path) and how the answer is to be formatted. The path is read
// as Go's server reads it: decoded, never resolved (`..` is a segment like any other). No
// redirect to a cleaned path either: Go's ServeMux would answer 301, but kube-apiserver's
// handler is no ServeMux — its director hands /api and /apis paths to go-restful's
// Container.Dispatch (its router splits the path on "/" as it is) and the rest to a
// PathRecorderMux (exact and prefix matches) — so `..` reaches routing and storage as a name.
import { MalformedRequestTarget, requestInfo as infoOf, splitRequestTarget } from '../../api/request-info.js';
import { wantsPretty } from '../../endpoints/request.js';
import { refuseUnreadableRequest } from '../unreadable-requests.js';
import type { Filter } from './context.js';

export function requestInfo(): Filter {
  return (ctx, next) => {
    const target = splitRequestTarget(ctx.req.url ?? '/');
    ctx.query = new URLSearchParams(target.query);
    try {
      ctx.info = infoOf(ctx.req.method ?? 'GET', target.path, ctx.query);
    } catch (err) {
      if (!(err instanceof MalformedRequestTarget)) throw err;
      refuseUnreadableRequest(ctx.req, ctx.res);
      return Promise.resolve();
    }
    ctx.out.pretty = wantsPretty(ctx.req, ctx.query);
    return next();
  };
}
