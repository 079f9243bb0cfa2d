// The watch cache: for one resource prefix, every current object plus the changes of the retained
// window, fed by the storage's watch. Gets, lists (now or at an exact retained revision, paged) and
// watches (from any retained revision) are served from memory. The cache keeps bytes and events
// only: what is made of the bytes for a client (frames, other encodings) is the encoding layer's.
// The bytes are its own copies, kept in shared slabs (slabs.ts), unless the store keeps the values
// itself (memory storage): then it shares the store's. What it reads at its start it keeps as it
// is when each value is an allocation of its own (SQLite's).
import { compareKeys, prefixEnd } from './keys.js';
import { Slabs } from './slabs.js';
import { StorageError, type EventType, type ListResult, type Storage, type StorageEvent, type Watcher } from './types.js';
import { turns, type TurnTask } from '../turns.js';

export class CacheEvent {
  constructor(
    readonly type: EventType,
    readonly key: string,
    readonly value: Buffer,
    readonly prevValue: Buffer | undefined,
    readonly rev: number,
  ) {}
}

/**
 * The retained changes, oldest first, as parallel arrays rather than an object each (the cache holds
 * a window of them; CacheEvents are made when delivered). A change is named by its sequence number,
 * which stays the same as older ones are dropped.
 */
class History {
  readonly types: EventType[] = [];
  readonly keys: string[] = [];
  /** (The cache may put another copy of the same bytes here: see slabs.ts.) */
  readonly values: Buffer[] = [];
  readonly prevValues: Array<Buffer | undefined> = [];
  readonly revs: number[] = [];
  /** When the cache got each: ms after the cache's start (small integers, not boxed numbers). */
  readonly ats: number[] = [];
  /** Index of the oldest retained change; those before it are dropped (cut off now and then). */
  head = 0;
  /** Sequence number of index 0. */
  private base = 0;

  get length(): number {
    return this.types.length - this.head;
  }

  /** The array index of a sequence number. */
  at(seq: number): number {
    return seq - this.base;
  }

  /** Sequence number of the change at array index i. */
  seq(i: number): number {
    return i + this.base;
  }

  push(type: EventType, key: string, value: Buffer, prevValue: Buffer | undefined, rev: number, at: number): number {
    this.types.push(type);
    this.keys.push(key);
    this.values.push(value);
    this.prevValues.push(prevValue);
    this.revs.push(rev);
    this.ats.push(at);
    return this.seq(this.types.length - 1);
  }

  event(i: number): CacheEvent {
    return new CacheEvent(this.types[i]!, this.keys[i]!, this.values[i]!, this.prevValues[i], this.revs[i]!);
  }

  /** Forgets the `n` oldest changes. */
  drop(n: number): void {
    this.head += n;
    if (this.head < 1024 || this.head * 2 < this.types.length) return;
    for (const a of [this.types, this.keys, this.values, this.prevValues, this.revs, this.ats] as unknown[][]) a.splice(0, this.head);
    this.base += this.head;
    this.head = 0;
  }
}

/**
 * One version of a key: the sequence number of the retained change that made it (a delete's: the
 * key absent), otherwise only what it was at the oldest retained revision — its bytes, or null for
 * absent — since its revision no longer matters to any read. So a version costs no object of its
 * own.
 */
type Version = number | Buffer | null;

export interface CacheListOptions {
  /** Keys under this prefix (at least the cacher's own). */
  prefix: string;
  /** Serve the state at exactly this revision; the current state when absent. */
  revision?: number;
  /** Start after this key (paging). */
  afterKey?: string;
  /** Start at this key, inclusive (continue tokens carry the last key plus "\u0000"). */
  startKey?: string;
  /** At most this many items (after filtering). */
  limit?: number;
  filter?: (value: Buffer) => boolean;
  /** Count the items left after a full page (for remainingItemCount). */
  countRemaining?: boolean;
  /** Only these keys, in key order, as an index gives them (`indexedKeys`): the current state only. */
  keys?: readonly string[];
}

/** The current objects by one value read from their bytes, kept up to date with each change. */
interface ValueIndex {
  of: (value: Buffer) => string;
  keysByValue: Map<string, Set<string>>;
  valueByKey: Map<string, string>;
}

export interface CacheListResult {
  items: Buffer[];
  revision: number;
  /** Key of the last item served, when more follow. */
  continueAfter?: string;
  remaining?: number;
}

