// The generic registry: Kubernetes object semantics (names, uid, timestamps, generation,
// preconditions, finalizers, status subresource) over a Storage. Every resource goes through here;
// per-resource differences come from the catalog's ResourceInfo and small strategy hooks.
import { randomUUID, randomInt } from 'node:crypto';
import { validateObjectMeta } from '../api/names.js';
import {
  alreadyExists, badRequest, conflict, fieldForbidden, fieldRequired, invalid, type FieldError, methodNotAllowed, notFound, OPTIMISTIC_LOCK_MESSAGE, StatusError,
} from '../errors.js';
import { StorageError, type Storage, type Stored } from '../storage/types.js';
import { Cacher, type CacheListResult, type CacherOptions } from '../storage/cacher.js';
import { collectionPrefix, objectKey, referenceStorageKey, resourcePrefix } from './keys.js';
import {
  CONTINUE_EXPIRED_MESSAGE, encodeContinue, indexedSelectionOf, readPlan, selectionOf, storedSelectionOf, TOO_LARGE_WAIT_MS, tooLargeResourceVersion,
} from './readoptions.js';
import { canonical, encodeKept, metadataOf, specOf, stringField } from './objects.js';
import type { Claim } from './strategies.js';
import { ConversionFailure, inVersion, type DefinitionChange, type PartUpdate, type ResourceDefinitions, type ResourceInfo } from './definitions.js';
import { Informer } from './informers.js';
import { watchCache, type Watch, type WatchRequest, type WatchSink } from './watch.js';
import { registerSchema, unregisterSchema } from '../api/schema.js';
import { applyScale, scaleNotFoundResource, toScale } from './scale.js';
import { apply as fieldManagerApply, onlyManagedFieldsTimesDiffer, recordUpdate, type GroupVersionKind } from '../fieldmanager/index.js';
import type { Operation } from '../api/operation.js';
import {
  deleteOptionsObject, writeOptionsObject, type DeleteOptions as RequestDeleteOptions, type GetOptions, type ListOptions, type PatchOptions, type WriteOptions,
} from '../api/options.js';
import type { RegistryServices } from './services.js';
import type { UserInfo } from '../api/user.js';
import { type JsonObject, copyJson, decodeJson, encodeJson, isObject, jsonEqual, now, rfc3339 } from '../json.js';

function gvkOf(info: ResourceInfo): GroupVersionKind {
  return { group: info.group, version: info.version, kind: info.kind };
}

/** The field manager's option for the fields the resource's strategy resets on this endpoint, if it says. */
function resetFieldsOf(info: ResourceInfo, subresource?: string): { resetFields?: ReadonlyArray<readonly string[]> } {
  const fields = info.definition.hooks.resetFields?.(subresource);
  return fields ? { resetFields: fields } : {};
}

export interface WriteResult {
  /** HTTP status: 201 for creates, 200 otherwise. */
  status: number;
  body: Buffer;
}

/** A delete's DeleteOptions, and who deletes. */
export interface DeleteOptions extends RequestDeleteOptions {
  /** Who deletes (for admission); the server itself when absent. */
  user?: UserInfo;
  warnings?: string[];
  /** The admission of the delete, handed in by whoever deletes; none for the server's own. */
  admission?: AdmissionFor;
}

/** The server's own identity in admission, for writes not made by a request. */
export const SYSTEM_USER: UserInfo = { name: 'system:apiserver', groups: ['system:masters', 'system:authenticated'] };

export type { Operation };

/** What a write is, as admission is told (the reference's admission attributes less the objects). */
export interface WriteTarget {
  operation: Operation;
  /** The endpoint's resource and version (what the request addressed). */
  info: ResourceInfo;
  subresource?: string;
  namespace?: string;
  /** The request's name ("" for a create by generateName). */
  name: string;
  /** The request's CreateOptions, UpdateOptions, PatchOptions or DeleteOptions as a JSON object. */
  options?: JsonObject;
  dryRun: boolean;
}

/**
 * Admission of one write, as the reference's ValidateObjectFunc: called with the object to be
 * written (mutating admission may change it in place) and the stored one; throws to refuse.
 */
export type AdmitFunc = (object: JsonObject | undefined, oldObject: JsonObject | undefined) => Promise<void>;

export interface Admission {
  mutate: AdmitFunc;
  validate: AdmitFunc;
}

/**
 * Binds admission to a write once the registry knows what it is: handed in by the writer (the
 * endpoint handler, or a controller), never reached for by the registry.
 */
export type AdmissionFor = (target: WriteTarget) => Admission;

const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const MAX_GENERATE_ATTEMPTS = 8;
const MAX_CONFLICT_RETRIES = 16;

function randomSuffix(): string {
  let s = '';
  for (let i = 0; i < 5; i++) s += NAME_ALPHABET[randomInt(NAME_ALPHABET.length)];
  return s;
}

function qr(info: ResourceInfo): { group: string; resource: string } {
  return { group: info.group, resource: info.resource };
}

/** The internal package name the reference prints in conversion errors ("core", "apps", "rbac"). */
function internalGroup(group: string): string {
  return group ? group.split('.')[0]! : 'core';
}

/** A list's ListMeta and its items: whole objects (with kind and apiVersion) of the endpoint's version. */
export interface ObjectList {
  metadata: JsonObject;
  items: Buffer[];
}

/** Who writes, for managedFields. `applied`: the field manager already ran (server-side apply). */
export interface WriteContext {
  manager: string;
  applied?: boolean;
  /** dryRun=All: every stage runs, nothing is stored. */
  dryRun?: boolean;
  /** A last check of the object about to be written (RBAC escalation); throws to refuse. */
  admit?: (obj: JsonObject, namespace: string | undefined) => void;
  /** Who writes, for admission; the server itself when absent. */
  user?: UserInfo;
  /** Warnings for the client, collected along the write (admission, field validation). */
  warnings?: string[];
  /** The request's CreateOptions / UpdateOptions / PatchOptions (admission reviews carry them). */
  options?: WriteOptions;
  /** The write's admission (mutating, then validating); none for the server's own first-start writes. */
  admission?: AdmissionFor;
}

/** The server's own writes (bootstrap objects) are recorded as kube-apiserver's, as in the reference. */
export const SYSTEM_WRITER: WriteContext = { manager: 'kube-apiserver' };

/** The controllers' writes are recorded as kube-controller-manager's, where the reference runs them. */
export const CONTROLLER_WRITER: WriteContext = { manager: 'kube-controller-manager' };

export interface RegistryOptions {
  /** How long changes stay available to watches, exact lists and continue tokens (ms). */
  historyWindowMs: number;
}

/**
 * A watch cache as it starts, and once it has (reads then find it without waiting a turn), with
 * the options it was started with (a re-list starts its successor with them).
 */
interface CacheEntry {
  readonly started: Promise<Cacher>;
  ready?: Cacher;
  readonly options: CacherOptions;
}

function startingCache(started: Promise<Cacher>, options: CacherOptions): CacheEntry {
  const entry: CacheEntry = { started, options };
  started.then((c) => (entry.ready = c), () => undefined);
  return entry;
}

export class Registry {
  /** The watch caches, by storage prefix. */
  private readonly cachers = new Map<string, CacheEntry>();
  /** Stored versions in other served versions, by apiVersion (see convertedBytes). */
  private readonly convertedCache = new WeakMap<Buffer, Map<string, WeakRef<Buffer>>>();
  /** What resources need from above the registry (see provide); shared with every view of it. */
  readonly services: RegistryServices = {};
  /** The informers handed out, by storage prefix (kept while the registry lives: they follow the definitions). */
  private readonly informers = new Map<string, Informer>();
  /** The admission of writes that bring none (see withAdmission); none on the server's own registry. */
  private readonly defaultAdmission?: AdmissionFor;

