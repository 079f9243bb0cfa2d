// The authorizer's view of a request (verb, group, resource, subresource, name, namespace, or a
// non-resource path), derived from the URL as the reference's request info does.
import type { Attributes, UserInfo } from './types.js';

const METHOD_VERBS: Record<string, string> = { POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

/** Attributes of a request to `path` (already without trailing slash). */
export function requestAttributes(user: UserInfo, method: string, path: string, query: URLSearchParams): Attributes {
  const segments = path.split('/').slice(1).map((s) => decodeURIComponent(s));
  let group: string | undefined;
  let version: string | undefined;
  let parts: string[] = [];
  if (segments[0] === 'api' && segments.length > 2) {
    group = '';
    version = segments[1];
    parts = segments.slice(2);
  } else if (segments[0] === 'apis' && segments.length > 3) {
    group = segments[1];
    version = segments[2];
    parts = segments.slice(3);
  }
  if (group === undefined || parts.length === 0) {
    return { user, verb: method.toLowerCase(), resourceRequest: false, path };
  }
  let watchPath = false;
  if (parts[0] === 'watch') {
    watchPath = true;
    parts = parts.slice(1);
  }
  let namespace: string | undefined;
  if (parts[0] === 'namespaces' && parts.length >= 2) {
    if (parts.length === 2 || (parts.length === 3 && (parts[2] === 'status' || parts[2] === 'finalize'))) {
      // The namespace object itself (and its subresources): namespace = its own name, as the reference.
      namespace = parts[1];
    } else {
      namespace = parts[1];
      parts = parts.slice(2);
    }
  }
  const resource = parts[0]!;
  const name = parts[1];
  const subresource = parts[2];
  let verb = METHOD_VERBS[method] ?? 'get';
  if (method === 'GET' || method === 'HEAD') {
    const watch = watchPath || query.get('watch') === 'true' || query.get('watch') === '1';
    verb = name === undefined ? (watch ? 'watch' : 'list') : watch ? 'watch' : 'get';
  } else if (method === 'DELETE' && name === undefined) {
    verb = 'deletecollection';
  }
  const attributes: Attributes = { user, verb, resourceRequest: true, apiGroup: group, apiVersion: version, resource };
  if (subresource !== undefined) attributes.subresource = subresource;
  if (name !== undefined) attributes.name = name;
  if (namespace !== undefined) attributes.namespace = namespace;
  return attributes;
}

/** The reference's wording of a refusal: `User "x" cannot list resource "pods" in API group "" in the namespace "y"`. */
export function forbiddenMessage(a: Attributes): string {
  const user = a.user.name;
  if (!a.resourceRequest) return `User "${user}" cannot ${a.verb} path "${a.path}"`;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  if (a.namespace) return `User "${user}" cannot ${a.verb} resource "${resource}" in API group "${a.apiGroup ?? ''}" in the namespace "${a.namespace}"`;
  return `User "${user}" cannot ${a.verb} resource "${resource}" in API group "${a.apiGroup ?? ''}" at the cluster scope`;
}