export type CacheListener = (event: CacheEvent) => void;

/** A watch whose changes are handed over in turns: the change it gets next (by sequence number). */
interface TurnWatch extends TurnTask {
  next: number;
}

export interface TurnWatcher extends Watcher {
  /** Every change applied so far has been handed over (none waits for a turn). */
  caughtUp(): boolean;
}

/** Changes handed to one watch at a time in a turn, so that catching up on a long history does not hold the turn. */
const CHANGES_PER_VISIT = 64;
/** How many of the latest changes keep the CacheEvent made for them, for all the watches handed it. */
const RECENT_EVENTS = 256;

/** The current objects under a prefix at one revision: parallel arrays, in key order. */
export interface CacheSnapshot {
  keys: string[];
  values: Buffer[];
  revision: number;
}

export interface CacherOptions {
  /** How long changes are kept for watches and exact lists (ms). */
  windowMs: number;
  /** Upper bound of retained events, whatever their age. */
  maxEvents?: number;
  now?: () => number;
  /**
   * Told each copy the cache makes of a stored value it keeps as current (its own, in its slabs):
   * what was worked out from the value holds for the copy (custom resources' reads).
   */
  copied?: (from: Buffer, to: Buffer) => void;
}

export class Cacher {
  /** Every key (deleted ones too, while the window needs them) in key order, less those just added. */
  private sorted: string[] = [];
  /** Keys new since `sorted` was last brought up to date, in no order: merged in when next read. */
  private added: string[] = [];
  /** A key's versions, oldest first: one (the common case, no array kept) or several within the window. */
  private readonly versions = new Map<string, Version | Version[]>();
  /** Keys whose latest version is a deletion (kept while the window needs them). */
  private readonly dead = new Set<string>();
  private readonly history = new History();
  private readonly indexes = new Map<string, ValueIndex>();
  private readonly listeners = new Set<CacheListener>();
  /** What to call for each open watch when the cache stops. */
  private readonly enders = new Map<CacheListener, () => void>();
  /** Watches handed their changes in turns (watchInTurns), each with what to call when the cache stops. */
  private readonly turnWatches = new Map<TurnWatch, (() => void) | undefined>();
  /** The CacheEvents of the latest changes, by sequence number modulo RECENT_EVENTS. */
  private readonly recentEvents: Array<CacheEvent | undefined> = new Array<CacheEvent | undefined>(RECENT_EVENTS);
  private readonly recentSeqs = new Float64Array(RECENT_EVENTS).fill(-1);
  /** The oldest revision whose state (and every change after it) this cache can still give. */
  private oldest: number;
  /** Revision of the newest change under this prefix. */
  private lastChange = 0;
  private upstream?: Watcher;
  private readonly now: () => number;
  private readonly windowMs: number;
  private readonly maxEvents: number;
  /** The time events' `at` counts from. */
  private readonly startedAt: number;
  /** Where the cache's copies of the values are kept; none when it shares the store's. */
  private readonly slabs: Slabs | undefined;
  private readonly copied: ((from: Buffer, to: Buffer) => void) | undefined;

  private constructor(
    private readonly storage: Storage,
    readonly prefix: string,
    startRevision: number,
    options: CacherOptions,
  ) {
    this.oldest = startRevision;
    this.now = options.now ?? Date.now;
    this.windowMs = options.windowMs;
    this.maxEvents = options.maxEvents ?? 500_000;
    this.startedAt = this.now();
    this.copied = options.copied;
    this.slabs = storage.keepsValues
      ? undefined
      : new Slabs(
          (key) => this.get(key),
          (key, copy) => this.replaceLatest(key, copy),
        );
  }

  /** The cache's copy of a value that is not (or not yet) a key's current one. */
  private copy(value: Buffer): Buffer {
    return this.slabs ? this.slabs.copy(value) : value;
  }

  /**
   * What the cache keeps of a value read at its start. One that is an allocation of its own (as
   * SQLite's are) is kept as it is: copied, a start held every object twice for a moment, and the
   * copies, made above the originals, kept the malloc heap at its peak once these were gone
   * (100,000 ConfigMaps: 375 MiB against 283 MiB after a restart, and 0.45 s slower). A view into a
   * larger buffer (etcd's messages) is copied, so as not to keep the rest of that buffer.
   */
  private startCopy(value: Buffer): Buffer {
    return value.byteOffset === 0 && value.buffer.byteLength === value.length ? value : this.copy(value);
  }

