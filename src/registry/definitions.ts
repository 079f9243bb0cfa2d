// The live set of resource definitions: everything the server knows of each group-resource it
// serves — names, scope, served versions and the storage version, subresources, and the hooks in
// which it differs from the generic store. The built-ins are added at start; definitions can be
// added, changed and removed while the server runs (CustomResourceDefinitions, APIServices), and
// what depends on the set (routing, discovery, OpenAPI, watch caches, garbage collection, the
// field manager's schemas) looks it up live or subscribes to its changes.
import { createHash } from 'node:crypto';
import type { GroupVersions } from '../api/catalog.js';
import type { NameRule } from '../api/names.js';
import type { TablePrinter } from '../api/printers/index.js';
import type { SelectableFieldSpec } from '../api/selectable-fields.js';
import type { FieldError } from '../errors.js';
import type { JsonObject } from '../json.js';
import type { Evaluator } from '../quota/evaluators.js';
import { storedWith } from './keys.js';
import type { Registry, WriteContext, WriteResult } from './store.js';
import type { Strategy } from './strategies.js';
import { innerMap } from '../maps.js';

export interface SubresourceInfo {
  name: string;
  /** Group, version and kind of the subresource's body (e.g. autoscaling/v1 Scale). */
  group: string;
  version: string;
  kind: string;
  verbs: string[];
}

/** One served version of a resource: what a request to /apis/{group}/{version}/{resource} addresses. */
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
  /** The Warning every answer of this version carries (deprecated versions). */
  deprecationWarning?: string;
  /** Verbs it lists but refuses for now (405), with the message (a terminating CRD's create). */
  refusedVerbs?: Readonly<Record<string, string>>;
  /** The release a deprecated version goes away in ("1.26"), when one is planned. */
  removedRelease?: string;
  /** The definition this version belongs to (shared by every served version). */
  definition: ResourceDefinition;
}

export interface VersionSpec {
  version: string;
  verbs: string[];
  subresources: SubresourceInfo[];
  storageVersionHash?: string;
  deprecationWarning?: string;
  refusedVerbs?: Readonly<Record<string, string>>;
  removedRelease?: string;
}

/** A subresource write keeps the stored object but for its own part, taken from the desired one. */
export type PartUpdate = (current: JsonObject, desired: JsonObject) => JsonObject;

/** A create the resource answers itself, as the generic create handler hands it over. */
export interface CreateCall {
  /** The endpoint's resource and version. */
  info: ResourceInfo;
  namespace: string | undefined;
  /** The object a created subresource belongs to; absent for a create on the collection. */
  name?: string;
  /** The decoded body: of the resource's kind, or of the subresource's (Binding, Eviction, TokenRequest). */
  body: JsonObject;
  /** Who creates: field manager, dry run, user, warnings, admission. */
  writer: WriteContext;
}

/** Answers a create (201 and a body, as a stored create answers); what it needs from above is in `registry.services`. */
export type CreateHook = (registry: Registry, call: CreateCall) => Promise<WriteResult>;

/**
 * A resource whose objects are made when read, never stored (ComponentStatus): get and list
 * answer from these (in the resource's version, selectors applied); what it needs from above is in
 * `registry.services`.
 */
export interface ComputedObjects {
  objects(registry: Registry): Promise<JsonObject[]>;
  /** What a get of a name not among them answers; the generic NotFound when absent. */
  missing?(name: string): Error;
}

