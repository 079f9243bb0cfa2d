// The catalog of groups, versions, resources and kinds, derived from the vendored 1.25 OpenAPI v2
// document (paths carry x-kubernetes-action and x-kubernetes-group-version-kind). What OpenAPI
// does not say (group priority order, short names, categories, storage version hashes) comes from
// data/discovery-extras.json, recorded from the reference's discovery.
import { readDataJson } from './data.js';
import { swaggerDocument, type OpenApiOperation } from './openapi-documents.js';
import type { NameRule } from './names.js';
import { resourcePolicy } from './policies.js';

export interface SubresourceInfo {
  name: string;
  /** Group, version and kind of the subresource's body (e.g. autoscaling/v1 Scale). */
  group: string;
  version: string;
  kind: string;
  verbs: string[];
}

export interface ResourceInfo {
  group: string;
  version: string;
  /** Plural resource name as in the URL. */
  resource: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  verbs: string[];
  subresources: Map<string, SubresourceInfo>;
  singularName: string;
  shortNames?: string[];
  categories?: string[];
  storageVersionHash?: string;
  /** `group/version` as objects carry it in apiVersion. */
  apiVersion: string;
  nameRule: NameRule;
  /** Whether metadata.generation is kept (bumped on spec changes). */
  tracksGeneration: boolean;
  /** Whether a delete answers with the deleted object (else a Status). */
  returnsDeletedObject: boolean;
}

export interface GroupVersions {
  name: string;
  /** Served versions, in the reference's priority order; the first is preferred. */
  versions: string[];
}

type OpenApiPathItem = Record<string, OpenApiOperation | unknown>;
interface OpenApiDocument {
  paths: Record<string, OpenApiPathItem>;
}

interface DiscoveryExtras {
  groups: GroupVersions[];
  resources: Record<string, { singularName?: string; shortNames?: string[]; categories?: string[]; storageVersionHash?: string }>;
}

const CONNECT_VERBS: Record<string, string> = { get: 'get', post: 'create', put: 'update', patch: 'patch', delete: 'delete' };
const ACTION_VERBS: Record<string, string> = { post: 'create', put: 'update', watchlist: 'watch' };
const PATH = /^\/(?:api|apis\/([^/]+))\/([^/]+)\/(.+)$/;

interface Draft {
  group: string;
  version: string;
  resource: string;
  sub?: string;
  verbs: Set<string>;
  namespaced?: boolean;
  gvk?: { group: string; version: string; kind: string };
}

/** Parses the OpenAPI paths into one draft per (group, version, resource[/sub]). */
function draftsFromOpenApi(doc: OpenApiDocument): Map<string, Draft> {
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

export type GroupVersionFilter = (group: string, version: string) => boolean;

/** By default the reference serves every group-version but alpha ones. */
export const defaultEnabled: GroupVersionFilter = (_group, version) => !version.includes('alpha');

export class Catalog {
  private readonly byGroupVersion = new Map<string, ResourceInfo[]>();
  private readonly byPath = new Map<string, ResourceInfo>();
  private readonly groupList: GroupVersions[] = [];

  constructor(openapi: OpenApiDocument, extras: DiscoveryExtras, enabled: GroupVersionFilter = defaultEnabled) {
    const drafts = draftsFromOpenApi(openapi);
    for (const d of drafts.values()) {
      if (d.sub || !d.gvk || !enabled(d.group, d.version)) continue;
      const gv = d.group ? `${d.group}/${d.version}` : d.version;
      const extra = extras.resources[`${gv}/${d.resource}`] ?? {};
      const policy = resourcePolicy(d.group, d.resource);
      const info: ResourceInfo = {
        group: d.group,
        version: d.version,
        resource: d.resource,
        kind: d.gvk.kind,
        listKind: `${d.gvk.kind}List`,
        namespaced: d.namespaced ?? false,
        verbs: [...d.verbs].sort(),
        subresources: new Map(),
        singularName: extra.singularName ?? '',
        shortNames: extra.shortNames,
        categories: extra.categories,
        storageVersionHash: extra.storageVersionHash,
        apiVersion: gv,
        ...policy,
      };
      this.byPath.set(`${d.group}/${d.version}/${d.resource}`, info);
    }
    for (const d of drafts.values()) {
      if (!d.sub) continue;
      const parent = this.byPath.get(`${d.group}/${d.version}/${d.resource}`);
      if (!parent || !d.gvk) continue;
      parent.subresources.set(d.sub, { name: d.sub, group: d.gvk.group, version: d.gvk.version, kind: d.gvk.kind, verbs: [...d.verbs].sort() });
    }
    for (const info of this.byPath.values()) {
      const gv = `${info.group}/${info.version}`;
      const list = this.byGroupVersion.get(gv) ?? [];
      list.push(info);
      this.byGroupVersion.set(gv, list);
    }
    for (const list of this.byGroupVersion.values()) list.sort((a, b) => (a.resource < b.resource ? -1 : 1));
    // Group and version order: the reference's priorities first, then anything else alphabetically.
    const known = new Map(extras.groups.map((g, i) => [g.name, { index: i, versions: g.versions }]));
    const groups = new Map<string, Set<string>>();
    for (const info of this.byPath.values()) {
      const set = groups.get(info.group) ?? new Set<string>();
      set.add(info.version);
      groups.set(info.group, set);
    }
    const names = [...groups.keys()].sort((a, b) => (known.get(a)?.index ?? 1e9) - (known.get(b)?.index ?? 1e9) || (a < b ? -1 : 1));
    for (const name of names) {
      const served = groups.get(name)!;
      const order = known.get(name)?.versions ?? [];
      const versions = [...order.filter((v) => served.has(v)), ...[...served].filter((v) => !order.includes(v)).sort()];
      this.groupList.push({ name, versions });
    }
  }

  static load(enabled?: GroupVersionFilter): Catalog {
    const openapi = swaggerDocument();
    const extras = readDataJson<DiscoveryExtras>('discovery-extras.json');
    return new Catalog(openapi, extras, enabled);
  }

  /** Served groups in priority order; the core group has the name "". */
  groups(): readonly GroupVersions[] {
    return this.groupList;
  }

  group(name: string): GroupVersions | undefined {
    return this.groupList.find((g) => g.name === name);
  }

  resources(group: string, version: string): readonly ResourceInfo[] | undefined {
    return this.byGroupVersion.get(`${group}/${version}`);
  }

  lookup(group: string, version: string, resource: string): ResourceInfo | undefined {
    return this.byPath.get(`${group}/${version}/${resource}`);
  }

  /** Every served version of the same group and resource (for conversion and shared storage). */
  versionsOf(group: string, resource: string): ResourceInfo[] {
    const g = this.group(group);
    if (!g) return [];
    return g.versions.map((v) => this.lookup(group, v, resource)).filter((r): r is ResourceInfo => r !== undefined);
  }

  all(): IterableIterator<ResourceInfo> {
    return this.byPath.values();
  }
}
