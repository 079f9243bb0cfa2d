// Informers: how code inside the server (controllers, admission, authorization) follows a
// resource. One informer per storage prefix, shared by every version and every user, is a view of
// the resource's watch cache: its current objects (by namespace and name, or by namespace), a
// change number that moves whenever any of them changed, and subscriptions whose handlers hear of
// every object added, updated or deleted — after the objects there now, when asked — with none
// missed and none told twice across the line between the two. The informer follows the set of
// definitions: while its resource is not served it holds nothing and its subscriptions hear
// nothing; when the resource is served again, each subscription is told what changed meanwhile.
import { compareKeys } from '../storage/keys.js';
import type { Cacher, CacheEvent, CacheSnapshot } from '../storage/cacher.js';
import type { Watcher } from '../storage/types.js';
import { type JsonObject, decodeJson, deepFreeze } from '../json.js';
import { parsedObject } from '../encoding/derived.js';

/** One version of an object as handlers are given it: its stored bytes, decoded on first use. */
export class ObjectVersion {
  private decoded: JsonObject | undefined;

  constructor(
    /** The object's storage key: unique among every object of every resource. */
    readonly key: string,
    readonly bytes: Buffer,
    /** Where the "namespace/name" (or "name") part of the key starts. */
    private readonly nameStart: number,
  ) {}

  /** The object in its storage version; decoded once for this call, so the handler may keep or change it. */
  get object(): JsonObject {
    return (this.decoded ??= decodeJson(this.bytes));
  }

  /**
   * The object in its storage version, decoded once for every handler that reads it this way and
   * frozen: for a handler that only reads it (a change to it throws). A pod's change reaches some
   * ten controllers; with their decoding shared, pods are created through the API ~15% faster.
   */
  get frozen(): JsonObject {
    // The parse that derived forms share (encoding/derived.ts), which the watch cache's index read
    // made of the new version already: one parse of a change for the cache and every handler.
    return deepFreeze(parsedObject(this.bytes));
  }

  /** The namespace, from the key; undefined for a cluster-scoped object. */
  get namespace(): string | undefined {
    const slash = this.key.indexOf('/', this.nameStart);
    return slash < 0 ? undefined : this.key.slice(this.nameStart, slash);
  }

  get name(): string {
    const slash = this.key.indexOf('/', this.nameStart);
    return this.key.slice(slash < 0 ? this.nameStart : slash + 1);
  }
}

export interface InformerHandlers {
  /** An object there when the subscription began (`initial`, when replayed), or created since. */
  added?(object: ObjectVersion, initial: boolean): void;
  updated?(object: ObjectVersion, old: ObjectVersion): void;
  /** An object deleted: as its deletion left it. */
  deleted?(object: ObjectVersion): void;
}

export interface SubscribeOptions {
  /** First announce every object there now as added (the default); false: only what changes from now on. */
  replay?: boolean;
}

export interface Subscription {
  stop(): void;
}

const NOTHING: CacheSnapshot = { keys: [], values: [], revision: 0 };

class InformerSubscription implements Subscription {
  watcher: Watcher | undefined;
  /** While the informer is stopped: what this subscription was last told of, to tell it the difference later. */
  baseline: CacheSnapshot | undefined;
  stopped = false;

  constructor(private readonly all: Set<InformerSubscription>, private readonly handlers: InformerHandlers, private readonly nameStart: number) {
    all.add(this);
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.watcher?.stop();
    this.all.delete(this);
  }

  version(key: string, bytes: Buffer): ObjectVersion {
    return new ObjectVersion(key, bytes, this.nameStart);
  }

  added(key: string, bytes: Buffer, initial: boolean): void {
    if (this.stopped || !this.handlers.added) return;
    this.guard(() => this.handlers.added!(this.version(key, bytes), initial));
  }

  updated(key: string, bytes: Buffer, old: Buffer): void {
    if (this.stopped || !this.handlers.updated) return;
    this.guard(() => this.handlers.updated!(this.version(key, bytes), this.version(key, old)));
  }

