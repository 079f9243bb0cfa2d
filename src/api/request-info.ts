// What a request asks for, worked out once from its method, path and query, as the reference's
// request info: the verb, and for /api/{v}/… and /apis/{g}/{v}/… paths the group, version,
// namespace, resource, name and subresource. Authorization and routing both read it.
import { queryFlag } from './query-flags.js';

/** A request for something other than a resource: discovery, health, /version, OpenAPI, … */
export interface NonResourceRequestInfo {
  isResourceRequest: false;
  /** The URL path without trailing slashes. */
  path: string;
  /** The lower-cased HTTP method. */
  verb: string;
}

/** A request for a resource or its subresource, by namespace and name where the path has them. */
export interface ResourceRequestInfo {
  isResourceRequest: true;
  /** The URL path without trailing slashes. */
  path: string;
  /** get, list, watch, create, update, patch, delete or deletecollection. */
  verb: string;
  apiPrefix: 'api' | 'apis';
  /** '' for the core group. */
  apiGroup: string;
  apiVersion: string;
  /**
   * The namespace the path is under (/namespaces/{ns}/…). A namespace itself (/namespaces/{name})
   * has none here: authorization places it in its own namespace, routing finds it cluster-scoped.
   */
  namespace?: string;
  resource: string;
  subresource?: string;
  name?: string;
  /** The path's segments from the resource on (decoded): {resource}/{name}/{subresource}/…. */
  parts: string[];
}

export type RequestInfo = NonResourceRequestInfo | ResourceRequestInfo;

const METHOD_VERBS: Record<string, string> = { POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

/** The request info of `method` on `path` (already without trailing slashes) with `query`. */
export function requestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const segments = path.split('/').slice(1);
  // Decoding only where there is something to decode (the hot path has nothing).
  if (path.includes('%')) for (let i = 0; i < segments.length; i++) segments[i] = decodeURIComponent(segments[i]!);
  const nonResource: NonResourceRequestInfo = { isResourceRequest: false, path, verb: method.toLowerCase() };
  let apiPrefix: 'api' | 'apis';
  let apiGroup: string;
  let apiVersion: string;
  let parts: string[];
  if (segments[0] === 'api' && segments.length > 2) {
    apiPrefix = 'api';
    apiGroup = '';
    apiVersion = segments[1]!;
    parts = segments.slice(2);
  } else if (segments[0] === 'apis' && segments.length > 3) {
    apiPrefix = 'apis';
    apiGroup = segments[1]!;
    apiVersion = segments[2]!;
    parts = segments.slice(3);
  } else {
    return nonResource;
  }
  // The deprecated /watch/ prefix.
  let watchPath = false;
  if (parts[0] === 'watch') {
    watchPath = true;
    parts = parts.slice(1);
  }
  let namespace: string | undefined;
  let resource: string;
  let name: string | undefined;
  let subresource: string | undefined;
  // /namespaces/{ns}/status and /finalize are subresources of the namespace itself.
  if (parts[0] === 'namespaces' && (parts.length === 2 || (parts.length === 3 && (parts[2] === 'status' || parts[2] === 'finalize')))) {
    resource = 'namespaces';
    name = parts[1];
    subresource = parts[2];
  } else {
    if (parts[0] === 'namespaces' && parts.length >= 2) {
      namespace = parts[1];
      parts = parts.slice(2);
    }
    // Proxy subresources carry a path of their own after "proxy" (pods/{name}/proxy/{path}).
    const named = parts.length > 3 && parts[2] === 'proxy' ? parts.slice(0, 3) : parts;
    if (named.length === 0 || named.length > 3 || named.some((p) => p === '')) return nonResource;
    resource = named[0]!;
    name = named[1];
    subresource = named[2];
  }
  let verb = METHOD_VERBS[method] ?? 'get';
  if (method === 'GET' || method === 'HEAD') {
    // The watch parameter makes a watch of a collection only: a named object is read (the
    // deprecated /watch/ path alone watches one by name).
    if (watchPath) verb = 'watch';
    else if (name !== undefined) verb = 'get';
    else verb = queryFlag(query, 'watch') ? 'watch' : 'list';
  } else if (method === 'DELETE' && name === undefined) {
    verb = 'deletecollection';
  }
  const info: ResourceRequestInfo = { isResourceRequest: true, path, verb, apiPrefix, apiGroup, apiVersion, resource, parts };
  if (namespace !== undefined) info.namespace = namespace;
  if (name !== undefined) info.name = name;
  if (subresource !== undefined) info.subresource = subresource;
  return info;
}
