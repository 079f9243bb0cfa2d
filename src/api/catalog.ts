// The built-in groups, versions, resources and kinds as data, derived from the vendored 1.25 OpenAPI
// v2 document (paths carry x-kubernetes-action and x-kubernetes-group-version-kind; of the paths,
// only those two are read, from data/api-paths-1.25.json, scripts/extract-api-paths.mjs). What OpenAPI
// does not say (group priority order, short names, categories, storage version hashes) comes from
// data/discovery-extras.json, recorded from the reference's discovery. The registry turns these
// facts into resource definitions.
import { readDataJson } from './data.js';
import type { OpenApiOperation } from './openapi-documents.js';

export interface GroupVersions {
  name: string;
  /** Served versions, in the reference's priority order; the first is preferred. */
  versions: string[];
}

export interface BuiltinSubresource {
  name: string;
  /** Group, version and kind of the subresource's body (e.g. autoscaling/v1 Scale). */
  group: string;
  version: string;
  kind: string;
  verbs: string[];
}

/** One built-in resource as the reference serves it in one version. */
export interface BuiltinResource {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
  subresources: BuiltinSubresource[];
  singularName: string;
  shortNames?: string[];
  categories?: string[];
  storageVersionHash?: string;
}

type OpenApiPathItem = Record<string, OpenApiOperation | unknown>;
export interface OpenApiPaths {
  paths: Record<string, OpenApiPathItem>;
}

interface DiscoveryExtras {
  groups: GroupVersions[];
  resources: Record<string, { singularName?: string; shortNames?: string[]; categories?: string[]; storageVersionHash?: string }>;
}

const CONNECT_VERBS: Record<string, string> = { get: 'get', post: 'create', put: 'update', patch: 'patch', delete: 'delete' };
const ACTION_VERBS: Record<string, string> = { post: 'create', put: 'update', watchlist: 'watch' };
const PATH = /^\/(?:api|apis\/([^/]+))\/([^/]+)\/(.+)$/;

export interface Draft {
  group: string;
  version: string;
  resource: string;
  sub?: string;
  verbs: Set<string>;
  namespaced?: boolean;
  gvk?: { group: string; version: string; kind: string };
}

/** Parses the OpenAPI paths into one draft per (group, version, resource[/sub]). */
export function draftsFromOpenApi(doc: OpenApiPaths): Map<string, Draft> {
  const drafts = new Map<string, Draft>();
  for (const [path, item] of Object.entries(doc.paths)) {
    const m = PATH.exec(path);
    if (!m) continue;
    const group = m[1] ?? '';
    const version = m[2]!;
    let segs = m[3]!.split('/');
    if (segs[0] === 'watch') segs = segs.slice(1);
    let namespaced: boolean | undefined;
    if (segs[0] === 'namespaces' && segs[1] === '{namespace}' && segs.length >= 3) {
      namespaced = true;
      segs = segs.slice(2);
    }
    const resource = segs[0]!;
    let sub: string | undefined;
    if (segs.length >= 3 && segs[1] === '{name}') sub = segs[2];
    else if (segs.length > 2) continue;
    if (segs.length >= 2 && namespaced === undefined) namespaced = false;
    const id = `${group}/${version}/${resource}${sub ? '/' + sub : ''}`;
    let d = drafts.get(id);
    if (!d) drafts.set(id, (d = { group, version, resource, sub, verbs: new Set() }));
    if (namespaced !== undefined && d.namespaced !== true) d.namespaced = namespaced;
    for (const [method, raw] of Object.entries(item)) {
      if (method === 'parameters' || typeof raw !== 'object' || raw === null) continue;
      const op = raw as OpenApiOperation;
      const action = op['x-kubernetes-action'];
      if (!action) continue;
      const verb = action === 'connect' ? CONNECT_VERBS[method] : ACTION_VERBS[action] ?? action;
      if (verb) d.verbs.add(verb);
      if (!d.gvk && op['x-kubernetes-group-version-kind']) d.gvk = op['x-kubernetes-group-version-kind'];
    }
  }
  return drafts;
}

/** Whether a built-in group-version is served (and, when `resource` is given, that resource of it). */
export type GroupVersionFilter = (group: string, version: string, resource?: string) => boolean;

/** By default the reference serves every group-version but alpha ones. */
export const defaultEnabled: GroupVersionFilter = (_group, version) => !version.includes('alpha');

let discoveryExtras: DiscoveryExtras | undefined;
function extras(): DiscoveryExtras {
  discoveryExtras ??= readDataJson<DiscoveryExtras>('discovery-extras.json');
  return discoveryExtras;
}

/** The built-in groups in the reference's priority order, each with its versions in order. */
export function builtinGroupPriorities(): GroupVersions[] {
  return extras().groups;
}

/** Every built-in resource in every enabled version. */
export function builtinResources(enabled: GroupVersionFilter = defaultEnabled): BuiltinResource[] {
  const drafts = draftsFromOpenApi(readDataJson<OpenApiPaths>('api-paths-1.25.json'));
  const known = extras().resources;
  const byPath = new Map<string, BuiltinResource>();
  for (const d of drafts.values()) {
    if (d.sub || !d.gvk || !enabled(d.group, d.version, d.resource)) continue;
    const gv = d.group ? `${d.group}/${d.version}` : d.version;
    const extra = known[`${gv}/${d.resource}`] ?? {};
    byPath.set(`${d.group}/${d.version}/${d.resource}`, {
      group: d.group,
      version: d.version,
      resource: d.resource,
      kind: d.gvk.kind,
      namespaced: d.namespaced ?? false,
      verbs: [...d.verbs].sort(),
      subresources: [],
      singularName: extra.singularName ?? '',
      shortNames: extra.shortNames,
      categories: extra.categories,
      storageVersionHash: extra.storageVersionHash,
    });
  }
  for (const d of drafts.values()) {
    if (!d.sub || !d.gvk) continue;
    const parent = byPath.get(`${d.group}/${d.version}/${d.resource}`);
    parent?.subresources.push({ name: d.sub, group: d.gvk.group, version: d.gvk.version, kind: d.gvk.kind, verbs: [...d.verbs].sort() });
  }
  return [...byPath.values()];
}
