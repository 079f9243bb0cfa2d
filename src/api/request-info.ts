// What a request asks for, worked out once from its method, path and query, as the reference's
// request info: the verb, and for /api/{v}/… and /apis/{g}/{v}/… paths the group, version,
// namespace, resource, name and subresource. Authorization and routing both read it.
import { isValidPathSegmentName } from './names.js';
import { queryFlag } from './query-flags.js';
import { parseFieldSelector } from './selectors.js';

/** A request for something other than a resource: discovery, health, /version, OpenAPI, … */
export interface NonResourceRequestInfo {
  isResourceRequest: false;
  /** The URL path without trailing slashes. */
  path: string;
  /** The decoded path as sent, when it has trailing slashes `path` lacks: what authorization is asked about, as the reference's. */
  requestPath?: string;
  /** The lower-cased HTTP method. */
  verb: string;
  /**
   * A path under /api or /apis that capstan serves nothing at (empty segments, more parts than
   * resource/name/subresource, a leading //) but that the reference's request info still reads as a
   * resource request: authorization is asked about that resource, then routing answers 404.
   */
  asResource?: ReferenceResourceReading;
}

/** What the reference's request info makes of a resource path: the attributes authorization sees. */
export interface ReferenceResourceReading {
  verb: string;
  apiGroup: string;
  apiVersion: string;
  namespace?: string;
  resource: string;
  name?: string;
  subresource?: string;
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
  /**
   * A list's or watch's name from a fieldSelector requiring metadata.name to equal it: authorization
   * sees it as the request's name (so resourceNames rules allow `kubectl get cm x -w`), as the reference's.
   */
  selectedName?: string;
  /** The path's segments from the resource on (decoded): {resource}/{name}/{subresource}/…. */
  parts: string[];
}

export type RequestInfo = NonResourceRequestInfo | ResourceRequestInfo;

const METHOD_VERBS: Record<string, string> = { POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

/** A request target Go's url.ParseRequestURI refuses (a bad escape, a control character): its server answers a bare 400. */
export class MalformedRequestTarget extends Error {}

const SLASH = 0x2f;

/** The request target's path (still escaped) and query, split as Go reads a request URI. */
export function splitRequestTarget(target: string): { path: string; query: string } {
  // Absolute form (http://host/path) names the path after its authority (an origin-form target,
  // nearly every one, starts with its slash: no need to look).
  const absolute = target.charCodeAt(0) === SLASH ? null : /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?]*/.exec(target);
  const rest = absolute ? target.slice(absolute[0].length) || '/' : target;
  const q = rest.indexOf('?');
  return q < 0 ? { path: rest, query: '' } : { path: rest.slice(0, q), query: rest.slice(q + 1) };
}

const HEX = /^[0-9a-fA-F]{2}$/;

/**
 * The path as Go's url package decodes a request's: every %XX is the byte it names (%2F too,
 * so it separates segments as a slash does), the bytes read as UTF-8; dot segments stay as
 * they are (nothing resolves them). Throws MalformedRequestTarget for a bad escape or a
 * control character.
 */