  /**
   * Loads the current state, then the storage's retained history (everything after its compacted
   * revision), so that exact lists and watches from any retained revision work from the start —
   * across a restart too.
   */
  static async start(storage: Storage, prefix: string, options: CacherOptions): Promise<Cacher> {
    // The keys written since the compacted revision come with the history replayed below (their
    // state then is what its first change replaced): read here, their values were read twice.
    let compacted = storage.compactedRevision(prefix);
    let page = await storage.list(prefix, { maxModRevision: compacted });
    // Compacted during the read (etcd's compactor, say): the history now starts later.
    while (storage.compactedRevision(prefix) !== compacted) {
      compacted = storage.compactedRevision(prefix);
      page = await storage.list(prefix, { maxModRevision: compacted });
    }
    const cacher = new Cacher(storage, prefix, compacted, options);
    // The upstream listener lives as long as the cache, and with it whatever its closure's scope
    // holds: the replayed changes are handed over in an object it lets go of, and the first page
    // is read only outside any closure. (Held in one scope, the two kept every value read at the
    // start twice over for good: 19 MiB for 10,000 ConfigMaps of 1 KiB.)
    const replay: { early: StorageEvent[] | undefined } = { early: [] };
    cacher.upstream = storage.watch(prefix, compacted, (e) => {
      if (replay.early) replay.early.push(e);
      else cacher.onEvent(e);
    });
    // The history replay is delivered in a microtask: once a macrotask has passed, it is all here.
    await new Promise((resolve) => setImmediate(resolve));
    const early = replay.early!;
    replay.early = undefined;
    cacher.startFrom(page, early);
    return cacher;
  }

  /** Loads the first page and the changes replayed up to its revision, then applies the later ones. */
  private startFrom(page: ListResult, early: readonly StorageEvent[]): void {
    const backfill: StorageEvent[] = [];
    for (const e of early) if (e.modRevision <= page.revision) backfill.push(e);
    this.load(page.items.map((i) => ({ key: i.key, rev: i.modRevision, value: i.value })), backfill);
    for (const e of early) if (e.modRevision > page.revision) this.onEvent(e);
  }

  /** Builds every key's versions from the current state and the changes that led to it. */
  private load(current: Array<{ key: string; rev: number; value: Buffer }>, history: StorageEvent[]): void {
    // The changes in one pass, in revision order: an event's prevValue is the version before it
    // (the key's latest so far), so each version is copied once. A key's first retained change
    // replaced its state at the compacted revision.
    const replayed: string[] = [];
    const now = this.now() - this.startedAt;
    for (const e of history) {
      const versions = this.versions.get(e.key);
      if (versions === undefined) replayed.push(e.key);
      const last = versions === undefined ? undefined : this.get(e.key);
      const prevValue = e.prevValue && (last?.equals(e.prevValue) ? last : this.startCopy(e.prevValue));
      const value = prevValue?.equals(e.value) ? prevValue : this.startCopy(e.value);
      const seq = this.history.push(e.type, e.key, value, prevValue, e.modRevision, now);
      if (versions === undefined) {
        // Before a create the key was absent, which its change alone says (as addVersion keeps a
        // new key): an array per key created in the window was ~110 bytes each (10,000
        // ConfigMaps: 1.1 MB).
        this.versions.set(e.key, e.type === 'create' ? seq : [prevValue ?? null, seq]);
      } else if (Array.isArray(versions)) versions.push(seq);
      else this.versions.set(e.key, [versions, seq]);
    }
    // Unchanged since the compacted revision: only their bytes.
    const keys = replayed.slice();
    for (const c of current) {
      if (this.versions.has(c.key)) continue;
      keys.push(c.key);
      const value = this.startCopy(c.value);
      this.versions.set(c.key, value);
      this.slabs?.hold(c.key, value);
    }
    this.sorted = keys.sort(compareKeys);
    for (const key of replayed) {
      const latest = this.get(key);
      if (latest === undefined) this.dead.add(key);
      else this.slabs?.hold(key, latest);
    }
    for (const c of current) if (c.rev > this.lastChange) this.lastChange = c.rev;
    for (const e of history) if (e.modRevision > this.lastChange) this.lastChange = e.modRevision;
    for (const key of replayed) this.prune(key);
  }

