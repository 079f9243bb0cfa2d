// The garbage collector: objects name their owners in metadata.ownerReferences (apiVersion, kind,
// name, uid); when every owner of a dependent is gone, the dependent is deleted too.
//
// - Background (the default): the owner is deleted at once; its dependents follow, unless another
//   owner of theirs still lives (then they only lose the reference to the one that went).
// - Foreground: the owner stays with deletionTimestamp and the "foregroundDeletion" finalizer while
//   its dependents are deleted; the finalizer goes when no dependent blocking it
//   (blockOwnerDeletion: true) remains.
// - Orphan: the owner's reference is removed from every dependent, then its "orphan" finalizer.
//
// A graph of the objects that matter (those with owner references or a collector finalizer) and
// of their owners' uids is kept from the informer of every served resource. Owners are verified
// by name and uid (in the dependent's namespace when the owner's kind is namespaced), from the
// informer and, before anything is deleted on their absence, from storage. A client of the registry only.
import type { ResourceInfo } from '../registry/definitions.js';
import { StatusError } from '../errors.js';
import { metadataOf } from '../registry/objects.js';
import { resourcePrefix } from '../registry/keys.js';
import { type Registry, CONTROLLER_WRITER } from '../registry/store.js';
import type { ObjectVersion, Subscription } from '../registry/informers.js';
import type { JsonObject } from '../json.js';

const FOREGROUND = 'foregroundDeletion';
/** What an object's bytes hold when the collector must look at it (as Buffers: a Buffer needle is found ~3× faster than a string one). */
const MARKS = ['ownerReferences', FOREGROUND, '"orphan"'].map((mark) => Buffer.from(mark));
const ORPHAN = 'orphan';
const WORKERS = 4;
const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 10_000;

interface OwnerRef {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** An object the collector tracks: a dependent (it has owners) or an owner being deleted by policy. */
interface Node {
  uid: string;
  key: string;
  /** The resource in its storage version. */
  info: ResourceInfo;
  namespace: string | undefined;
  name: string;
  owners: OwnerRef[];
  deleting: boolean;
  finalizers: string[];
}

type OwnerState = 'solid' | 'dangling' | 'waiting';

/** Thrown inside a patch when the object at the name is no longer the one the graph knows. */
class Replaced extends Error {}

function ownerRefsOf(meta: JsonObject): OwnerRef[] {
  const refs = meta['ownerReferences'];
  if (!Array.isArray(refs)) return [];
  // The graph keeps them as they are: parts of the informer's shared object, frozen.
  return refs.filter((r): r is OwnerRef =>
    typeof r === 'object' && r !== null && typeof r.uid === 'string' && typeof r.name === 'string'
    && typeof r.kind === 'string' && typeof r.apiVersion === 'string');
}

function finalizersOf(meta: JsonObject): string[] {
  const f = meta['finalizers'];
  return Array.isArray(f) ? f.filter((x): x is string => typeof x === 'string') : [];
}

function isNotFound(err: unknown): boolean {
  return err instanceof StatusError && err.code === 404;
}

export class GarbageCollector {
  private readonly nodes = new Map<string, Node>();
  private readonly uidByKey = new Map<string, string>();
  /** owner uid → uids of the dependents that name it. */
  private readonly dependents = new Map<string, Set<string>>();
  /** The subscription to each followed resource, by its storage prefix. */
  private readonly watchers = new Map<string, Subscription>();
  private unsubscribe?: () => void;
  /** (apiVersion, kind) → resource (storage version), or null when nothing served has that kind. */
  private readonly resolved = new Map<string, ResourceInfo | null>();

  private readonly queue = new Set<string>();
  private readonly active = new Set<string>();
  private readonly again = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private workers = 0;
  private ready = false;
  private stopped = false;

  constructor(private readonly registry: Registry) {}

