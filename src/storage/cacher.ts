// The watch cache: for one resource prefix, every current object plus the changes of the retained
// window, fed by the storage's watch. Gets, lists (now or at an exact retained revision, paged) and
// watches (from any retained revision) are served from memory. The cache keeps bytes and events
// only: what is made of the bytes for a client (frames, other encodings) is the encoding layer's.
import { compareKeys, prefixEnd } from './keys.js';
import { StorageError, type EventType, type Storage, type StorageEvent, type Watcher } from './types.js';

interface Version {
  rev: number;
  /** null: the key was deleted at this revision. */
  value: Buffer | null;
}

export class CacheEvent {
  constructor(
    readonly type: EventType,
    readonly key: string,
    readonly value: Buffer,
    readonly prevValue: Buffer | undefined,
    readonly rev: number,
    readonly at: number,
  ) {}
}

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
}

export interface CacheListResult {
  items: Buffer[];
  revision: number;
  /** Key of the last item served, when more follow. */
  continueAfter?: string;
  remaining?: number;
}

export type CacheListener = (event: CacheEvent) => void;

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
}

export class Cacher {
  /** Every key (deleted ones too, while the window needs them) in key order, less those just added. */
  private sorted: string[] = [];
  /** Keys new since `sorted` was last brought up to date, in no order: merged in when next read. */
  private added: string[] = [];
  /** A key's versions: one (the common case, no array kept) or several within the window. */
  private readonly versions = new Map<string, Version | Version[]>();
  /** Keys whose latest version is a deletion (kept while the window needs them). */
  private readonly dead = new Set<string>();
  private history: CacheEvent[] = [];
  private readonly listeners = new Set<CacheListener>();
  /** What to call for each open watch when the cache stops. */
  private readonly enders = new Map<CacheListener, () => void>();
  /** The oldest revision whose state (and every change after it) this cache can still give. */
  private oldest: number;
  /** Revision of the newest change under this prefix. */
  private lastChange = 0;
  private upstream?: Watcher;
  private readonly now: () => number;
  private readonly windowMs: number;
  private readonly maxEvents: number;

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
  }

  /**
   * Loads the current state, then the storage's retained history (everything after its compacted
   * revision), so that exact lists and watches from any retained revision work from the start —
   * across a restart too.
   */
  static async start(storage: Storage, prefix: string, options: CacherOptions): Promise<Cacher> {
    const page = await storage.list(prefix);
    const compacted = storage.compactedRevision(prefix);
    const cacher = new Cacher(storage, prefix, compacted, options);
    const early: StorageEvent[] = [];
    let started = false;
    cacher.upstream = storage.watch(prefix, compacted, (e) => {
      if (started) cacher.onEvent(e);
      else early.push(e);
    });
    // The history replay is delivered in a microtask: once a macrotask has passed, it is all here.
    await new Promise((resolve) => setImmediate(resolve));
    const backfill = early.filter((e) => e.modRevision <= page.revision);
    cacher.load(page.items.map((i) => ({ key: i.key, rev: i.modRevision, value: i.value })), backfill);
    started = true;
    for (const e of early) if (e.modRevision > page.revision) cacher.onEvent(e);
    return cacher;
  }

  /** Builds every key's versions from the current state and the changes that led to it. */
  private load(current: Array<{ key: string; rev: number; value: Buffer }>, history: StorageEvent[]): void {
    const byKey = new Map<string, StorageEvent[]>();
    for (const e of history) {
      const list = byKey.get(e.key) ?? [];
      list.push(e);
      byKey.set(e.key, list);
    }
    const keys = new Set(current.map((c) => c.key));
    for (const k of byKey.keys()) keys.add(k);
    this.sorted = [...keys].sort(compareKeys);
    const now = this.now();
    for (const c of current) if (!byKey.has(c.key)) this.versions.set(c.key, { rev: c.rev, value: c.value });
    for (const [key, events] of byKey) {
      const first = events[0]!;
      // The state at the compacted revision: what the first retained change replaced.
      const versions: Version[] = [{ rev: this.oldest, value: first.type === 'create' ? null : first.prevValue ?? null }];
      for (const e of events) versions.push({ rev: e.modRevision, value: e.type === 'delete' ? null : e.value });
      this.versions.set(key, versions);
      if (versions[versions.length - 1]!.value === null) this.dead.add(key);
    }
    this.history = history.map((e) => new CacheEvent(e.type, e.key, e.value, e.prevValue, e.modRevision, now));
    for (const c of current) if (c.rev > this.lastChange) this.lastChange = c.rev;
    for (const e of history) if (e.modRevision > this.lastChange) this.lastChange = e.modRevision;
    for (const key of byKey.keys()) this.prune(key);
  }

  stop(): void {
    this.upstream?.stop();
    this.listeners.clear();
    const enders = [...this.enders.values()];
    this.enders.clear();
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
      const value = this.latest(key)?.value;
      if (!value) continue;
      keys.push(key);
      values.push(value);
    }
    return { keys, values, revision: this.appliedRevision() };
  }

  get(key: string): Buffer | undefined {
    return this.latest(key)?.value ?? undefined;
  }

  private latest(key: string): Version | undefined {
    const v = this.versions.get(key);
    return Array.isArray(v) ? v[v.length - 1] : v;
  }

  private addVersion(key: string, version: Version): void {
    const v = this.versions.get(key);
    if (v === undefined) this.versions.set(key, version);
    else if (Array.isArray(v)) v.push(version);
    else this.versions.set(key, [v, version]);
    if (version.value === null) this.dead.add(key);
    else this.dead.delete(key);
  }

  list(options: CacheListOptions): CacheListResult {
    const revision = options.revision ?? this.revision();
    if (options.revision !== undefined) this.assertRetained(options.revision);
    const items: Buffer[] = [];
    const all = this.keys;
    let i = options.afterKey !== undefined ? this.upperBound(options.afterKey) : this.lowerBound(options.startKey ?? options.prefix);
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

  /**
   * Delivers every change after `fromRevision` (retained history first, then live ones) in order.
   * Throws StorageError Compacted when the history after fromRevision is gone. `ended` is called if
   * the cache stops while the watch is open (its resource is no longer served).
   */
  watch(fromRevision: number, listener: CacheListener, ended?: () => void): Watcher {
    this.assertRetained(fromRevision);
    let start = this.history.length;
    while (start > 0 && this.history[start - 1]!.rev > fromRevision) start--;
    const replay = this.history.slice(start);
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

  watcherCount(): number {
    return this.listeners.size;
  }

  private assertRetained(revision: number): void {
    this.evict();
    if (revision < this.oldest) throw new StorageError('Compacted', `too old resource version: ${revision} (${this.oldest})`, this.oldest);
  }

  private onEvent(e: StorageEvent): void {
    const event = new CacheEvent(e.type, e.key, e.value, e.prevValue, e.modRevision, this.now());
    this.lastChange = e.modRevision;
    if (!this.versions.has(e.key)) this.added.push(e.key); // put in order when the keys are next read
    this.addVersion(e.key, { rev: e.modRevision, value: e.type === 'delete' ? null : e.value });
    this.history.push(event);
    this.evict();
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
    const horizon = this.now() - this.windowMs;
    let drop = 0;
    while (drop < this.history.length && (this.history[drop]!.at < horizon || this.history.length - drop > this.maxEvents)) drop++;
    if (drop === 0) return;
    const dropped = this.history.slice(0, drop);
    this.history = this.history.slice(drop);
    this.oldest = Math.max(this.oldest, dropped[dropped.length - 1]!.rev);
    for (const e of dropped) this.prune(e.key);
  }

  /** Keeps a key's versions newer than `oldest` plus the one in force at `oldest`. */
  private prune(key: string): void {
    const v = this.versions.get(key);
    if (!v) return;
    let list = Array.isArray(v) ? v : [v];
    let keepFrom = 0;
    for (let i = 0; i < list.length; i++) if (list[i]!.rev <= this.oldest) keepFrom = i;
    if (keepFrom > 0) list = list.slice(keepFrom);
    if (list.length === 1 && list[0]!.value === null) {
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
    if (!v) return null;
    if (!Array.isArray(v)) return v.rev <= revision ? v.value : null;
    for (let i = v.length - 1; i >= 0; i--) if (v[i]!.rev <= revision) return v[i]!.value;
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
    const all = this.keys;
    let lo = 0;
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
    const all = this.keys;
    let lo = 0;
    let hi = all.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareKeys(all[mid]!, key) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