/** Where a resource differs from the generic store; every hook is optional. */
export interface ResourceHooks extends Strategy {
  /** The reference's defaults for an object of this resource in `version`, in place. */
  defaults?(obj: JsonObject, version: string): void;
  /** The errors of a new object in `version` (after defaulting and admission's mutations). */
  validateCreate?(obj: JsonObject, version: string): FieldError[];
  /** The errors of an update (the new object's own included). */
  validateUpdate?(obj: JsonObject, old: JsonObject, version: string, subresource?: string): FieldError[];
  /** What a write to each subresource may change, beyond the generic `status`. */
  subresourceParts?: Readonly<Record<string, PartUpdate>>;
  /**
   * A resource that stores nothing of its own (the review APIs, bindings): a create is answered
   * by this instead of being stored.
   */
  create?: CreateHook;
  /** Objects made when read instead of stored (see ComputedObjects). */
  computed?: ComputedObjects;
  /** Subresources that act when created (serviceaccounts/token, pods/binding, pods/eviction), by name. */
  subresourceCreates?: Readonly<Record<string, CreateHook>>;
  /** Converts an object between two served versions (apiVersion is set by the caller). */
  convert?(obj: JsonObject, fromVersion: string, toVersion: string): JsonObject;
  /**
   * Converts an object between this resource and the one it shares storage with (keys.ts
   * `storedWith`: events.k8s.io/v1 ⇄ core/v1 Events), by apiVersion; both resources carry it.
   */
  convertAcross?(obj: JsonObject, fromApiVersion: string, toApiVersion: string): JsonObject;
  /**
   * Converts an object between two versions by a call out (a CRD's conversion webhook), which the
   * registry then uses instead of `convert` on every read and write; the answer carries its
   * apiVersion. Throws ConversionFailure with the reference's words.
   */
  convertByCall?(registry: Registry, obj: JsonObject, fromVersion: string, toVersion: string): Promise<JsonObject>;
  table?: TablePrinter;
  /** Field selectors: the labels each version accepts and the fields they match. */
  selectableFields?: SelectableFieldSpec;
  /**
   * Selectable fields the watch cache indexes its current objects by, so that a list selecting one
   * value (`field=value`) reads only the objects that have it: pods by spec.nodeName, as the
   * reference's pod storage declares.
   */
  indexedFields?: readonly string[];
  /** How ResourceQuota measures this resource; none for resources quota ignores. */
  quota?: Evaluator;
  /** The pod template of a workload (for Pod Security), when the resource has one. */
  podTemplate?(obj: JsonObject): { metadata: JsonObject; spec: JsonObject } | undefined;
  /** Where the scale subresource reads and writes replicas, when not as the apps kinds (custom resources). */
  scale?: ScaleView;
  /**
   * A kind decoded as unstructured (custom resources): a body in `version` as the reference's
   * decoder leaves it (defaulted, unknown fields pruned, in place); answers the pruned fields'
   * paths, which field validation reports (Warn) or refuses (Strict) as for built-ins.
   */
  pruneUnknown?(obj: JsonObject, version: string): string[];
  /**
   * A stored object version as a read from storage decodes it (custom resources: pruned and
   * defaulted under the schema of the version it is stored in): the same bytes when that changes
   * nothing. Called on every get, list item and watch event: answers from what it keeps.
   */
  readStored?(bytes: Buffer): Buffer;
  /** Told the bytes of each object version the store writes (they read back as they are). */
  written?(bytes: Buffer): void;
  /** Told each copy the watch cache makes of stored bytes: they read back as the bytes copied do. */
  copied?(from: Buffer, to: Buffer): void;
}

/** The scale subresource of a resource whose replicas live elsewhere than spec.replicas (custom resources). */
export interface ScaleView {
  /** The object's autoscaling/v1 Scale (throws the reference's error when it cannot be read). */
  toScale(obj: JsonObject): JsonObject;
  /** The object with its desired replicas set to `replicas`. */
  withReplicas(obj: JsonObject, replicas: number): JsonObject;
}

export interface ResourceDefinition {
  group: string;
  /** Plural name. */
  resource: string;
  kind: string;
  listKind: string;
  singularName: string;
  shortNames?: string[];
  categories?: string[];
  namespaced: boolean;
  /** The served versions (the set orders them by the group's version priority). */
  versions: VersionSpec[];
  /** The version objects are stored in. */
  storageVersion: string;
  nameRule: NameRule;
  tracksGeneration: boolean;
  returnsDeletedObject: boolean;
  hooks: ResourceHooks;
  /** A built-in resource, published by the vendored OpenAPI documents (else its OpenAPI is made from `schema`). */
  builtin: boolean;
  /**
   * The OpenAPI v2 schema of the kind in a version, for definitions made at run time (the
   * built-ins' come from the vendored documents). Absent: an object of any content.
   */
  schema?(version: string): JsonObject | undefined;
  /**
   * The kind's schema as /openapi/v2 or /openapi/v3 publishes it, whole (apiVersion, kind,
   * metadata, x-kubernetes-group-version-kind), where it differs from `schema` (CRDs: the v2 form
   * drops what v2 cannot say). Absent: made from `schema`.
   */
  openApiSchema?(version: string, form: 'v2' | 'v3'): JsonObject | undefined;
}

export type { GroupVersions, TablePrinter };

export type DefinitionChange = { type: 'added' | 'removed'; definition: ResourceDefinition };
export type DefinitionListener = (change: DefinitionChange) => void;