export function unescapePath(raw: string): string {
  if (raw.charCodeAt(0) !== SLASH && raw !== '*') throw new MalformedRequestTarget(`invalid request URI ${JSON.stringify(raw)}`);
  // One look at each character (two regular expressions and a search cost a GET ~0.2 µs): a
  // control character is refused; the hot path has no escape or non-ASCII character to decode.
  let plain = true;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) throw new MalformedRequestTarget(`invalid request URI ${JSON.stringify(raw)}`);
    if (c === 0x25 || c > 0x7f) plain = false;
  }
  if (plain) return raw;
  const bytes: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === 0x25) {
      const hex = raw.slice(i + 1, i + 3);
      if (!HEX.test(hex)) throw new MalformedRequestTarget(`invalid URL escape ${JSON.stringify(raw.slice(i, i + 3))}`);
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else if (c < 0x100) {
      // The listener hands request-line bytes over one character each.
      bytes.push(c);
    } else {
      const ch = String.fromCodePoint(raw.codePointAt(i)!);
      for (const b of Buffer.from(ch, 'utf8')) bytes.push(b);
      i += ch.length - 1;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/**
 * The segments of a path after its first slash, as `path.split('/').slice(1)` makes them. Split
 * goes to V8's runtime for each new string (its cache keeps only strings it has seen): twice the
 * time of this loop, ~0.5 µs of a GET in a server.
 */
function segmentsOf(path: string): string[] {
  if (path.charCodeAt(0) !== SLASH) return path.split('/').slice(1);
  const segments: string[] = [];
  for (let from = 1; ;) {
    const to = path.indexOf('/', from);
    if (to < 0) {
      segments.push(path.slice(from));
      return segments;
    }
    segments.push(path.slice(from, to));
    from = to + 1;
  }
}

/**
 * The request info of `method` on `rawPath` (as the request line has it, still escaped) with
 * `query`. Its path is the decoded one without trailing slashes.
 */
export function requestInfo(method: string, rawPath: string, query: URLSearchParams): RequestInfo {
  const requestPath = unescapePath(rawPath);
  let path = requestPath;
  if (path.length > 1 && path.charCodeAt(path.length - 1) === SLASH) path = path.replace(/\/+$/, '') || '/';
  const segments = segmentsOf(path);
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
    return nonResourceInfo(method, requestPath, path, query);
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
    if (named.length === 0 || named.length > 3 || named.some((p) => p === '')) return nonResourceInfo(method, requestPath, path, query);
    resource = named[0]!;
    name = named[1];
    subresource = named[2];
  }
  // A method the reference knows no verb for has none (and is refused by routing, 405).
  let verb = METHOD_VERBS[method] ?? '';
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
  if (name === undefined && (verb === 'list' || verb === 'watch')) {
    const selected = selectedName(query);
    if (selected !== undefined) info.selectedName = selected;
  }
  if (namespace !== undefined) info.namespace = namespace;
  if (name !== undefined) info.name = name;
  if (subresource !== undefined) info.subresource = subresource;
  return info;
}

/** A path capstan does not route as a resource, with the reference's reading of it (made only then: it costs a GET ~0.7 µs). */
function nonResourceInfo(method: string, requestPath: string, path: string, query: URLSearchParams): NonResourceRequestInfo {
  const info: NonResourceRequestInfo = { isResourceRequest: false, path, verb: method.toLowerCase() };
  if (requestPath !== path) info.requestPath = requestPath;
  const reading = referenceReading(method, requestPath, query);
  if (reading) info.asResource = reading;
  return info;
}

/** The name an exact `metadata.name=` (or `==`) term of the fieldSelector requires, when it is a valid path segment. */
function selectedName(query: URLSearchParams): string | undefined {
  const text = query.get('fieldSelector');
  if (!text) return undefined;
  let selector;
  try {
    selector = parseFieldSelector(text);
  } catch {
    return undefined; // the reference reads an unreadable selector as none here
  }
  const term = selector.requirements.find((r) => r.field === 'metadata.name' && r.op === '=');
  if (!term || isValidPathSegmentName(term.value).length) return undefined;
  return term.value;
}

const SPECIAL_VERBS = new Set(['proxy', 'watch']);

/**
 * The reference's reading of a path as a resource request (its request info): the path trimmed of
 * slashes at both ends and split, /api/{v}/… or /apis/{g}/{v}/…, an optional /namespaces/{ns}, then
 * resource, name and subresource, anything after them ignored. Only asked for paths capstan does
 * not route as a resource.
 */
function referenceReading(method: string, requestPath: string, query: URLSearchParams): ReferenceResourceReading | undefined {
  let parts = requestPath.replace(/^\/+|\/+$/g, '').split('/');
  if (parts.length < 3 || (parts[0] !== 'api' && parts[0] !== 'apis')) return undefined;
  let apiGroup = '';
  if (parts[0] === 'apis') {
    if (parts.length < 4) return undefined;
    apiGroup = parts[1]!;
    parts = parts.slice(2);
  } else {
    parts = parts.slice(1);
  }
  const apiVersion = parts[0]!;
  parts = parts.slice(1);
  let verb = METHOD_VERBS[method] ?? (method === 'GET' || method === 'HEAD' ? 'get' : '');
  if (SPECIAL_VERBS.has(parts[0]!)) {
    if (parts.length < 2) return undefined;
    verb = parts[0]!;
    parts = parts.slice(1);
  }
  let namespace: string | undefined;
  if (parts[0] === 'namespaces' && parts.length > 1) {
    namespace = parts[1];
    if (parts.length > 2 && parts[2] !== 'status' && parts[2] !== 'finalize') parts = parts.slice(2);
  }
  const reading: ReferenceResourceReading = { verb, apiGroup, apiVersion, resource: parts[0] ?? '' };
  if (namespace) reading.namespace = namespace;
  if (parts.length >= 2 && parts[1]) reading.name = parts[1];
  if (parts.length >= 3 && verb !== 'proxy') reading.subresource = parts[2];
  if (!reading.name && verb === 'get') {
    reading.verb = queryFlag(query, 'watch') ? 'watch' : 'list';
    const selected = selectedName(query);
    if (selected !== undefined) reading.name = selected;
  }
  if (!reading.name && verb === 'delete') reading.verb = 'deletecollection';
  return reading;
}
