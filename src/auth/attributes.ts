// The authorizer's view of a request (verb, group, resource, subresource, name, namespace, or a
// non-resource path), derived from the URL as the reference's request info does.
import { parseResourceParts, splitApiPath, type ResourcePath } from '../api/paths.js';
import type { Attributes } from './types.js';
import type { UserInfo } from '../api/user.js';

const METHOD_VERBS: Record<string, string> = { POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

/** Attributes of a request to `path` (already without trailing slash). */
export function requestAttributes(user: UserInfo, method: string, path: string, query: URLSearchParams, parsed?: ResourcePath | null): Attributes {
  let r = parsed;
  if (r === undefined) {
    const split = splitApiPath(path);
    r = split ? parseResourceParts(split.group, split.version, split.rest) : undefined;
  }
  if (!r) return { user, verb: method.toLowerCase(), resourceRequest: false, path };
  let verb = METHOD_VERBS[method] ?? 'get';
  if (method === 'GET' || method === 'HEAD') {
    const watch = r.watchPath || query.get('watch') === 'true' || query.get('watch') === '1';
    verb = watch ? 'watch' : r.name === undefined ? 'list' : 'get';
  } else if (method === 'DELETE' && r.name === undefined) {
    verb = 'deletecollection';
  }
  const attributes: Attributes = { user, verb, resourceRequest: true, apiGroup: r.group, apiVersion: r.version, resource: r.resource };
  if (r.subresource !== undefined) attributes.subresource = r.subresource;
  if (r.name !== undefined) attributes.name = r.name;
  // The namespace object itself is authorized in its own namespace, as the reference does.
  const namespace = r.namespace ?? (r.resource === 'namespaces' && r.group === '' ? r.name : undefined);
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