/** The reference's ordering of versions it knows no priority for: GA, then beta, then alpha, newest first. */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return undefined;
    return { major: Number(m[1]), stage: m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0, minor: Number(m[3] ?? 0) };
  };
  const x = parse(a);
  const y = parse(b);
  if (x && y) return y.stage - x.stage || y.major - x.major || y.minor - x.minor;
  if (x) return -1;
  if (y) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function infoOf(def: ResourceDefinition, spec: VersionSpec): ResourceInfo {
  const apiVersion = def.group ? `${def.group}/${spec.version}` : spec.version;
  const info: ResourceInfo = {
    group: def.group,
    version: spec.version,
    resource: def.resource,
    kind: def.kind,
    listKind: def.listKind,
    namespaced: def.namespaced,
    verbs: spec.verbs,
    subresources: new Map(spec.subresources.map((s) => [s.name, s])),
    singularName: def.singularName,
    shortNames: def.shortNames,
    categories: def.categories,
    storageVersionHash: spec.storageVersionHash,
    apiVersion,
    nameRule: def.nameRule,
    tracksGeneration: def.tracksGeneration,
    returnsDeletedObject: def.returnsDeletedObject,
    definition: def,
  };
  if (spec.deprecationWarning !== undefined) info.deprecationWarning = spec.deprecationWarning;
  if (spec.refusedVerbs !== undefined) info.refusedVerbs = spec.refusedVerbs;
  if (spec.removedRelease !== undefined) info.removedRelease = spec.removedRelease;
  return info;
}

interface DefinitionEntry {
  definition: ResourceDefinition;
  infos: Map<string, ResourceInfo>;
}

export class ResourceDefinitions {
  /** The definitions in the order they were added (every listing's), by `group/resource`. */
  private readonly ordered = new Map<string, DefinitionEntry>();
  /**
   * The same by group, then resource: every request looks its resource up, and a key made of the
   * two (a new string, hashed) cost more than the lookup.
   */
  private readonly byGroupResource = new Map<string, Map<string, DefinitionEntry>>();
  private readonly listeners = new Set<DefinitionListener>();
  private groupList: GroupVersions[] = [];
  /** Each group-version's resources by name, by group then version. */
  private byGroupVersion = new Map<string, Map<string, ResourceInfo[]>>();
  private revision = 0;

  /**
   * `priorities`: groups in the reference's priority order, each with its versions in order;
   * groups and versions it does not name come after, groups by name, versions newest first.
   */
  constructor(private readonly priorities: readonly GroupVersions[] = []) {}

  /** Adds a definition, or replaces the one of the same group and resource. */
  add(definition: ResourceDefinition): void {
    const previous = this.entry(definition.group, definition.resource);
    const entry = { definition, infos: new Map(definition.versions.map((v) => [v.version, infoOf(definition, v)])) };
    // A replaced definition keeps its place.
    this.ordered.set(`${definition.group}/${definition.resource}`, entry);
    innerMap(this.byGroupResource, definition.group).set(definition.resource, entry);
    this.reindex();
    if (previous) this.emit({ type: 'removed', definition: previous.definition });
    this.emit({ type: 'added', definition });
  }

  /** Removes a definition; false when there was none. */
  remove(group: string, resource: string): boolean {
    const entry = this.entry(group, resource);
    if (!entry) return false;
    this.ordered.delete(`${group}/${resource}`);
    const byResource = this.byGroupResource.get(group)!;
    byResource.delete(resource);
    if (byResource.size === 0) this.byGroupResource.delete(group);
    this.reindex();
    this.emit({ type: 'removed', definition: entry.definition });
    return true;
  }