  private cachesStarted = false;
  /** Ends each open client watch (shared by every view of the registry: see withAdmission). */
  private readonly clientWatches = new Set<() => void>();

  constructor(
    readonly definitions: ResourceDefinitions,
    readonly storage: Storage,
    readonly options: RegistryOptions = { historyWindowMs: 5 * 60_000 },
  ) {
    definitions.subscribe((change) => this.onDefinitionChange(change));
    storage.onHistoryLost?.(() => void this.relistCaches());
  }

  /**
   * The store's watch missed events (etcd compacted past it while out of reach): each watch cache
   * is built again from a list, as the reference's cacher re-lists when its reflector's watch is
   * "too old". Its client watches end (the reference terminates them all), so clients watch again
   * and, from a revision older than the new cache, get 410 and re-list; informers move to the new
   * cache and hear the difference.
   */
  private async relistCaches(): Promise<void> {
    for (const [prefix, old] of [...this.cachers]) {
      let fresh: Cacher;
      try {
        fresh = await Cacher.start(this.storage, prefix, old.options);
      } catch (err) {
        console.error(`re-listing the watch cache of ${prefix}:`, err);
        continue;
      }
      // Dropped (its resource no longer served) or replaced meanwhile: the new one is not wanted.
      if (this.cachers.get(prefix) !== old) {
        fresh.stop();
        continue;
      }
      const entry: CacheEntry = { started: Promise.resolve(fresh), ready: fresh, options: old.options };
      this.cachers.set(prefix, entry);
      this.informers.get(prefix)?.start(entry.started);
      void old.started.then((c) => c.stop(), () => undefined);
    }
  }

  /** Watch caches and the field manager's schemas follow the set of definitions. */
  private onDefinitionChange({ type, definition }: DefinitionChange): void {
    for (const v of definition.versions) {
      const gvk = { group: definition.group, version: v.version, kind: definition.kind };
      const schema = type === 'added' ? definition.schema?.(v.version) : undefined;
      if (schema) registerSchema(gvk, schema);
      else unregisterSchema(gvk);
    }
    const prefix = resourcePrefix(definition);
    const informer = this.informers.get(prefix);
    // Resources that share storage (events.k8s.io and core events) share its cache: it stays while either is served.
    const shared = [...this.definitions.definitions()].some((d) => (d.group !== definition.group || d.resource !== definition.resource) && resourcePrefix(d) === prefix);
    if (type === 'removed' && shared) return;
    if (type === 'removed') {
      informer?.stop();
      const cacher = this.cachers.get(prefix);
      this.cachers.delete(prefix);
      // Its watches end: clients see the stream close, as when the reference drops a resource.
      void cacher?.started.then((c) => c.stop(), () => undefined);
    } else if (informer && !shared) {
      informer.start(this.cacher(definition));
    } else if (this.cachesStarted) {
      this.cacher(definition).catch((err: unknown) => console.error(`starting the watch cache of ${prefix}:`, err));
    }
  }

  /**
   * The same registry (same definitions, storage and watch caches) whose writes that bring no
   * admission of their own get `admission`: the view the controllers write through, so that
   * their writes are admitted as the reference's controllers' requests are.
   */
  withAdmission(admission: AdmissionFor): Registry {
    return Object.create(this, { defaultAdmission: { value: admission } }) as Registry;
  }

  /**
   * Hands in what resources need from the layers above (authorizer, token issuer, …), at server
   * wiring time; every view of this registry (withAdmission) sees them.
   */
  provide(services: RegistryServices): void {
    Object.assign(this.services, services);
  }

  /** The version objects of this resource are stored in: the group's most preferred one serving it. */
  storageInfo(info: ResourceInfo): ResourceInfo {
    return this.definitions.storageInfo(info) ?? info;
  }

  // ---- reads ----

  /** The watch cache of a resource (one per storage prefix, shared by its versions), started on first use. */
  private cacher(info: Pick<ResourceInfo, 'group' | 'resource'>): Promise<Cacher> {
    return this.cacheEntry(info).started;
  }

  /** The watch cache of a resource: itself once it has started (nothing to wait a turn for), else its start. */
  private readyCacher(info: Pick<ResourceInfo, 'group' | 'resource'>): Cacher | Promise<Cacher> {
    const entry = this.cacheEntry(info);
    return entry.ready ?? entry.started;
  }

  private cacheEntry(info: Pick<ResourceInfo, 'group' | 'resource'>): CacheEntry {
    const prefix = resourcePrefix(info);
    let entry = this.cachers.get(prefix);
    if (!entry) {
      // The copies it makes are told to the resource's definition in force at the time (a custom
      // resource's changes with its CRD).
      const { group, resource } = info;
      const options: CacherOptions = { windowMs: this.options.historyWindowMs, copied: (from, to) => this.definitions.definition(group, resource)?.hooks.copied?.(from, to) };
      entry = startingCache(Cacher.start(this.storage, prefix, options), options);
      this.cachers.set(prefix, entry);
    }
    return entry;
  }

  /**
   * The informer of a resource (any of its versions: objects are in the storage version), shared by
   * every caller; resolves once it holds the resource's current objects (at once when not served).
   */
  async informer(info: Pick<ResourceInfo, 'group' | 'resource'>): Promise<Informer> {
    const prefix = resourcePrefix(info);
    let informer = this.informers.get(prefix);
    if (!informer) {
      informer = new Informer(prefix);
      this.informers.set(prefix, informer);
      if (this.definitions.definition(info.group, info.resource)) informer.start(this.cacher(info));
    }
    await informer.ready();
    return informer;
  }

  /**
   * Watches a collection (one namespace's, when given) as the watch endpoint serves it: events in
   * `info`'s version, from the resourceVersion the request names (see watch.ts). Events may reach
   * the sink before the returned promise settles.
   */
  async watch(info: ResourceInfo, namespace: string | undefined, request: WatchRequest, sink: WatchSink): Promise<Watch> {
    const cacher = await this.cacher(info);
    // Asked of every event for every watcher: the stored version's read is made once and kept.
    const served = this.storageInfo(info).apiVersion === info.apiVersion ? info.definition.hooks.readStored : (value: Buffer) => this.served(info, value);
    let watch: Watch | undefined;
    const ended = () => {
      this.clientWatches.delete(endNow);
      sink.end();
    };
    const endNow = () => {
      watch?.stop();
      ended();
    };
    this.clientWatches.add(endNow);
    try {
      watch = watchCache(cacher, collectionPrefix(info, namespace), request, served, { event: (e) => sink.event(e), end: ended });
    } catch (err) {
      this.clientWatches.delete(endNow);
      throw err;
    }
    const opened = watch;
    return {
      stop: () => {
        this.clientWatches.delete(endNow);
        opened.stop();
      },
    };
  }

  /** Ends every open client watch as its deadline would (a server shutting down): each stream closes cleanly. */
  endWatches(): void {
    for (const end of [...this.clientWatches]) end();
  }

  /** Starts the watch cache of every served resource (at server start, so no revision is missed). */
  async startCaches(): Promise<void> {
    this.cachesStarted = true;
    for (const info of this.definitions.all()) await this.cacher(info);
  }