  /** Loads every served resource's objects, then follows their changes; works off what it found. */
  async start(): Promise<void> {
    // Resources defined later (or no longer) are followed (or dropped) as they come and go.
    this.unsubscribe = this.registry.definitions.subscribe(({ type, definition }) => {
      this.resolved.clear();
      const info = this.registry.definitions.storageInfo(definition);
      if (type === 'removed') this.unfollow(definition);
      else if (info) this.followResource(info).catch((err: unknown) => console.error('garbage collector:', err));
    });
    for (const info of this.registry.definitions.all()) await this.followResource(this.registry.storageInfo(info));
    this.ready = true;
    this.kick();
  }

  /** Loads a resource's objects into the graph, then follows their changes (storage version). */
  private async followResource(info: ResourceInfo): Promise<void> {
    if (!info.verbs.includes('list') || !info.verbs.includes('watch')) return;
    // Events (core and events.k8s.io: one storage) are the reference's ignored resources: never
    // collected, never owners.
    if (info.group === '' && info.resource === 'events') return;
    const informer = await this.registry.informer(info);
    if (this.watchers.has(informer.prefix) || this.stopped) return;
    this.watchers.set(informer.prefix, informer.subscribe({
      added: (o, initial) => this.observe(info, o, !initial),
      updated: (o) => this.observe(info, o, true),
      deleted: (o) => this.onDeleted(o),
    }));
  }

  private unfollow(resource: { group: string; resource: string }): void {
    const prefix = resourcePrefix(resource);
    this.watchers.get(prefix)?.stop();
    this.watchers.delete(prefix);
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    for (const w of this.watchers.values()) w.stop();
    this.watchers.clear();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.queue.clear();
  }

  // ---- the graph ----

  private onDeleted(o: ObjectVersion): void {
    if (this.stopped) return;
    const uid = this.uidByKey.get(o.key);
    if (uid) this.removeNode(uid);
    // The owner side: whoever named the deleted object now has a dangling reference.
    if (this.dependents.size > 0) {
      const goneUid = uid ?? stringOf(metadataOf(o.frozen)['uid']);
      for (const dep of this.dependents.get(goneUid ?? '') ?? []) this.enqueue(dep);
    }
  }

  /** Brings the graph up to date with an object's current state; queues what needs a look. */
  private observe(info: ResourceInfo, o: ObjectVersion, live: boolean): void {
    if (this.stopped) return;
    const value = o.bytes;
    const known = this.uidByKey.has(o.key);
    if (!known && !MARKS.some((mark) => value.includes(mark))) return;
    const meta = metadataOf(o.frozen);
    const uid = stringOf(meta['uid']);
    const name = stringOf(meta['name']);
    if (!uid || !name) return;
    const namespace = info.namespaced ? stringOf(meta['namespace']) : undefined;
    const objKey = o.key;
    const owners = ownerRefsOf(meta);
    const finalizers = finalizersOf(meta);
    const deleting = Boolean(meta['deletionTimestamp']);
    const previous = this.nodes.get(uid);
    const touched = new Set<string>(previous?.owners.map((o) => o.uid) ?? []);
    if (owners.length === 0 && !finalizers.includes(FOREGROUND) && !finalizers.includes(ORPHAN)) {
      if (previous) this.removeNode(uid);
      return;
    }
    if (previous) this.unlink(previous);
    const node: Node = { uid, key: objKey, info, namespace, name, owners, deleting, finalizers };
    this.nodes.set(uid, node);
    this.uidByKey.set(objKey, uid);
    for (const o of owners) {
      touched.add(o.uid);
      let set = this.dependents.get(o.uid);
      if (!set) this.dependents.set(o.uid, (set = new Set()));
      set.add(uid);
    }
    this.enqueue(uid);
    // An owner waiting for its dependents may be unblocked by this change.
    if (live) for (const o of touched) this.enqueueWaitingOwner(o);
  }

  private removeNode(uid: string): void {
    const node = this.nodes.get(uid);
    if (!node) return;
    this.unlink(node);
    this.nodes.delete(uid);
    if (this.uidByKey.get(node.key) === uid) this.uidByKey.delete(node.key);
    for (const o of node.owners) this.enqueueWaitingOwner(o.uid);
  }