  deleted(key: string, bytes: Buffer): void {
    if (this.stopped || !this.handlers.deleted) return;
    this.guard(() => this.handlers.deleted!(this.version(key, bytes)));
  }

  /** A change from the watch cache. */
  onEvent(e: CacheEvent): void {
    if (e.type === 'create') this.added(e.key, e.value, false);
    else if (e.type === 'update') this.updated(e.key, e.value, e.prevValue ?? e.value);
    else this.deleted(e.key, e.value);
  }

  /** A broken handler must not break delivery to the others, nor the watch cache. */
  private guard(call: () => void): void {
    try {
      call();
    } catch (err) {
      process.emitWarning(`informer handler threw: ${err instanceof Error ? err.stack ?? err.message : String(err)}`, 'InformerWarning');
    }
  }
}

export class Informer {
  private cacher: Cacher | undefined;
  private readonly subscriptions = new Set<InformerSubscription>();
  private starting: Promise<void> = Promise.resolve();
  /** Moves on every start and stop, so a start that a stop overtook is dropped. */
  private epoch = 0;
  private everStarted = false;
  /** changeNumber() is this plus the cache's newest change revision (see attach). */
  private changeBase = 0;
  /** changeNumber() while stopped. */
  private stoppedChange = 0;

  constructor(readonly prefix: string) {}

  // ---- following the definition set (the registry's part) ----

  /** Follows a (new) watch cache of the resource; subscriptions hear what changed since they last heard. */
  start(cacher: Promise<Cacher>): void {
    if (this.cacher) this.stop();
    const epoch = ++this.epoch;
    this.starting = cacher.then(
      (c) => {
        if (epoch === this.epoch) this.attach(c);
      },
      (err: unknown) => console.error(`informer of ${this.prefix}:`, err),
    );
  }

  /** The resource is no longer served: the informer holds nothing until it is again. */
  stop(): void {
    this.epoch++;
    const cacher = this.cacher;
    if (!cacher) return;
    const last = this.changeNumber();
    const told = this.subscriptions.size > 0 ? cacher.snapshot(this.prefix) : NOTHING;
    for (const s of this.subscriptions) {
      s.watcher?.stop();
      s.watcher = undefined;
      s.baseline = told;
    }
    this.cacher = undefined;
    this.stoppedChange = last + 1;
  }

  /** Resolves once the informer follows the watch cache it was last started with (a restart meanwhile included). */
  async ready(): Promise<void> {
    let awaited: Promise<void>;
    do {
      awaited = this.starting;
      await awaited;
    } while (awaited !== this.starting);
  }

  private attach(cacher: Cacher): void {
    // Across a restart the number keeps moving forward, whatever the new cache's revisions.
    if (this.everStarted) this.changeBase = this.stoppedChange + 1 - cacher.lastChangeRevision();
    this.everStarted = true;
    this.cacher = cacher;
    if (this.subscriptions.size === 0) return;
    const now = cacher.snapshot(this.prefix);
    for (const s of [...this.subscriptions]) {
      if (s.stopped) continue;
      s.watcher = cacher.watch(now.revision, (e) => s.onEvent(e));
      const before = s.baseline ?? NOTHING;
      s.baseline = undefined;
      tellDifference(s, before, now);
    }
  }

  // ---- reads ----

  private keyOf(namespace: string | undefined, name: string): string {
    return namespace === undefined ? `${this.prefix}${name}` : `${this.prefix}${namespace}/${name}`;
  }

  /** An object by namespace (undefined when cluster-scoped) and name, decoded (the caller's own copy). */
  get(namespace: string | undefined, name: string): JsonObject | undefined {
    const value = this.cacher?.get(this.keyOf(namespace, name));
    return value ? decodeJson(value) : undefined;
  }