  stop(): void {
    this.upstream?.stop();
    this.listeners.clear();
    const enders = [...this.enders.values()];
    this.enders.clear();
    for (const [w, ended] of this.turnWatches) {
      turns.delete(w);
      if (ended) enders.push(ended);
    }
    this.turnWatches.clear();
    for (const ended of enders) ended();
  }

  /** The revision every read of this cache reflects: all committed writes have been delivered. */
  revision(): number {
    return this.storage.currentRevision(this.prefix);
  }

  /** Revision of the newest change under this prefix (a cheap "has anything changed" check). */
  lastChangeRevision(): number {
    return this.lastChange;
  }

  oldestRevision(): number {
    this.evict();
    return this.oldest;
  }

  /**
   * The revision this cache's state is exactly at, now: the newest change it has applied (or the
   * oldest it retains, when later). Unlike revision(), it never runs ahead of a committed change
   * whose event is still on its way, so a watch from it misses nothing and repeats nothing.
   */
  appliedRevision(): number {
    return Math.max(this.lastChange, this.oldestRevision());
  }

  /**
   * The current objects under `prefix`, keys and values in key order, and the revision they are
   * the state at (appliedRevision): a snapshot and a watch from its revision, taken together,
   * give every object exactly once.
   */
  snapshot(prefix: string): CacheSnapshot {
    const keys: string[] = [];
    const values: Buffer[] = [];
    const all = this.keys;
    for (let i = this.lowerBound(prefix); i < all.length; i++) {
      const key = all[i]!;
      if (!key.startsWith(prefix)) break;
      const value = this.get(key);
      if (!value) continue;
      keys.push(key);
      values.push(value);
    }
    return { keys, values, revision: this.appliedRevision() };
  }

  get(key: string): Buffer | undefined {
    const v = this.versions.get(key);
    return (Array.isArray(v) ? this.valueOf(v[v.length - 1]!) : v === undefined ? null : this.valueOf(v)) ?? undefined;
  }

  private revisionOf(v: Version): number {
    return typeof v === 'number' ? this.history.revs[this.history.at(v)]! : -Infinity;
  }

  private valueOf(v: Version): Buffer | null {
    if (typeof v !== 'number') return v;
    const i = this.history.at(v);
    return this.history.types[i] === 'delete' ? null : this.history.values[i]!;
  }

  /** The key's current version now has these bytes (the same, copied elsewhere). */
  private replaceLatest(key: string, bytes: Buffer): void {
    const v = this.versions.get(key);
    const latest = Array.isArray(v) ? v[v.length - 1] : v;
    const moved = latest === undefined ? undefined : this.valueOf(latest);
    if (moved) this.copied?.(moved, bytes);
    if (typeof latest === 'number') this.history.values[this.history.at(latest)] = bytes;
    else if (Array.isArray(v)) v[v.length - 1] = bytes;
    else this.versions.set(key, bytes);
  }

  private addVersion(key: string, seq: number, type: EventType): void {
    const v = this.versions.get(key);
    if (v === undefined) this.versions.set(key, seq);
    else if (Array.isArray(v)) v.push(seq);
    else this.versions.set(key, [v, seq]);
    if (type === 'delete') this.dead.add(key);
    else this.dead.delete(key);
  }

  /**
   * The keys whose current object has `value` under the index `name`, in key order. The index is
   * made from the current objects with `of` when first asked for, then kept with each change: as
   * the reference's watch cache indexes pods by spec.nodeName, a kubelet's list of its node's pods
   * reads those pods, not every pod.
   */
  indexedKeys(name: string, of: (value: Buffer) => string, value: string): string[] {
    let index = this.indexes.get(name);
    if (!index) {
      index = { of, keysByValue: new Map(), valueByKey: new Map() };
      this.indexes.set(name, index);
      for (const key of this.keys) {
        const current = this.get(key);
        if (current) indexKey(index, key, current);
      }
    }
    return [...(index.keysByValue.get(value) ?? [])].sort(compareKeys);
  }