  private unlink(node: Node): void {
    for (const o of node.owners) {
      const set = this.dependents.get(o.uid);
      if (!set) continue;
      set.delete(node.uid);
      if (set.size === 0) this.dependents.delete(o.uid);
    }
  }

  private enqueueWaitingOwner(uid: string): void {
    const owner = this.nodes.get(uid);
    if (owner?.deleting && (owner.finalizers.includes(FOREGROUND) || owner.finalizers.includes(ORPHAN))) this.enqueue(uid);
  }

  // ---- the work queue ----

  private enqueue(uid: string): void {
    if (this.stopped) return;
    if (this.active.has(uid)) {
      this.again.add(uid);
      return;
    }
    this.queue.add(uid);
    this.kick();
  }

  private kick(): void {
    while (this.ready && !this.stopped && this.workers < WORKERS && this.queue.size > 0) {
      const uid = this.queue.values().next().value as string;
      this.queue.delete(uid);
      this.active.add(uid);
      this.workers++;
      void this.run(uid);
    }
  }

  private async run(uid: string): Promise<void> {
    try {
      await this.process(uid);
      this.failures.delete(uid);
    } catch (err) {
      this.retry(uid, err);
    } finally {
      this.active.delete(uid);
      this.workers--;
      if (this.again.delete(uid)) this.queue.add(uid);
      this.kick();
    }
  }