  /** An object's stored bytes (shared: never change them), for callers that keep what they derive from each version. */
  stored(namespace: string | undefined, name: string): Buffer | undefined {
    return this.cacher?.get(this.keyOf(namespace, name));
  }

  has(namespace: string | undefined, name: string): boolean {
    return this.cacher?.get(this.keyOf(namespace, name)) !== undefined;
  }

  /** Every object (of one namespace, when given), in key order, decoded (the caller's own copies). */
  list(namespace?: string): JsonObject[] {
    if (!this.cacher) return [];
    return this.cacher.list({ prefix: namespace === undefined ? this.prefix : `${this.prefix}${namespace}/` }).items.map(decodeJson);
  }

  /** The names of every object (of one namespace, when given), in key order, without decoding any. */
  names(namespace?: string): string[] {
    if (!this.cacher) return [];
    const prefix = namespace === undefined ? this.prefix : `${this.prefix}${namespace}/`;
    return this.cacher.snapshot(prefix).keys.map((k) => k.slice(prefix.length));
  }

  /** A number that moves whenever any object changed (compare it for equality only). */
  changeNumber(): number {
    return this.cacher ? this.changeBase + this.cacher.lastChangeRevision() : this.stoppedChange;
  }

  // ---- subscriptions ----

  /**
   * Calls the handlers for every object there now (unless `replay` is false), then for every
   * change after them. The replay happens before subscribe returns; changes come afterwards.
   */
  subscribe(handlers: InformerHandlers, options: SubscribeOptions = {}): Subscription {
    const s = new InformerSubscription(this.subscriptions, handlers, this.prefix.length);
    const cacher = this.cacher;
    if (!cacher) {
      s.baseline = NOTHING;
      return s;
    }
    if (options.replay === false) {
      s.watcher = cacher.watch(cacher.appliedRevision(), (e) => s.onEvent(e));
      return s;
    }
    // Taken together, with no change applied in between: changes after the snapshot come through the
    // watch, which delivers them only after this replay.
    const now = cacher.snapshot(this.prefix);
    s.watcher = cacher.watch(now.revision, (e) => s.onEvent(e));
    for (let i = 0; i < now.keys.length && !s.stopped; i++) s.added(now.keys[i]!, now.values[i]!, true);
    return s;
  }
}

/** Tells a subscription how `after` differs from `before` (both in key order). */
function tellDifference(s: InformerSubscription, before: CacheSnapshot, after: CacheSnapshot): void {
  let i = 0;
  let j = 0;
  while (i < before.keys.length || j < after.keys.length) {
    const order = i === before.keys.length ? 1 : j === after.keys.length ? -1 : compareKeys(before.keys[i]!, after.keys[j]!);
    if (order < 0) {
      s.deleted(before.keys[i]!, before.values[i]!);
      i++;
    } else if (order > 0) {
      s.added(after.keys[j]!, after.values[j]!, false);
      j++;
    } else {
      if (!before.values[i]!.equals(after.values[j]!)) s.updated(after.keys[j]!, after.values[j]!, before.values[i]!);
      i++;
      j++;
    }
  }
}

/**
 * Wakes a waiter at each change that some informers show: for a start-up wait on what controllers
 * write (statuses seen back in the informer), which polling on a timer would stretch by up to a
 * poll's length each round.
 */
export class InformerChanges {
  private readonly subscriptions: Subscription[];
  private changes = 0;
  private seen = 0;
  private wake: (() => void) | undefined;

  constructor(informers: readonly Informer[]) {
    const changed = () => {
      this.changes++;
      this.wake?.();
    };
    this.subscriptions = informers.map((i) => i.subscribe({ added: changed, updated: changed, deleted: changed }, { replay: false }));
  }

  /** Resolves at the next change since the last call (at once if one came meanwhile), or after `ms`. */
  next(ms: number): Promise<void> {
    if (this.changes !== this.seen) {
      this.seen = this.changes;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        this.seen = this.changes;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  stop(): void {
    for (const s of this.subscriptions) s.stop();
  }
}