  list(options: CacheListOptions): CacheListResult {
    const revision = options.revision ?? this.revision();
    if (options.revision !== undefined) this.assertRetained(options.revision);
    if (options.keys) {
      if (options.revision !== undefined) throw new Error('an index gives the current state only');
      return this.listKeys(options.keys, options, revision);
    }
    const items: Buffer[] = [];
    let i = options.afterKey !== undefined ? this.upperBound(options.afterKey) : this.lowerBound(options.startKey ?? options.prefix);
    const all = this.keys;
    if (i < all.length && compareKeys(all[i]!, options.prefix) < 0) i = this.lowerBound(options.prefix);
    const limit = options.limit && options.limit > 0 ? options.limit : Infinity;
    let lastKey: string | undefined;
    for (; i < all.length; i++) {
      const key = all[i]!;
      if (!key.startsWith(options.prefix)) break;
      if (items.length >= limit) {
        // One more live (and matching) item decides whether there is a next page.
        // Positions count the current state; an exact revision with no change since is the same.
        const current = (options.revision === undefined || options.revision >= this.lastChange) && !options.filter;
        const rest = current ? this.countCurrent(i, options.prefix) : this.countFrom(i, options.prefix, revision, options.filter, options.countRemaining ? Infinity : 1);
        if (rest === 0) return { items, revision };
        return { items, revision, continueAfter: lastKey, remaining: options.countRemaining ? rest : undefined };
      }
      const value = this.valueAt(key, revision);
      if (!value || (options.filter && !options.filter(value))) continue;
      items.push(value);
      lastKey = key;
    }
    return { items, revision };
  }

  /** A list of the current state read from `keys` (in key order) instead of every key under the prefix. */
  private listKeys(keys: readonly string[], options: CacheListOptions, revision: number): CacheListResult {
    const items: Buffer[] = [];
    const limit = options.limit && options.limit > 0 ? options.limit : Infinity;
    const from = options.afterKey ?? options.startKey;
    const inclusive = options.afterKey === undefined;
    let lastKey: string | undefined;
    let rest = 0;
    for (const key of keys) {
      if (!key.startsWith(options.prefix)) continue;
      if (from !== undefined && (inclusive ? compareKeys(key, from) < 0 : compareKeys(key, from) <= 0)) continue;
      const value = this.valueAt(key, revision);
      if (!value || (options.filter && !options.filter(value))) continue;
      if (items.length < limit) {
        items.push(value);
        lastKey = key;
      } else {
        rest++;
        if (!options.countRemaining) break;
      }
    }
    if (rest === 0) return { items, revision };
    return { items, revision, continueAfter: lastKey, remaining: options.countRemaining ? rest : undefined };
  }

  /**
   * Delivers every change after `fromRevision` (retained history first, then live ones) in order.
   * Throws StorageError Compacted when the history after fromRevision is gone. `ended` is called if
   * the cache stops while the watch is open (its resource is no longer served).
   */
  watch(fromRevision: number, listener: CacheListener, ended?: () => void): Watcher {
    const h = this.history;
    const start = this.firstAfter(fromRevision);
    const replay: CacheEvent[] = [];
    for (let i = start; i < h.types.length; i++) replay.push(h.event(i));
    // Live events wait until the replay has been delivered, so order holds.
    let pending: CacheEvent[] | undefined = [];
    const live: CacheListener = (e) => {
      if (e.rev <= fromRevision) return; // a watch from a revision not reached yet starts after it
      if (pending) pending.push(e);
      else listener(e);
    };
    this.listeners.add(live);
    if (ended) this.enders.set(live, ended);
    queueMicrotask(() => {
      if (!this.listeners.has(live)) return;
      for (const e of replay) listener(e);
      const queued = pending!;
      pending = undefined;
      for (const e of queued) listener(e);
    });
    return {
      stop: () => {
        this.listeners.delete(live);
        this.enders.delete(live);
      },
    };
  }

  /**
   * As watch(), but each change is handed over in a turn (turns.ts) rather than while it is applied.
   * For the API's watches: with a thousand of them open, applying a change costs one step per watch
   * (putting it in the turns), not the watch's whole work, and that work is done a few milliseconds
   * at a time. The change waits in the history meanwhile; a watch whose changes leave the history
   * before it has them (a window's worth behind) is ended, as `ended` says, and its client resumes.
   */
  watchInTurns(fromRevision: number, listener: CacheListener, ended?: () => void): TurnWatcher {
    const h = this.history;
    const start = this.firstAfter(fromRevision);
    const watch: TurnWatch = { next: h.seq(start), inTurns: false, flush: () => this.handOver(watch, fromRevision, listener) };
    this.turnWatches.set(watch, ended);
    if (start < h.types.length) turns.add(watch);
    return {
      stop: () => {
        this.turnWatches.delete(watch);
        turns.delete(watch);
      },
      caughtUp: () => h.at(watch.next) >= h.types.length,
    };
  }

