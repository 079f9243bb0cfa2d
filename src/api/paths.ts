// Request paths of the API, read as the reference's request info reads them:
// /api/{v}/… and /apis/{g}/{v}/…, namespaces, resources, names, subresources, /watch/.

export interface ResourcePath {
  group: string;
  version: string;
  namespace?: string;
  resource: string;
  name?: string;
  subresource?: string;
  /** The deprecated /watch/ path prefix was used. */
  watchPath: boolean;
}

/** The group, version and what follows of a path under /api or /apis (undefined for discovery and other paths). */
export function splitApiPath(path: string): { group: string; version: string; rest: string[] } | undefined {
  const segments = path.split('/').slice(1);
  // Decoding only where there is something to decode (the hot path has nothing).
  if (path.includes('%')) for (let i = 0; i < segments.length; i++) segments[i] = decodeURIComponent(segments[i]!);
  if (segments[0] === 'api' && segments.length > 2) return { group: '', version: segments[1]!, rest: segments.slice(2) };
  if (segments[0] === 'apis' && segments.length > 3) return { group: segments[1]!, version: segments[2]!, rest: segments.slice(3) };
  return undefined;
}

/** Splits the part of a path after /api/v1 or /apis/{g}/{v}. */
export function parseResourceParts(group: string, version: string, parts: string[]): ResourcePath | undefined {
  let watchPath = false;
  if (parts[0] === 'watch') {
    watchPath = true;
    parts = parts.slice(1);
  }
  let namespace: string | undefined;
  if (parts[0] === 'namespaces' && parts.length >= 2) {
    // /namespaces/{ns}/status and /finalize are subresources of the namespace itself.
    if (parts.length === 2 || (parts.length === 3 && (parts[2] === 'status' || parts[2] === 'finalize'))) {
      return { group, version, resource: 'namespaces', name: parts[1], subresource: parts[2], watchPath };
    }
    namespace = parts[1];
    parts = parts.slice(2);
  }
  // Proxy subresources carry a path of their own after "proxy" (pods/{name}/proxy/{path}).
  if (parts.length > 3 && parts[2] === 'proxy') parts = parts.slice(0, 3);
  if (parts.length === 0 || parts.length > 3 || parts.some((p) => p === '')) return undefined;
  return { group, version, namespace, resource: parts[0]!, name: parts[1], subresource: parts[2], watchPath };
}
