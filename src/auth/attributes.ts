// The authorizer's view of a request (verb, group, resource, subresource, name, namespace, or a
// non-resource path), taken from its request info.
import type { RequestInfo } from '../api/request-info.js';
import type { Attributes } from './types.js';
import type { UserInfo } from '../api/user.js';

/** Attributes of `user`'s request. */
export function requestAttributes(user: UserInfo, info: RequestInfo): Attributes {
  if (!info.isResourceRequest) {
    const r = info.asResource;
    if (!r) return { user, verb: info.verb, resourceRequest: false, path: info.requestPath ?? info.path };
    const attributes: Attributes = { user, verb: r.verb, resourceRequest: true, apiGroup: r.apiGroup, apiVersion: r.apiVersion, resource: r.resource };
    if (r.subresource !== undefined) attributes.subresource = r.subresource;
    if (r.name !== undefined) attributes.name = r.name;
    if (r.namespace !== undefined) attributes.namespace = r.namespace;
    return attributes;
  }
  const attributes: Attributes = { user, verb: info.verb, resourceRequest: true, apiGroup: info.apiGroup, apiVersion: info.apiVersion, resource: info.resource };
  if (info.subresource !== undefined) attributes.subresource = info.subresource;
  if (info.name !== undefined) attributes.name = info.name;
  else if (info.selectedName !== undefined) attributes.name = info.selectedName;
  // The namespace object itself is authorized in its own namespace, as the reference does.
  const namespace = info.namespace ?? (info.resource === 'namespaces' && info.apiGroup === '' ? info.name : undefined);
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