  /** The history index of the first retained change after `fromRevision` (Compacted when some are gone). */
  private firstAfter(fromRevision: number): number {
    this.assertRetained(fromRevision);
    const h = this.history;
    let start = h.types.length;
    while (start > h.head && h.revs[start - 1]! > fromRevision) start--;
    return start;
  }

  /** Hands a watch what waits for it, up to CHANGES_PER_VISIT (then it waits for the next turn). */
  private handOver(watch: TurnWatch, fromRevision: number, listener: CacheListener): void {
    const h = this.history;
    let i = h.at(watch.next);
    if (i < h.head) {
      const ended = this.turnWatches.get(watch);
      this.turnWatches.delete(watch);
      ended?.();
      return;
    }
    const end = Math.min(h.types.length, i + CHANGES_PER_VISIT);
    for (; i < end && this.turnWatches.has(watch); i++) {
      watch.next++;
      // A watch from a revision not reached yet starts after it.
      if (h.revs[i]! <= fromRevision) continue;
      try {
        listener(this.eventAt(i));
      } catch (err) {
        process.emitWarning(`watch cache listener threw: ${err instanceof Error ? err.message : String(err)}`, 'CacheWarning');
      }
    }
    if (i < h.types.length && this.turnWatches.has(watch)) turns.add(watch);
  }

  /** The change at history index i as a CacheEvent, made once while it is among the latest. */
  private eventAt(i: number): CacheEvent {
    const seq = this.history.seq(i);
    const slot = seq % RECENT_EVENTS;
    if (this.recentSeqs[slot] === seq) return this.recentEvents[slot]!;
    const event = this.history.event(i);
    this.recentSeqs[slot] = seq;
    this.recentEvents[slot] = event;
    return event;
  }

  watcherCount(): number {
    return this.listeners.size + this.turnWatches.size;
  }

  private assertRetained(revision: number): void {
    this.evict();
    if (revision < this.oldest) throw new StorageError('Compacted', `too old resource version: ${revision} (${this.oldest})`, this.oldest);
  }

  private onEvent(e: StorageEvent): void {
    let value = e.value;
    let prevValue = e.prevValue;
    const replaced = this.slabs ? this.get(e.key) : undefined;
    if (this.slabs) {
      // The version replaced is the cache's current one: the event carries the cache's copy of it.
      if (prevValue) prevValue = replaced?.equals(prevValue) ? replaced : this.slabs.copy(prevValue);
      value = e.type === 'delete' ? (e.value === e.prevValue || prevValue?.equals(e.value) ? prevValue! : this.slabs.copy(e.value)) : this.slabs.keep(e.key, e.value);
      if (e.type !== 'delete') this.copied?.(e.value, value);
    }
    const seq = this.history.push(e.type, e.key, value, prevValue, e.modRevision, this.now() - this.startedAt);
    this.lastChange = e.modRevision;
    if (!this.versions.has(e.key)) this.added.push(e.key); // put in order when the keys are next read
    this.addVersion(e.key, seq, e.type);
    for (const index of this.indexes.values()) indexKey(index, e.key, e.type === 'delete' ? undefined : value);
    // Only once the new version is in place: emptying a slab moves current versions, not this one.
    if (replaced) this.slabs!.release(replaced);
    this.evict();
    for (const w of this.turnWatches.keys()) turns.add(w);
    if (this.listeners.size === 0) return;
    const event = this.eventAt(this.history.at(seq));
    for (const l of this.listeners) {
      try {
        l(event);
      } catch (err) {
        process.emitWarning(`watch cache listener threw: ${err instanceof Error ? err.message : String(err)}`, 'CacheWarning');
      }
    }
  }

  /** Drops changes older than the window (or past the count bound) and the versions only they needed. */
  private evict(): void {
    const horizon = this.now() - this.startedAt - this.windowMs;
    const h = this.history;
    const end = h.types.length;
    let i = h.head;
    while (i < end && (h.ats[i]! < horizon || end - i > this.maxEvents)) i++;
    if (i === h.head) return;
    this.oldest = Math.max(this.oldest, h.revs[i - 1]!);
    // Pruned while the dropped changes are still there to read.
    for (let k = h.head; k < i; k++) this.prune(h.keys[k]!);
    h.drop(i - h.head);
  }