  private retry(uid: string, err: unknown): void {
    if (this.stopped) return;
    const n = (this.failures.get(uid) ?? 0) + 1;
    this.failures.set(uid, n);
    const conflict = err instanceof StatusError && err.code === 409;
    if (n === 1 && !conflict) console.error('garbage collector:', err);
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (this.nodes.has(uid)) this.enqueue(uid);
      else this.failures.delete(uid);
    }, Math.min(RETRY_MIN_MS * 2 ** (n - 1), RETRY_MAX_MS));
    this.timers.add(t);
  }

  // ---- decisions ----

  private async process(uid: string): Promise<void> {
    const node = this.nodes.get(uid);
    if (!node || this.stopped) return;
    if (node.deleting && node.finalizers.includes(ORPHAN)) {
      await this.orphanDependents(node);
      return;
    }
    if (node.deleting && node.finalizers.includes(FOREGROUND)) await this.deleteDependents(node);
    if (node.owners.length > 0 && !node.deleting) await this.collect(node);
  }

  /** Orphan: every dependent loses its reference to the node, then the node loses its finalizer. */
  private async orphanDependents(owner: Node): Promise<void> {
    for (const depUid of [...(this.dependents.get(owner.uid) ?? [])]) {
      const dep = this.nodes.get(depUid);
      if (dep) await this.dropOwners(dep, new Set([owner.uid]));
    }
    await this.removeFinalizer(owner, ORPHAN);
  }

  /** Foreground: the dependents go (their own processing deletes them); the finalizer goes once none blocks. */
  private async deleteDependents(owner: Node): Promise<void> {
    const deps = [...(this.dependents.get(owner.uid) ?? [])];
    for (const d of deps) this.enqueue(d);
    const blocked = deps.some((d) => this.nodes.get(d)?.owners.some((o) => o.uid === owner.uid && o.blockOwnerDeletion === true));
    if (!blocked) await this.removeFinalizer(owner, FOREGROUND);
  }

  /** A dependent whose owners are all gone (or waiting for their dependents) is deleted. */
  private async collect(node: Node): Promise<void> {
    const states = new Map<string, OwnerState>();
    for (const ref of node.owners) states.set(ref.uid, await this.ownerState(node, ref));
    const solid = [...states.values()].filter((s) => s === 'solid').length;
    const gone = new Set([...states].filter(([, s]) => s !== 'solid').map(([u]) => u));
    if (gone.size === 0) return;
    if (solid > 0) {
      await this.dropOwners(node, gone);
      return;
    }
    const waiting = [...states.values()].includes('waiting');
    // Under a foreground deletion, a dependent with dependents of its own is deleted in foreground too.
    const propagationPolicy = waiting && (this.dependents.get(node.uid)?.size ?? 0) > 0 ? 'Foreground' : 'Background';
    try {
      await this.registry.delete(node.info, node.namespace, node.name, { preconditions: { uid: node.uid }, propagationPolicy });
    } catch (err) {
      // Gone already, or replaced by a new object of the same name (its own events cover it).
      if (isNotFound(err) || (err instanceof StatusError && err.code === 409)) return;
      throw err;
    }
  }

  /** Whether an owner lives, is gone (or is not the object named), or is waiting for its dependents. */
  private async ownerState(node: Node, ref: OwnerRef): Promise<OwnerState> {
    const info = this.resolve(ref.apiVersion, ref.kind);
    // A kind nothing serves, or a cluster-scoped dependent naming a namespaced kind: never collected.
    if (!info) return 'solid';
    if (info.namespaced && node.namespace === undefined) return 'solid';
    const namespace = info.namespaced ? node.namespace : undefined;
    let owner = (await this.registry.informer(info)).get(namespace, ref.name);
    if (!owner || metadataOf(owner)['uid'] !== ref.uid) {
      // The informer may lag a write just made: absence is confirmed from storage before it counts.
      owner = await this.registry.getObject(info, namespace, ref.name);
      if (!owner || metadataOf(owner)['uid'] !== ref.uid) return 'dangling';
    }
    const meta = metadataOf(owner);
    if (meta['deletionTimestamp'] && finalizersOf(meta).includes(FOREGROUND)) return 'waiting';
    return 'solid';
  }

  /** The served resource (storage version) of an owner reference's kind in its apiVersion's group. */
  private resolve(apiVersion: string, kind: string): ResourceInfo | undefined {
    const id = `${apiVersion}|${kind}`;
    let found = this.resolved.get(id);
    if (found === undefined) {
      const slash = apiVersion.lastIndexOf('/');
      const group = slash < 0 ? '' : apiVersion.slice(0, slash);
      const version = apiVersion.slice(slash + 1);
      let match: ResourceInfo | undefined;
      for (const info of this.registry.definitions.all()) {
        if (info.kind !== kind || info.group !== group) continue;
        if (!match || info.version === version) match = info;
      }
      found = match ? this.registry.storageInfo(match) : null;
      this.resolved.set(id, found);
    }
    return found ?? undefined;
  }

  // ---- writes ----

  private async dropOwners(node: Node, uids: Set<string>): Promise<void> {
    await this.patchNode(node, (meta) => {
      const refs: unknown[] = Array.isArray(meta['ownerReferences']) ? meta['ownerReferences'] : [];
      const kept = refs.filter((r) => !(typeof r === 'object' && r !== null && uids.has((r as OwnerRef).uid)));
      if (kept.length) meta['ownerReferences'] = kept;
      else delete meta['ownerReferences'];
    });
  }

  private async removeFinalizer(node: Node, finalizer: string): Promise<void> {
    await this.patchNode(node, (meta) => {
      const kept = finalizersOf(meta).filter((f) => f !== finalizer);
      if (kept.length) meta['finalizers'] = kept;
      else delete meta['finalizers'];
    });
  }

  /** Changes a tracked object's metadata through the registry, when it is still the same object. */
  private async patchNode(node: Node, change: (meta: JsonObject) => void): Promise<void> {
    try {
      await this.registry.patch(node.info, node.namespace, node.name, (current) => {
        const meta = metadataOf(current);
        if (meta['uid'] !== node.uid) throw new Replaced();
        change(meta);
        return current;
      }, undefined, CONTROLLER_WRITER);
    } catch (err) {
      if (err instanceof Replaced || isNotFound(err)) return;
      throw err;
    }
  }
}

function stringOf(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