  /** Calls `listener` on every later change; returns the unsubscribe function. */
  subscribe(listener: DefinitionListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A number that moves on every change (for caches of what is derived from the set). */
  get generation(): number {
    return this.revision;
  }

  private emit(change: DefinitionChange): void {
    for (const listener of [...this.listeners]) listener(change);
  }

  private reindex(): void {
    this.revision++;
    const byGroupVersion = new Map<string, Map<string, ResourceInfo[]>>();
    for (const { infos } of this.ordered.values()) {
      for (const info of infos.values()) {
        const byVersion = innerMap(byGroupVersion, info.group);
        const list = byVersion.get(info.version) ?? [];
        list.push(info);
        byVersion.set(info.version, list);
      }
    }
    for (const byVersion of byGroupVersion.values()) for (const list of byVersion.values()) list.sort((a, b) => (a.resource < b.resource ? -1 : 1));
    const known = new Map(this.priorities.map((g, i) => [g.name, { index: i, versions: g.versions }]));
    const names = [...byGroupVersion.keys()].sort((a, b) => (known.get(a)?.index ?? Infinity) - (known.get(b)?.index ?? Infinity) || (a < b ? -1 : a > b ? 1 : 0));
    this.groupList = names.map((name) => {
      const versions = byGroupVersion.get(name)!;
      const order = known.get(name)?.versions ?? [];
      return { name, versions: [...order.filter((v) => versions.has(v)), ...[...versions.keys()].filter((v) => !order.includes(v)).sort(compareVersions)] };
    });
    this.byGroupVersion = byGroupVersion;
  }

  /** Served groups in priority order; the core group has the name "". */
  groups(): readonly GroupVersions[] {
    return this.groupList;
  }

  group(name: string): GroupVersions | undefined {
    return this.groupList.find((g) => g.name === name);
  }

  resources(group: string, version: string): readonly ResourceInfo[] | undefined {
    return this.byGroupVersion.get(group)?.get(version);
  }

  lookup(group: string, version: string, resource: string): ResourceInfo | undefined {
    return this.entry(group, resource)?.infos.get(version);
  }

  definition(group: string, resource: string): ResourceDefinition | undefined {
    return this.entry(group, resource)?.definition;
  }

  /** Every served version of the same group and resource, in the group's priority order. */
  versionsOf(group: string, resource: string): ResourceInfo[] {
    const entry = this.entry(group, resource);
    if (!entry) return [];
    const order = this.group(group)?.versions ?? [];
    return order.map((v) => entry.infos.get(v)).filter((r): r is ResourceInfo => r !== undefined);
  }

  /** The version objects of a resource are stored in (the other resource's, when the two share storage). */
  storageInfo(info: Pick<ResourceInfo, 'group' | 'resource'>): ResourceInfo | undefined {
    const stored = storedWith(info);
    const entry = this.entry(stored.group, stored.resource) ?? this.entry(info.group, info.resource);
    return entry?.infos.get(entry.definition.storageVersion);
  }

  /** The served resource of a kind in a group-version (owner references, webhooks). */
  byKind(group: string, version: string, kind: string): ResourceInfo | undefined {
    return this.byGroupVersion.get(group)?.get(version)?.find((info) => info.kind === kind);
  }

  /** Every served version of every resource. */
  *all(): IterableIterator<ResourceInfo> {
    for (const { infos } of this.ordered.values()) yield* infos.values();
  }

  definitions(): IterableIterator<ResourceDefinition> {
    return [...this.ordered.values()].map((e) => e.definition)[Symbol.iterator]();
  }

  private entry(group: string, resource: string): DefinitionEntry | undefined {
    return this.byGroupResource.get(group)?.get(resource);
  }
}

/** A conversion that could not be made (a webhook down or answering nonsense): the message is the reference's. */
export class ConversionFailure extends Error {}

/** The group of an apiVersion ("" for the core group's "v1"). */
function groupOf(apiVersion: string): string {
  const slash = apiVersion.lastIndexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/**
 * An object of a resource in `fromVersion` as `info`'s version serves it (apiVersion set); the same
 * object when already there. An object of the resource it shares storage with (its apiVersion in
 * another group) goes through `convertAcross`.
 */
export function inVersion(info: ResourceInfo, obj: JsonObject, fromVersion: string): JsonObject {
  const apiVersion = obj['apiVersion'];
  const across = info.definition.hooks.convertAcross;
  if (across && typeof apiVersion === 'string' && apiVersion !== '' && groupOf(apiVersion) !== info.group) {
    const out = across(obj, apiVersion, info.apiVersion);
    out['apiVersion'] = info.apiVersion;
    return out;
  }
  if (fromVersion === info.version) return obj;
  const out = info.definition.hooks.convert?.(obj, fromVersion, info.version) ?? { ...obj };
  out['apiVersion'] = info.apiVersion;
  return out;
}

/** The reference's storage version hash: the first 8 bytes of sha256("group/version/kind"), base64. */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}

const GENERIC_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export interface GenericResource {
  group: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  /** Served versions; the first is the storage version unless `storageVersion` says otherwise. */
  versions: string[];
  storageVersion?: string;
  listKind?: string;
  singularName?: string;
  shortNames?: string[];
  categories?: string[];
  /** `status` and `scale` subresources, as a CustomResourceDefinition may ask for. */
  subresources?: Array<'status' | 'scale'>;
  schema?(version: string): JsonObject | undefined;
  hooks?: ResourceHooks;
}

/**
 * A resource served with nothing special about it (the generic store's semantics only): what a
 * resource defined at run time starts from.
 */
export function genericDefinition(spec: GenericResource): ResourceDefinition {
  const versions = spec.versions.map((version): VersionSpec => ({
    version,
    verbs: GENERIC_VERBS,
    subresources: (spec.subresources ?? []).map((name) => ({
      name,
      ...(name === 'scale' ? { group: 'autoscaling', version: 'v1', kind: 'Scale' } : { group: spec.group, version, kind: spec.kind }),
      verbs: ['get', 'patch', 'update'],
    })),
    storageVersionHash: storageVersionHash(spec.group, version, spec.kind),
  }));
  return {
    group: spec.group,
    resource: spec.resource,
    kind: spec.kind,
    listKind: spec.listKind ?? `${spec.kind}List`,
    singularName: spec.singularName ?? spec.kind.toLowerCase(),
    shortNames: spec.shortNames,
    categories: spec.categories,
    namespaced: spec.namespaced,
    versions,
    storageVersion: spec.storageVersion ?? spec.versions[0]!,
    nameRule: 'subdomain',
    tracksGeneration: true,
    returnsDeletedObject: false,
    hooks: spec.hooks ?? {},
    builtin: false,
    schema: spec.schema,
  };
}