  /** Keeps a key's versions newer than `oldest` plus the one in force at `oldest`. */
  private prune(key: string): void {
    const v = this.versions.get(key);
    if (v === undefined) return;
    const list = Array.isArray(v) ? v : [v];
    // Versions are in revision order: only the first few can be at or before `oldest`.
    let keepFrom = -1;
    while (keepFrom + 1 < list.length && this.revisionOf(list[keepFrom + 1]!) <= this.oldest) keepFrom++;
    if (keepFrom >= 0) {
      if (keepFrom > 0) list.splice(0, keepFrom);
      // The one in force at `oldest`: its revision no longer matters, its change is no longer retained.
      list[0] = this.valueOf(list[0]!);
    }
    if (list.length === 1 && list[0] === null) {
      this.versions.delete(key);
      this.dead.delete(key);
      const i = this.lowerBound(key);
      const all = this.keys;
      if (all[i] === key) all.splice(i, 1);
      return;
    }
    this.versions.set(key, list.length === 1 ? list[0]! : list);
  }

  private valueAt(key: string, revision: number): Buffer | null {
    const v = this.versions.get(key);
    if (v === undefined) return null;
    if (!Array.isArray(v)) return this.revisionOf(v) <= revision ? this.valueOf(v) : null;
    for (let i = v.length - 1; i >= 0; i--) if (this.revisionOf(v[i]!) <= revision) return this.valueOf(v[i]!);
    return null;
  }

  /** Live keys from index i to the end of the prefix in the current state: positions, less the dead. */
  private countCurrent(i: number, prefix: string): number {
    const end = prefixEnd(prefix);
    const all = this.keys;
    const last = end === undefined ? all.length : this.lowerBound(end);
    let n = last - i;
    const first = all[i];
    for (const key of this.dead) if (first !== undefined && compareKeys(key, first) >= 0 && (end === undefined || compareKeys(key, end) < 0)) n--;
    return n;
  }

  private countFrom(i: number, prefix: string, revision: number, filter: ((v: Buffer) => boolean) | undefined, max: number): number {
    let n = 0;
    const all = this.keys;
    for (; i < all.length && n < max; i++) {
      const key = all[i]!;
      if (!key.startsWith(prefix)) break;
      const value = this.valueAt(key, revision);
      if (value && (!filter || filter(value))) n++;
    }
    return n;
  }

  /**
   * Every key in key order. Keys a change added are merged in here, when next read, rather than
   * each spliced in as it comes (a copy of half the keys per create).
   */
  private get keys(): string[] {
    if (this.added.length === 0) return this.sorted;
    const added = this.added.sort(compareKeys);
    this.added = [];
    const old = this.sorted;
    const merged = new Array<string>(old.length + added.length);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < old.length && j < added.length) merged[k++] = compareKeys(old[i]!, added[j]!) <= 0 ? old[i++]! : added[j++]!;
    while (i < old.length) merged[k++] = old[i++]!;
    while (j < added.length) merged[k++] = added[j++]!;
    this.sorted = merged;
    return merged;
  }

  /** First index whose key is >= `key`. */
  private lowerBound(key: string): number {
    let lo = 0;
    const all = this.keys;
    let hi = all.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareKeys(all[mid]!, key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** First index whose key is > `key`. */
  private upperBound(key: string): number {
    let lo = 0;
    const all = this.keys;
    let hi = all.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareKeys(all[mid]!, key) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** Files `key` under what `index` reads of its current value (none: the key is gone). */
function indexKey(index: ValueIndex, key: string, value: Buffer | undefined): void {
  const before = index.valueByKey.get(key);
  const after = value === undefined ? undefined : index.of(value);
  if (before === after) return;
  if (before !== undefined) {
    const keys = index.keysByValue.get(before)!;
    keys.delete(key);
    if (keys.size === 0) index.keysByValue.delete(before);
  }
  if (after === undefined) {
    index.valueByKey.delete(key);
    return;
  }
  index.valueByKey.set(key, after);
  let keys = index.keysByValue.get(after);
  if (!keys) index.keysByValue.set(after, (keys = new Set()));
  keys.add(key);
}