  /**
   * Waits (up to the reference's 3 s) for the store to reach a revision; 504 when it does not.
   * `prefix`: the resource's (its store's revisions, where resources are kept in stores of their own).
   */
  async waitForRevision(revision: number, prefix?: string): Promise<void> {
    const deadline = Date.now() + TOO_LARGE_WAIT_MS;
    while (this.storage.currentRevision(prefix) < revision) {
      if (Date.now() >= deadline) throw tooLargeResourceVersion(revision, this.storage.currentRevision(prefix));
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /**
   * Before a consistent read from the caches, when other servers write to the store too: waits
   * (up to the reference's 3 s) for the caches to reach the store's revision now. False when they
   * did not: the read then goes to the store itself.
   */
  private cachesCaughtUp(prefix: string): boolean | Promise<boolean> {
    // The only writer of its store (no latestRevision) need not ask, nor wait a turn.
    return this.storage.latestRevision ? this.caughtUpWithStore(prefix) : true;
  }

  private async caughtUpWithStore(prefix: string): Promise<boolean> {
    const revision = await this.storage.latestRevision!(prefix);
    const deadline = Date.now() + TOO_LARGE_WAIT_MS;
    // Usually a few milliseconds behind (another server's write on its way): short pauses first.
    for (let pause = 1; this.storage.currentRevision(prefix) < revision; pause = Math.min(pause * 2, 50)) {
      if (Date.now() >= deadline) return false;
      await new Promise((r) => setTimeout(r, pause));
    }
    return true;
  }

  /** A consistent list read from the store itself (the caches fell behind): the newest state, selected and paged as the caches would. */
  private async listFromStore(prefix: string, afterKey: string | undefined, limit: number | undefined, filter: ((value: Buffer) => boolean) | undefined): Promise<CacheListResult> {
    const read = await this.storage.list(prefix, { latest: true, ...(afterKey !== undefined ? { afterKey } : {}) });
    const values = read.items.filter((item) => !filter || filter(item.value));
    if (!limit || values.length <= limit) return { items: values.map((v) => v.value), revision: read.revision };
    const page = values.slice(0, limit);
    return { items: page.map((v) => v.value), revision: read.revision, continueAfter: page.at(-1)!.key, ...(filter ? {} : { remaining: values.length - limit }) };
  }

  async get(info: ResourceInfo, namespace: string | undefined, name: string, options: GetOptions = {}): Promise<Buffer> {
    const computed = info.definition.hooks.computed;
    if (computed) {
      const found = (await computed.objects(this)).find((o) => metadataOf(o)['name'] === name);
      if (!found) throw computed.missing?.(name) ?? notFound(qr(info), name);
      return encodeJson(found);
    }
    const { resourceVersion } = options;
    const key = objectKey(info, namespace, name);
    if (resourceVersion !== undefined && resourceVersion > 0) await this.waitForRevision(resourceVersion, key);
    // Neither asks for a turn of its own when the answer is at hand (a GET is a few dozen microseconds).
    const caughtUp = resourceVersion !== undefined || this.cachesCaughtUp(key);
    let value: Buffer | undefined;
    if (caughtUp === true || (await caughtUp)) {
      const cacher = this.readyCacher(info);
      value = (cacher instanceof Promise ? await cacher : cacher).get(key);
    } else {
      value = (await this.storage.get(key))?.value;
    }
    if (!value) throw notFound(qr(info), name);
    return this.served(info, value);
  }

  async getObject(info: ResourceInfo, namespace: string | undefined, name: string): Promise<JsonObject | undefined> {
    const stored = await this.storage.get(objectKey(info, namespace, name));
    return stored ? this.fromStorage(info, decodeJson(stored.value)) : undefined;
  }

  /**
   * An object as a consistent GET reads it (see get): from the watch cache once it is current, which
   * it always is with this server the store's only writer; else from the store. For what admission
   * reads at each write (a pod's namespace, say): a store read costs ~50 µs on SQLite at 15,000 pods.
   */
  async currentObject(info: ResourceInfo, namespace: string | undefined, name: string): Promise<JsonObject | undefined> {
    const key = objectKey(info, namespace, name);
    if (!(await this.cachesCaughtUp(key))) return this.getObject(info, namespace, name);
    const value = (await this.cacher(info)).get(key);
    return value ? this.fromStorage(info, decodeJson(value)) : undefined;
  }

  /**
   * Bytes of a stored object as the requested version serves them (the stored bytes, as read back,
   * when it is the storage version); later when the conversion calls out (a CRD's conversion webhook).
   */
  private served(info: ResourceInfo, stored: Buffer): Buffer | Promise<Buffer> {
    const value = info.definition.hooks.readStored?.(stored) ?? stored;
    if (this.storageInfo(info).apiVersion === info.apiVersion) return value;
    if (!info.definition.hooks.convertByCall) return this.convertedBytes(info, value);
    return this.fromStorage(info, decodeJson(value)).then((obj) => encodeJson(obj));
  }

  /**
   * A stored version converted to `info`'s version, made once and shared while anyone holds it
   * (every watcher of one event, lists in a row), so that the forms made of it (Table rows,
   * Protobuf) are made once too; held weakly, as derived forms are (encoding/derived.ts).
   */
  private convertedBytes(info: ResourceInfo, value: Buffer): Buffer {
    let byVersion = this.convertedCache.get(value);
    const kept = byVersion?.get(info.apiVersion)?.deref();
    if (kept) return kept;
    const bytes = encodeJson(this.toVersion(info, decodeJson(value)));
    if (!byVersion) this.convertedCache.set(value, (byVersion = new Map()));
    byVersion.set(info.apiVersion, new WeakRef(bytes));
    return bytes;
  }

  /**
   * A write's stored bytes as the watch cache holds them (its own copy, when the store's values are
   * copied): the answer and the watchers then share what is derived from them (Protobuf, frames).
   */
  private async cachedBytes(info: ResourceInfo, written: Stored): Promise<Buffer> {
    const cache = this.cachers.get(resourcePrefix(info))?.started;
    const cached = cache && (await cache.then((c) => c.get(written.key), () => undefined));
    return cached !== undefined && cached !== written.value && cached.equals(written.value) ? cached : written.value;
  }

  /** Stored objects in the requested version; one conversion call at a time, as the reference decodes them. */
  private async servedAll(info: ResourceInfo, values: Buffer[]): Promise<Buffer[]> {
    const out: Buffer[] = [];
    for (const value of values) out.push(await this.served(info, value));
    return out;
  }

  /** An object in `info`'s version, converted by the resource's conversion (which may call out). */
  private async converted(info: ResourceInfo, obj: JsonObject): Promise<JsonObject> {
    const from = String(obj['apiVersion'] ?? '').split('/').pop()!;
    const byCall = info.definition.hooks.convertByCall;
    if (from === info.version || !byCall) return inVersion(info, obj, from);
    return byCall(this, obj, from, info.version);
  }

  /**
   * A stored object read in `info`'s version. A conversion that fails is the reference's 500: its
   * storage decoder's error as is, with no reason.
   */
  private async fromStorage(info: ResourceInfo, obj: JsonObject): Promise<JsonObject> {
    try {
      return await this.converted(info, obj);
    } catch (err) {
      if (err instanceof ConversionFailure) throw new StatusError(500, undefined, err.message);
      throw err;
    }
  }

  /**
   * An object written in `info`'s version, in the storage version. A conversion that fails is the
   * reference's 400: the request body could not be decoded into the storage version.
   */
  private async toStorage(info: ResourceInfo, storeInfo: ResourceInfo, obj: JsonObject): Promise<JsonObject> {
    try {
      return await this.converted(storeInfo, obj);
    } catch (err) {
      if (err instanceof ConversionFailure) throw badRequest(`${info.kind} in version "${info.version}" cannot be handled as a ${info.kind}: ${err.message}`);
      throw err;
    }
  }

  /** An object (as stored, or as an informer holds it) in `info`'s version; the same object when already there. */
  toVersion(info: ResourceInfo, obj: JsonObject): JsonObject {
    return inVersion(info, obj, String(obj['apiVersion'] ?? '').split('/').pop()!);
  }

  /**
   * The field manager's way to the resource's other served versions (those of a resource stored
   * with it included), where managedFields entries written in them are compared. None for a
   * resource converted by a call out (a CRD's conversion webhook): its entries compare as written.
   */
  private otherVersions(info: ResourceInfo): { inVersion?: (obj: JsonObject, apiVersion: string) => JsonObject | undefined } {
    if (info.definition.hooks.convertByCall) return {};
    return {
      inVersion: (obj, apiVersion) => {
        const prefix = resourcePrefix(info);
        const target = [...this.definitions.definitions()]
          .filter((d) => resourcePrefix(d) === prefix)
          .flatMap((d) => this.definitions.versionsOf(d.group, d.resource))
          .find((v) => v.apiVersion === apiVersion);
        if (!target) return undefined;
        const typed = typeof obj['apiVersion'] === 'string' ? obj : { ...obj, apiVersion: info.apiVersion };
        return inVersion(target, typed, String(typed['apiVersion']).split('/').pop()!);
      },
    };
  }

  /** A list as the options ask: the current state or an exact retained revision, selected, paged. */
  async list(info: ResourceInfo, namespace: string | undefined, options: ListOptions = {}): Promise<ObjectList> {
    const plan = readPlan(options);
    const computed = info.definition.hooks.computed;
    if (computed) {
      const filter = selectionOf(info, options);
      const objects = await computed.objects(this);
      return { metadata: {}, items: (filter ? objects.filter(filter) : objects).map((o) => encodeJson(o)) };
    }
    const filter = storedSelectionOf(info, options);
    const cacher = await this.cacher(info);
    const prefix = collectionPrefix(info, namespace);
    let result;
    if (plan.kind === 'current') {
      if (plan.notOlderThan !== undefined) await this.waitForRevision(plan.notOlderThan, prefix);
      const startKey = plan.afterKey !== undefined ? prefix + plan.afterKey : undefined;
      const indexed = indexedSelectionOf(info, options);
      result = plan.consistent && !(await this.cachesCaughtUp(prefix))
        ? await this.listFromStore(prefix, startKey, plan.limit, filter)
        : cacher.list({
          prefix, limit: plan.limit, startKey, filter, countRemaining: !filter,
          ...(indexed ? { keys: cacher.indexedKeys(indexed.field, indexed.of, indexed.value) } : {}),
        });
    } else {
      if (plan.revision > this.storage.currentRevision(prefix)) await this.waitForRevision(plan.revision, prefix);
      try {
        result = cacher.list({
          prefix, revision: plan.revision, limit: plan.limit,
          startKey: plan.afterKey !== undefined ? prefix + plan.afterKey : undefined,
          filter, countRemaining: !filter,
        });
      } catch (err) {
        if (err instanceof StorageError && err.code === 'Compacted') {
          if (plan.afterKey === undefined) throw new StatusError(410, 'Expired', 'The resourceVersion for the provided list is too old.');
          // An expired continue token: 410, with a token to carry on inconsistently at the current state.
          const expired = new StatusError(410, 'Expired', CONTINUE_EXPIRED_MESSAGE);
          expired.metadata = { continue: encodeContinue(-1, plan.afterKey) };
          throw expired;
        }
        throw err;
      }
    }
    const metadata: JsonObject = { resourceVersion: String(result.revision) };
    if (result.continueAfter !== undefined) {
      // The token's start is the next key relative to this list's own prefix, as the reference's.
      metadata['continue'] = encodeContinue(result.revision, `${result.continueAfter.slice(prefix.length)}\u0000`);
      if (result.remaining !== undefined) metadata['remainingItemCount'] = result.remaining;
    }
    const sameVersion = this.storageInfo(info).apiVersion === info.apiVersion;
    const read = info.definition.hooks.readStored;
    if (!sameVersion) return { metadata, items: await this.servedAll(info, result.items) };
    return { metadata, items: read ? result.items.map(read) : result.items };
  }

  // ---- writes ----

  /** Checks the body's kind and apiVersion against the endpoint, as the reference's decoder does. */
  checkTypeMeta(info: ResourceInfo, obj: JsonObject): void {
    const kind = stringField(obj, 'kind') ?? info.kind;
    const apiVersion = stringField(obj, 'apiVersion') ?? info.apiVersion;
    if (apiVersion !== info.apiVersion) {
      const other = this.definitions.versionsOf(info.group, info.resource).find((r) => r.apiVersion === apiVersion);
      if (!other || kind !== info.kind) {
        throw badRequest(`${kind} in version "${info.version}" cannot be handled as a ${info.kind}: no kind "${kind}" is registered for version "${apiVersion}" in scheme "pkg/runtime/scheme.go:100"`);
      }
    }
    if (kind !== info.kind) {
      const version = apiVersion.split('/').pop();
      throw badRequest(`${kind} in version "${version}" cannot be handled as a ${info.kind}: converting (${version}.${kind}) to (${internalGroup(info.group)}.${info.kind}): unknown conversion`);
    }
  }

  private checkNamespace(info: ResourceInfo, namespace: string | undefined, meta: JsonObject): void {
    if (!info.namespaced) {
      delete meta['namespace'];
      return;
    }
    const given = stringField(meta, 'namespace');
    if (given && given !== namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    meta['namespace'] = namespace;
  }

  /**
   * The group a 422 names: the stored object's (the reference names the kind of its internal
   * object, so an events.k8s.io Event is refused as a core "Event").
   */
  private invalidGroup(info: ResourceInfo): string {
    return this.storageInfo(info).group;
  }

  private validate(info: ResourceInfo, obj: JsonObject): void {
    const meta = metadataOf(obj);
    const errors = [...validateObjectMeta(meta, info.nameRule, info.namespaced), ...(info.definition.hooks.validateCreate?.(obj, info.version) ?? [])];
    if (errors.length) throw invalid(info.kind, this.invalidGroup(info), stringField(meta, 'name') ?? stringField(meta, 'generateName') ?? '', errors);
  }

  /** The admission of a write by `ctx` (none when the writer brings none); `options` as reviews carry them. */
  private admissionOf(operation: Operation, info: ResourceInfo, namespace: string | undefined, name: string, ctx: Pick<WriteContext, 'admission' | 'dryRun'>, options: JsonObject | undefined, subresource?: string): Admission | undefined {
    return (ctx.admission ?? this.defaultAdmission)?.({ operation, info, subresource, namespace: info.namespaced ? namespace : undefined, name, options, dryRun: ctx.dryRun ?? false });
  }

  /** Defaulting as the reference's decoder does it, for the endpoint's version. */
  private applyDefaults(info: ResourceInfo, obj: JsonObject): void {
    info.definition.hooks.defaults?.(obj, info.version);
  }

  /** A create: stored, unless the resource answers creates itself (reviews, bindings: see ResourceHooks.create). */
  async create(info: ResourceInfo, namespace: string | undefined, body: JsonObject, ctx: WriteContext = SYSTEM_WRITER): Promise<WriteResult> {
    const answer = info.definition.hooks.create;
    if (answer) return answer(this, { info, namespace, body, writer: ctx });
    this.checkTypeMeta(info, body);
    const meta = metadataOf(body);
    this.checkNamespace(info, namespace, meta);
    const generateName = stringField(meta, 'generateName');
    const explicitName = stringField(meta, 'name');
    if (!explicitName && !generateName) {
      throw invalid(info.kind, info.group, '', [fieldRequired('metadata.name', 'name or generateName is required')]);
    }
    const storeInfo = this.storageInfo(info);
    const strategy = info.definition.hooks;
    const admission = this.admissionOf('CREATE', info, namespace, explicitName ?? '', ctx, ctx.options && writeOptionsObject(ctx.options));
    for (let attempt = 0; ; attempt++) {
      const obj = copyJson(body);
      // A body without apiVersion is in the endpoint's version: said so, so that conversions
      // (to storage, for webhooks of an equivalent resource) know what they convert from.
      obj['apiVersion'] ??= info.apiVersion;
      const m = metadataOf(obj);
      for (const k of ['uid', 'resourceVersion', 'selfLink', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation']) delete m[k];
      this.applyDefaults(info, obj);
      strategy.normalize?.(obj);
      // Ownership is recorded on what the writer sent (after decoding and defaults), before the
      // server's own preparation, as the reference records it.
      if (!ctx.applied) recordUpdate(gvkOf(info), undefined, obj, ctx.manager, { now: now(), ...resetFieldsOf(info) });
      // Mutating admission sees the object as sent: the request's name ("" for generateName), no
      // uid, no server times (the reference's BeforeCreate sets them after it).
      await admission?.mutate(obj, undefined);
      if (!m['name']) m['name'] = explicitName ?? `${generateName!.slice(0, 58)}${randomSuffix()}`;
      m['uid'] = randomUUID();
      m['creationTimestamp'] = now();
      if (info.tracksGeneration) m['generation'] = 1;
      // Shared pools (service IPs, node ports) are drawn from here, as the reference's BeginCreate;
      // what was taken goes back unless the object is stored.
      const began = strategy.beginCreate?.(this, obj, ctx.dryRun ?? false);
      const claim = began instanceof Promise ? await began : began;
      try {
        if (info.subresources.has('status')) obj['status'] = {};
        strategy.prepareForCreate?.(obj, ctx.user ?? SYSTEM_USER);
        // The reference answers with the stored object decoded again, defaults and all: what the
        // preparation reset (status) or added (a Job's template labels) is defaulted once more.
        this.applyDefaults(info, obj);
        // The escalation check comes before validation, as the reference's RBAC storage runs it.
        ctx.admit?.(obj, namespace);
        this.validate(info, obj);
        await admission?.validate(obj, undefined);
        const stored = await this.toStorage(info, storeInfo, obj);
        const name = String(m['name']);
        if (ctx.dryRun) {
          // Nothing is stored, so no revision exists: the answer carries none.
          if (await this.storage.get(objectKey(info, namespace, name))) throw alreadyExists(qr(info), name);
          return { status: 201, body: await this.served(info, encodeJson(canonical(stored, storeInfo.kind, storeInfo.apiVersion))) };
        }
        try {
          const result = await this.storage.create(objectKey(info, namespace, name), (rev) => encodeAt(stored, storeInfo, rev));
          claim?.commit();
          return { status: 201, body: await this.served(info, await this.cachedBytes(info, result)) };
        } catch (err) {
          if (err instanceof StorageError && err.code === 'KeyExists') {
            if (!explicitName && attempt + 1 < MAX_GENERATE_ATTEMPTS) continue;
            throw alreadyExists(qr(info), name);
          }
          throw err;
        }
      } finally {
        claim?.revert(); // nothing once committed
      }
    }
  }

  /** A create of a subresource that acts (serviceaccounts/token, pods/binding, pods/eviction); 405 for others. */
  async createSubresource(info: ResourceInfo, namespace: string | undefined, name: string, subresource: string, body: JsonObject, ctx: WriteContext): Promise<WriteResult> {
    const answer = info.definition.hooks.subresourceCreates?.[subresource];
    if (!answer) throw methodNotAllowed();
    return answer(this, { info, namespace, name, body, writer: ctx });
  }

  /**
   * Read-modify-write with optimistic concurrency: `mutate` gets the current object (in the
   * endpoint's version) and returns the desired one. Retries on a storage conflict unless the
   * caller pinned a resourceVersion.
   */
  private async guaranteedUpdate(
    info: ResourceInfo,
    namespace: string | undefined,
    name: string,
    mutate: (current: JsonObject) => { obj: JsonObject; pinnedVersion?: string } | Promise<{ obj: JsonObject; pinnedVersion?: string }>,
    subresource: string | undefined,
    ctx: WriteContext,
    uidPrecondition?: string,
  ): Promise<WriteResult> {
    const key = objectKey(info, namespace, name);
    const storeInfo = this.storageInfo(info);
    const admission = this.admissionOf('UPDATE', info, namespace, name, ctx, ctx.options && writeOptionsObject(ctx.options), subresource);
    // The first try starts from the watch cache's copy, as the reference's cacher hands its storage
    // the object it holds (a store read is ~50 µs on SQLite at 15,000 pods): the write's condition
    // on the revision catches a copy the store has moved past, and the next try reads the store.
    // A dry run writes nothing to catch it, so it reads the store.
    let fromCache = !ctx.dryRun;
    for (let attempt = 0; ; attempt++) {
      const cached = fromCache ? await this.cachedCurrent(info, key) : undefined;
      fromCache = false;
      const current = cached ?? (await this.storage.get(key));
      // With other servers writing to the store, whatever the copy led to short of a write may be
      // the copy's doing (a conflict, a refusal, nothing to change): the store says. With this
      // server its only writer, the cache holds every write acknowledged, so it is the answer.
      const copyMayLag = cached !== undefined && this.storage.latestRevision !== undefined;
      const decoded = current && (cached?.decoded ?? decodeJson(current.value));
      // Checked first, as the reference's storage does: a missing object has the empty uid.
      if (uidPrecondition !== undefined) {
        const uid = decoded ? String(metadataOf(decoded)['uid'] ?? '') : '';
        if (uid !== uidPrecondition) {
          if (copyMayLag) continue;
          throw uidPreconditionFailed(info, namespace, name, uidPrecondition, uid, ctx.dryRun ?? false);
        }
      }
      if (!current || !decoded) throw notFound(qr(info), name);
      let pinnedVersion: string | undefined;
      const claims: Claim[] = [];
      try {
        let currentObj: JsonObject;
        let next: JsonObject;
        try {
          // A resource defined at run time (a custom resource) may be stored under an older schema:
          // decoding gives it today's defaults, as the reference's decoder does.
          if (!info.definition.builtin) info.definition.hooks.defaults?.(decoded, storeInfo.version);
          currentObj = await this.fromStorage(info, decoded);
          const mutated = await mutate(copyJson(currentObj));
          pinnedVersion = mutated.pinnedVersion;
          mutated.obj['apiVersion'] ??= info.apiVersion; // (as for a create)
          if (pinnedVersion !== undefined && pinnedVersion !== String(current.modRevision)) throw conflict(qr(info), name, OPTIMISTIC_LOCK_MESSAGE);
          next = await this.prepareUpdate(info, currentObj, mutated.obj, subresource, ctx, admission, claims);
          // Nothing to store when only managedFields times would change: no write, no event, the stored object.
          if (onlyManagedFieldsTimesDiffer(next, currentObj)) {
            if (copyMayLag) continue;
            return { status: 200, body: await this.served(info, current.value) };
          }
        } catch (err) {
          if (copyMayLag) continue;
          throw err;
        }
        // A terminating object whose last finalizer went is removed by this write.
        const finished = metadataOf(next)['deletionTimestamp'] && !holdsDeletion(info, next);
        const stored = await this.toStorage(info, storeInfo, next);
        if (ctx.dryRun) return { status: 200, body: await this.served(info, encodeAt(stored, storeInfo, current.modRevision)) };
        try {
          const result = finished
            ? await this.storage.delete(key, current.modRevision, (rev) => encodeAt(stored, storeInfo, rev))
            : await this.storage.update(key, current.modRevision, (rev) => encodeAt(stored, storeInfo, rev));
          for (const claim of claims) claim.commit();
          if (finished) await info.definition.hooks.afterDelete?.(this, decodeJson(result.value));
          return { status: 200, body: await this.served(info, finished ? result.value : await this.cachedBytes(info, result)) };
        } catch (err) {
          if (err instanceof StorageError && (err.code === 'Conflict' || err.code === 'NotFound') && pinnedVersion === undefined && attempt < MAX_CONFLICT_RETRIES) continue;
          if (err instanceof StorageError && err.code === 'Conflict') throw conflict(qr(info), name, OPTIMISTIC_LOCK_MESSAGE);
          if (err instanceof StorageError && err.code === 'NotFound') throw notFound(qr(info), name);
          throw err;
        }
      } finally {
        for (const claim of claims) claim.revert(); // nothing once committed
      }
    }
  }

  /**
   * The watch cache's copy of an object, with the revision its bytes carry (every store puts the
   * write's revision in them) and decoded; undefined when the cache has none.
   */
  private async cachedCurrent(info: ResourceInfo, key: string): Promise<{ value: Buffer; modRevision: number; decoded: JsonObject } | undefined> {
    const value = (await this.cacher(info)).get(key);
    if (!value) return undefined;
    const decoded = decodeJson(value);
    const modRevision = Number(metadataOf(decoded)['resourceVersion']);
    return Number.isSafeInteger(modRevision) && modRevision > 0 ? { value, modRevision, decoded } : undefined;
  }

  /** Applies the object semantics of an update to the desired object. */
  private async prepareUpdate(info: ResourceInfo, current: JsonObject, desired: JsonObject, subresource: string | undefined, ctx: WriteContext, admission: Admission | undefined, claims: Claim[]): Promise<JsonObject> {
    const curMeta = metadataOf(current);
    const name = String(curMeta['name'] ?? '');
    const namespace = info.namespaced ? String(curMeta['namespace'] ?? '') : undefined;
    const hooks = info.definition.hooks;
    let next: JsonObject;
    const part = subresource === undefined ? undefined : hooks.subresourceParts?.[subresource] ?? (subresource === 'status' ? statusPart : undefined);
    if (part) {
      // A subresource write changes only its own part of the object (and managedFields).
      // The body is decoded (and so defaulted) whole, then only the subresource's part is kept;
      // a binding is the server's own computation.
      if (subresource !== 'binding') this.applyDefaults(info, desired);
      next = part(copyJson(current), desired);
      if (ctx.applied) metadataOf(next)['managedFields'] = metadataOf(desired)['managedFields'];
      else if (subresource !== 'binding') recordUpdate(gvkOf(info), current, next, ctx.manager, { subresource, now: now(), ...resetFieldsOf(info, subresource), ...this.otherVersions(info) });
      await admission?.mutate(next, current);
      const errors = hooks.validateUpdate?.(next, current, info.version, subresource) ?? [];
      if (errors.length) throw invalid(info.kind, this.invalidGroup(info), name, errors);
    } else {
      next = desired;
      this.applyDefaults(info, next);
      const meta = metadataOf(next);
      // System fields are the server's.
      for (const k of ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation', 'namespace']) {
        if (curMeta[k] === undefined) delete meta[k];
        else meta[k] = curMeta[k];
      }
      if (!info.namespaced) delete meta['namespace'];
      // A write to the main resource ignores status changes where status has its own endpoint.
      if (info.subresources.has('status')) {
        if (current['status'] === undefined) delete next['status'];
        else next['status'] = current['status'];
      }
      hooks.normalize?.(next);
      // A scale write records its own entry (the reference gives it no time).
      if (!ctx.applied) recordUpdate(gvkOf(info), current, next, ctx.manager, { ...(subresource ? { subresource } : { now: now() }), ...resetFieldsOf(info, subresource), ...this.otherVersions(info) });
      await admission?.mutate(next, current);
      // As the reference's BeginUpdate: shared pools first, then the strategy and validation.
      const began = hooks.beginUpdate?.(this, next, current, ctx.dryRun ?? false);
      const claim = began instanceof Promise ? await began : began;
      if (claim) claims.push(claim);
      hooks.prepareForUpdate?.(next, current);
      if (info.tracksGeneration && (!jsonEqual(specOf(next), specOf(current)) || hooks.generationChange?.(next, current))) {
        meta['generation'] = (typeof curMeta['generation'] === 'number' ? curMeta['generation'] : 0) + 1;
      }
      ctx.admit?.(next, namespace);
      const errors = [...validateObjectMeta(meta, info.nameRule, info.namespaced), ...terminatingFinalizers(meta, curMeta), ...(hooks.validateUpdate?.(next, current, info.version, subresource) ?? [])];
      if (errors.length) throw invalid(info.kind, this.invalidGroup(info), String(meta['name'] ?? ''), errors);
    }
    await admission?.validate(next, current);
    metadataOf(next)['resourceVersion'] = curMeta['resourceVersion'];
    return canonical(next, info.kind, info.apiVersion);
  }

  /** PUT: replace the object (or create it where the resource allows create-on-update). */
  async update(info: ResourceInfo, namespace: string | undefined, name: string, body: JsonObject, subresource: string | undefined, ctx: WriteContext): Promise<WriteResult> {
    this.checkTypeMeta(info, body);
    const meta = metadataOf(body);
    const bodyName = stringField(meta, 'name');
    if (bodyName !== undefined && bodyName !== name) {
      throw badRequest(`the name of the object (${bodyName}) does not match the name on the URL (${name})`);
    }
    meta['name'] = name;
    this.checkNamespace(info, namespace, meta);
    const pinned = stringField(meta, 'resourceVersion') || undefined;
    // A uid in the body is a precondition on the stored object (the reference's PUT).
    const uid = stringField(meta, 'uid') || undefined;
    try {
      return await this.guaranteedUpdate(info, namespace, name, () => ({ obj: body, pinnedVersion: pinned }), subresource, ctx, uid);
    } catch (err) {
      if (err instanceof StatusError && err.code === 404 && !subresource && info.definition.hooks.allowCreateOnUpdate && !pinned) {
        return this.create(info, namespace, body, ctx);
      }
      throw err;
    }
  }

  /** PATCH: `apply` turns the current object into the desired one. */
  async patch(info: ResourceInfo, namespace: string | undefined, name: string, apply: (current: JsonObject) => unknown, subresource: string | undefined, ctx: WriteContext): Promise<WriteResult> {
    return this.guaranteedUpdate(info, namespace, name, (current) => {
      const currentVersion = stringField(metadataOf(current), 'resourceVersion');
      const patched = apply(current);
      if (!isObject(patched)) throw badRequest('the patched object is not a JSON object');
      this.checkTypeMeta(info, patched);
      const meta = metadataOf(patched);
      if (stringField(meta, 'name') !== name) {
        throw badRequest(`the name of the object (${String(meta['name'] ?? '')}) does not match the name on the URL (${name})`);
      }
      if (info.namespaced && stringField(meta, 'namespace') !== namespace) {
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      // A resourceVersion the patch sets (or changes) is a precondition, as in the reference.
      const patchedVersion = stringField(meta, 'resourceVersion');
      return { obj: patched, pinnedVersion: patchedVersion !== currentVersion ? patchedVersion : undefined };
    }, subresource, ctx);
  }

  /**
   * Server-side apply: merges the applied configuration into the live object (creating it when
   * absent) with the field manager's ownership rules; 409 on conflicts unless forced.
   */
  async apply(info: ResourceInfo, namespace: string | undefined, name: string, applied: JsonObject, options: { manager: string; force: boolean; dryRun?: boolean; user?: UserInfo; warnings?: string[]; options?: PatchOptions; admission?: AdmissionFor }, subresource?: string): Promise<WriteResult> {
    const meta = metadataOf(applied);
    const given = stringField(meta, 'name');
    if (given !== undefined && given !== name) throw badRequest(`the name of the object (${given}) does not match the name on the URL (${name})`);
    if (info.namespaced) {
      const ns = stringField(meta, 'namespace');
      if (ns !== undefined && ns !== namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    const ctx: WriteContext = { manager: options.manager, applied: true, dryRun: options.dryRun, user: options.user, warnings: options.warnings, options: options.options, admission: options.admission };
    const merge = (live: JsonObject | undefined) => fieldManagerApply(gvkOf(info), live, applied, options.manager, { force: options.force, subresource, now: now(), ...resetFieldsOf(info, subresource), ...this.otherVersions(info) });
    try {
      return await this.guaranteedUpdate(info, namespace, name, (current) => ({ obj: merge(current) }), subresource, ctx);
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 404) || subresource) throw err;
    }
    const created = merge(undefined);
    const m = metadataOf(created);
    m['name'] = name;
    if (info.namespaced) m['namespace'] = namespace;
    return this.create(info, namespace, created, ctx);
  }

  /** GET of the scale subresource. */
  async getScale(info: ResourceInfo, namespace: string | undefined, name: string): Promise<Buffer> {
    const obj = await this.getObject(info, namespace, name);
    if (!obj) throw notFound(scaleNotFoundResource(info), name);
    return encodeJson(scaleOf(info, obj));
  }

  /**
   * PUT or PATCH of the scale subresource: `change` turns the current Scale into the desired one.
   * `uidPrecondition`: the uid a PUT's Scale carries, which the stored object must have.
   */
  async updateScale(info: ResourceInfo, namespace: string | undefined, name: string, change: (scale: JsonObject) => unknown, ctx: WriteContext, uidPrecondition?: string): Promise<WriteResult> {
    const result = await this.guaranteedUpdate(info, namespace, name, (current) => {
      const currentVersion = stringField(metadataOf(current), 'resourceVersion');
      const next = applyScale(current, change(scaleOf(info, current)), info.definition.hooks.scale?.withReplicas);
      const pinned = stringField(metadataOf(next), 'resourceVersion');
      metadataOf(next)['resourceVersion'] = currentVersion;
      return { obj: next, pinnedVersion: pinned !== currentVersion ? pinned : undefined };
    }, 'scale', ctx, uidPrecondition);
    return { status: result.status, body: encodeJson(scaleOf(info, decodeJson(result.body))) };
  }

  async delete(info: ResourceInfo, namespace: string | undefined, name: string, options: DeleteOptions = {}): Promise<WriteResult> {
    const key = objectKey(info, namespace, name);
    const storeInfo = this.storageInfo(info);
    // As an update (guaranteedUpdate): the first try starts from the watch cache's copy, the
    // delete's condition on the revision catching a copy the store has moved past (a store read
    // is a B-tree walk through the file on SQLite, a round trip on etcd). A dry run reads the store.
    let fromCache = !options.dryRun;
    for (let attempt = 0; ; attempt++) {
      const cached = fromCache ? await this.cachedCurrent(info, key) : undefined;
      fromCache = false;
      const current = cached ?? (await this.storage.get(key));
      if (!current) throw notFound(qr(info), name);
      // With other servers writing to the store, whatever the copy leads to short of a write may
      // be the copy's doing (a refusal, nothing to change): the store says.
      const copyMayLag = cached !== undefined && this.storage.latestRevision !== undefined;
      const obj = cached?.decoded ?? decodeJson(current.value);
      const meta = metadataOf(obj);
      const strategy = info.definition.hooks;
      try {
        checkPreconditions(info, name, meta, options);
        // propagationPolicy: Foreground and Orphan hold the object with the garbage collector's
        // finalizer (foregroundDeletion, orphan); an explicit Background drops both. Without one,
        // the resource's default applies (v1 ReplicationControllers orphan, for compatibility).
        const policy = options.propagationPolicy ?? strategy.defaultPropagation?.(info.version);
        if (policy === 'Foreground' || policy === 'Orphan' || policy === 'Background') {
          const want = policy === 'Foreground' ? 'foregroundDeletion' : policy === 'Orphan' ? 'orphan' : undefined;
          const before = Array.isArray(meta['finalizers']) ? (meta['finalizers'] as unknown[]) : [];
          const after = before.filter((f) => (f !== 'foregroundDeletion' && f !== 'orphan') || f === want);
          if (want && !after.includes(want)) after.push(want);
          if (after.length) meta['finalizers'] = after;
          else delete meta['finalizers'];
        }
        if (strategy.beforeDelete) await strategy.beforeDelete(this, obj, options.dryRun ?? false);
        const admission = this.admissionOf('DELETE', info, namespace, name, options, deleteOptionsObject(options));
        if (admission) {
          const old = decodeJson(current.value);
          await admission.mutate(undefined, old);
          await admission.validate(undefined, old);
        }
      } catch (err) {
        if (copyMayLag) continue;
        throw err;
      }
      const gracefully = strategy.gracePeriod ? startGracePeriod(meta, strategy.gracePeriod(obj, options.gracePeriodSeconds)) : false;
      const held = gracefully || holdsDeletion(info, obj);
      if (options.dryRun) {
        if (held) {
          meta['deletionTimestamp'] ??= now();
          if (!strategy.heldBySpec) meta['deletionGracePeriodSeconds'] ??= 0;
        }
        strategy.prepareForDelete?.(obj);
        if (info.returnsDeletedObject || held) {
          return { status: 200, body: await this.served(info, encodeJson(canonical(obj, storeInfo.kind, storeInfo.apiVersion))) };
        }
        return { status: 200, body: encodeJson(successStatus(info, name, String(meta['uid'] ?? ''))) };
      }
      try {
        if (held) {
          // Finalizers or a grace period hold the object: mark it and let their owners finish.
          if (!meta['deletionTimestamp']) {
            meta['deletionTimestamp'] = now();
            if (!strategy.heldBySpec) meta['deletionGracePeriodSeconds'] = 0;
          }
          strategy.prepareForDelete?.(obj);
          const updated = canonical(obj, storeInfo.kind, storeInfo.apiVersion);
          // A repeated delete that changes nothing writes nothing.
          if (jsonEqual(updated, canonical(decodeJson(current.value), storeInfo.kind, storeInfo.apiVersion))) {
            if (copyMayLag) continue;
            return { status: options.orphanDependents === false ? 202 : 200, body: await this.served(info, current.value) };
          }
          const result = await this.storage.update(key, current.modRevision, (rev) => encodeAt(updated, storeInfo, rev));
          // The reference answers 202 for a pending delete only when orphanDependents=false was asked.
          return { status: options.orphanDependents === false ? 202 : 200, body: await this.served(info, result.value) };
        }
        const result = await this.storage.delete(key, current.modRevision, (rev) => {
          if (strategy.prepareForDelete) {
            strategy.prepareForDelete(obj);
            return encodeAt(canonical(obj, storeInfo.kind, storeInfo.apiVersion), storeInfo, rev);
          }
          return encodeAt(obj, storeInfo, rev);
        });
        await strategy.afterDelete?.(this, decodeJson(result.value));
        if (info.returnsDeletedObject) return { status: 200, body: await this.served(info, result.value) };
        return { status: 200, body: encodeJson(successStatus(info, name, String(meta['uid'] ?? ''))) };
      } catch (err) {
        if (err instanceof StorageError && (err.code === 'Conflict' || err.code === 'NotFound') && attempt < MAX_CONFLICT_RETRIES) continue;
        throw err;
      }
    }
  }

  /** deletecollection: deletes every object the list options select; answers with the list of what was deleted. */
  async deleteCollection(info: ResourceInfo, namespace: string | undefined, listOptions: ListOptions = {}, options: DeleteOptions = {}): Promise<ObjectList> {
    const filter = selectionOf(info, listOptions);
    const collection = collectionPrefix(info, namespace);
    const page = await this.storage.list(collection);
    const deleted: Buffer[] = [];
    for (const item of page.items) {
      const obj = decodeJson(item.value);
      if (filter && !filter(obj)) continue;
      const meta = metadataOf(obj);
      try {
        const result = await this.delete(info, stringField(meta, 'namespace'), String(meta['name']), options);
        deleted.push(info.returnsDeletedObject ? result.body : await this.served(info, item.value));
      } catch (err) {
        if (err instanceof StatusError && err.code === 404) continue;
        throw err;
      }
    }
    return { metadata: { resourceVersion: String(this.storage.currentRevision(collection)) }, items: deleted };
  }

  keyOf(info: ResourceInfo, namespace: string | undefined, name: string): string {
    return objectKey(info, namespace, name);
  }

  async stored(key: string): Promise<Stored | undefined> {
    return this.storage.get(key);
  }
}

function withStatus(current: JsonObject, status: unknown): JsonObject {
  if (status === undefined) delete current['status'];
  else current['status'] = status;
  return current;
}

/** The status subresource: the desired object's status, the rest as stored. */
const statusPart: PartUpdate = (current, desired) => withStatus(current, desired['status']);

/** Whether something still holds an object's deletion: metadata.finalizers, or the resource's own (namespace spec.finalizers). */
/** The Scale of an object: the resource's own view (custom resources), else the apps kinds'. */
function scaleOf(info: ResourceInfo, obj: JsonObject): JsonObject {
  return info.definition.hooks.scale?.toScale(obj) ?? toScale(obj, info.resource);
}

function holdsDeletion(info: ResourceInfo, obj: JsonObject): boolean {
  const finalizers = metadataOf(obj)['finalizers'];
  if (Array.isArray(finalizers) && finalizers.length > 0) return true;
  return info.definition.hooks.heldBySpec?.(obj) ?? false;
}

/** A terminating object may lose finalizers but gain none (the reference's metadata update rule). */
function terminatingFinalizers(meta: JsonObject, curMeta: JsonObject): FieldError[] {
  if (!curMeta['deletionTimestamp']) return [];
  const before = new Set(Array.isArray(curMeta['finalizers']) ? (curMeta['finalizers'] as unknown[]).map(String) : []);
  const added = (Array.isArray(meta['finalizers']) ? (meta['finalizers'] as unknown[]).map(String) : []).filter((f) => !before.has(f));
  if (!added.length) return [];
  return [fieldForbidden('metadata.finalizers', `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`)];
}

/** An RFC 3339 time (seconds) moved by `seconds`. */
function shiftTime(time: string, seconds: number): string {
  return rfc3339(Date.parse(time) + seconds * 1000);
}

/**
 * Graceful deletion (pods): the first delete with a positive grace sets deletionTimestamp to now +
 * grace; a later one may only shorten it (counted from the first request). True while the grace
 * period holds the object.
 */
function startGracePeriod(meta: JsonObject, grace: number): boolean {
  const current = meta['deletionGracePeriodSeconds'];
  const since = stringField(meta, 'deletionTimestamp');
  if (since !== undefined && typeof current === 'number') {
    if (grace < current) {
      meta['deletionTimestamp'] = shiftTime(since, grace - current);
      meta['deletionGracePeriodSeconds'] = grace;
    }
    return (meta['deletionGracePeriodSeconds'] as number) > 0;
  }
  if (since !== undefined || grace <= 0) return false;
  meta['deletionTimestamp'] = shiftTime(now(), grace);
  meta['deletionGracePeriodSeconds'] = grace;
  return true;
}

/** Bytes of an object as stored at a revision: its resourceVersion is that revision. */
function encodeAt(obj: JsonObject, info: ResourceInfo, revision: number): Buffer {
  const out = canonical(obj, info.kind, info.apiVersion);
  metadataOf(out)['resourceVersion'] = String(revision);
  const bytes = encodeKept(canonical(out, info.kind, info.apiVersion));
  info.definition.hooks.written?.(bytes);
  return bytes;
}

function checkPreconditions(info: ResourceInfo, name: string, meta: JsonObject, options: DeleteOptions): void {
  const pre = options.preconditions;
  if (!pre) return;
  const prefix = `Operation cannot be fulfilled on ${info.kind} "${name}": `;
  const details = { name, group: info.group || undefined, kind: info.kind };
  if (pre.uid !== undefined && pre.uid !== meta['uid']) {
    throw new StatusError(409, 'Conflict', `${prefix}the UID in the precondition (${pre.uid}) does not match the UID in record (${String(meta['uid'])}). The object might have been deleted and then recreated`, details);
  }
  if (pre.resourceVersion !== undefined && pre.resourceVersion !== meta['resourceVersion']) {
    throw new StatusError(409, 'Conflict', `${prefix}the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${String(meta['resourceVersion'])}). The object might have been modified`, details);
  }
}

/**
 * 409 when the stored object (absent: uid "") is not the one a write names by uid, in the
 * reference's words: its storage's invalid-object error, wrapped as a conflict.
 */
function uidPreconditionFailed(info: ResourceInfo, namespace: string | undefined, name: string, uid: string, stored: string, dryRun: boolean): StatusError {
  const key = referenceStorageKey(info, namespace, name, dryRun);
  return conflict(qr(info), name, `StorageError: invalid object, Code: 4, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ${uid}, UID in object meta: ${stored}`);
}

function successStatus(info: ResourceInfo, name: string, uid: string): JsonObject {
  return {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success',
    details: { name, group: info.group || undefined, kind: info.resource, uid },
  };
}

