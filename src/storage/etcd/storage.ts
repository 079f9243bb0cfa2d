// Storage in etcd v3: the store's revision is etcd's revision, creates and compare-and-swap updates
// and deletes are etcd transactions, compaction is etcd's.
//
// One etcd watch over the whole key prefix (the feed, with prev_kv) is the source of every event:
// it feeds the local watchers (WatchHub) and the in-memory history, and it defines
// currentRevision(): the revision of the newest event published. A write resolves only once the
// feed has published the write's revision, which keeps the ordering promise of types.ts (a write's
// events are queued to watchers before its promise settles) and makes writes of other servers on
// the same etcd arrive the same way as ours.
//
// Revisions in values. A Storage encoder is given the write's revision, but etcd assigns it as the
// transaction commits. Predicting it (current + 1, guarded by a compare on a key every write
// touches) would serialise all writers into a retry storm and add a key the reference does not
// have; writing twice would make two revisions. So, as the reference does, the bytes in etcd do not
// carry their revision: values are encoded with UNSTAMPED (0) and the codec (or `stamp`) puts the
// revision in whenever they are read (gets, lists, events, results) — the revision is etcd's
// mod_revision, for a delete event the delete's revision. The codec also makes the bytes etcd
// holds (the server's: the reference's encoding and encryption) and the key mapping their names
// (layout.ts). A value that cannot be read fails a get or list as the reference's storage does
// (500, naming the key in a list) and is left out of the watch. A delete's tombstone builder runs when the feed sees the
// delete (it needs the delete's revision); a delete written by another server carries the last
// value, as a delete without a tombstone builder does.
//
// History. Everything the feed has seen since this store was opened is kept in memory until
// compact() (the server's compactor calls it every history window, which also compacts etcd).
// History from before the open is reported as compacted (compactedRevision() starts at the open
// revision), like the reference's watch cache that starts at its list: a watch from older
// revisions is answered 410 and the client relists. Keeping it local is what lets watch() throw
// Compacted synchronously and replay in revision order, as the contract asks; a watch on etcd from
// an old revision could only find out it is compacted later, with no way to say so to the listener.
//
// Lists read at currentRevision() (an etcd range at that revision), so a list and a watch from its
// revision fit together exactly; gets read etcd's newest state, as they serve writes.
//
// Several servers on one etcd. The feed watches every key of etcd, not only those under the
// prefix: events outside it are not published, but they move currentRevision() on, so that it
// reaches any revision etcd names (latestRevision(), one cheap linearizable read) as soon as the
// feed has delivered everything before it. That is what lets a consistent read wait for this
// server's caches to hold every write any server made before it, without trusting etcd 3.4's
// progress notifications.

import { goQuote, internalError, StatusError } from '../../errors.js';
import { compareKeys } from '../keys.js';
import { checkPrecondition, closedError, compactedError, type Tombstone, type WriteOp } from '../ops.js';
import { StorageError, type Encode, type ListOptions, type ListResult, type Storage, type Stored, type StorageEvent, type WatchListener, type Watcher } from '../types.js';
import { WatchHub } from '../watch-hub.js';
import {
  EtcdClient,
  compareCreate,
  compareMod,
  isCompactedError,
  isUnreachable,
  prefixRangeEnd,
  type Compare,
  type EtcdClientOptions,
  type KeyValue,
  type TxnOp,
  type TxnResult,
} from './client.js';
import type { EtcdKeyMapping, EtcdValueCodec } from './layout.js';
import { EtcdCompactor } from './compactor.js';
import { TtlLeases } from './ttl-leases.js';
import { EtcdWatch, type WatchEvent } from './watch.js';

/**
 * etcd out of reach (no member answered within the client's deadline) is, to the request that
 * needed it, the reference's answer when its etcd call outlives the request: 504 Timeout.
 */
function asTimeout(err: unknown): never {
  if (isUnreachable(err)) throw new StatusError(504, 'Timeout', 'Timeout: request did not complete within requested timeout - context deadline exceeded', {});
  throw err;
}

/** How long the health check waits for etcd (the reference's --etcd-healthcheck-timeout). */
const HEALTH_TIMEOUT_MS = 2_000;

/** The revision given to encoders: etcd holds values without theirs (see above). */
export const UNSTAMPED = 0;

/** The bytes of a stored value with its revision put in. */
export type Stamp = (value: Buffer, revision: number) => Buffer;

export interface EtcdStorageOptions extends EtcdClientOptions {
  /** Where the keys live in etcd (default /registry). */
  prefix?: string;
  /**
   * The beginning every key given to the store shares, which `prefix` stands in for in etcd
   * (default none: prefix + key). capstan's keys begin with /registry, the reference's layout, so
   * the server gives `/registry` here: `--etcd-prefix=/foo` then stores /foo/configmaps/… as the
   * reference does.
   */
  root?: string;
  /** Puts the revision into the bytes etcd holds (when no codec is given). */
  stamp?: Stamp;
  /** Names of keys in etcd (default: the store's own, below the root). */
  keys?: EtcdKeyMapping;
  /** Values as etcd holds them (default: the store's own bytes, with `stamp`). */
  codec?: EtcdValueCodec;
  /**
   * Compaction of etcd as the reference's (--etcd-compaction-interval; 0: none): etcd is compacted
   * on this interval, shared with every server on it, and compact() trims only this store's
   * history. Absent: compact() compacts etcd too.
   */
  compactionIntervalMs?: number;
  /** Seconds a key lives after each write (a lease, as the reference's Events), or undefined: for ever. */
  ttlSecondsOf?: (key: string) => number | undefined;
  /** As onHistoryLost(listener), from the start. */
  onHistoryLost?: (revision: number) => void;
}

interface Waiter {
  revision: number;
  resolve: () => void;
  timer: NodeJS.Timeout;
}

export class EtcdStorage implements Storage {
  private readonly hub = new WatchHub();
  /** Events after `compacted`, in revision order. */
  private history: StorageEvent[] = [];
  private revision: number;
  private compacted: number;
  private closed = false;
  private feed: EtcdWatch;
  private waiters: Waiter[] = [];
  /** Tombstone builders of this store's deletes in flight, by key. */
  private readonly tombstones = new Map<string, Tombstone[]>();
  private readonly prefix: string;
  private readonly prefixBytes: Buffer;
  private readonly root: string;
  private readonly codec: EtcdValueCodec;
  private readonly keys: EtcdKeyMapping | undefined;
  private readonly leases: TtlLeases;
  private readonly compactor: EtcdCompactor | undefined;
  private readonly historyLostListeners: Array<(revision: number) => void> = [];

  /** Connects and starts the feed at etcd's current revision. */
  static async open(options: EtcdStorageOptions): Promise<EtcdStorage> {
    const client = new EtcdClient(options);
    try {
      const prefix = options.prefix ?? '/registry';
      const { key, rangeEnd } = rangeOf(prefix);
      const now = await client.range({ key, rangeEnd, countOnly: true });
      return new EtcdStorage(client, options, prefix, now.revision);
    } catch (err) {
      client.close();
      throw err;
    }
  }

  private constructor(
    private readonly client: EtcdClient,
    private readonly options: EtcdStorageOptions,
    prefix: string,
    openRevision: number,
  ) {
    this.prefix = prefix;
    this.prefixBytes = Buffer.from(prefix);
    this.root = options.root ?? '';
    this.keys = options.keys;
    this.leases = new TtlLeases(client);
    const interval = options.compactionIntervalMs;
    if (interval !== undefined && interval > 0) this.compactor = new EtcdCompactor(client, interval);
    const stamp = options.stamp;
    this.codec = options.codec ?? {
      toEtcd: (value) => value,
      fromEtcd: (bytes, revision) => (stamp ? stamp(bytes, revision) : bytes),
    };
    this.revision = openRevision;
    this.compacted = openRevision;
    this.feed = this.startFeed(openRevision + 1);
    if (options.onHistoryLost) this.historyLostListeners.push(options.onHistoryLost);
  }

  /**
   * Calls `listener` when the feed fell behind etcd's compaction (etcd out of reach for longer than
   * its history window): the events it had not read are gone, so the store has moved on to etcd's
   * revision then (`revision`, also its compacted revision now) without them. What was built from
   * the events (watch caches) must be read again at `revision` or later.
   */
  onHistoryLost(listener: (revision: number) => void): void {
    this.historyLostListeners.push(listener);
  }

  /** The etcd client (for health checks and leases). */
  get etcd(): EtcdClient {
    return this.client;
  }

  async get(key: string): Promise<Stored | undefined> {
    this.assertOpen();
    const r = await this.client.range({ key: this.etcdKey(key) }).catch(asTimeout);
    const kv = r.kvs[0];
    return kv ? this.storedOf(kv, (err) => storageReadError(err.message)) : undefined;
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    this.assertOpen();
    const range = rangeOf(this.toEtcd(prefix));
    // Paging from a key before the prefix is the same as not paging.
    if (options.afterKey !== undefined && compareKeys(options.afterKey, prefix) >= 0) {
      range.key = Buffer.concat([this.etcdKey(options.afterKey), Buffer.from([0])]);
    }
    const limit = options.limit !== undefined && options.limit > 0 ? Math.ceil(options.limit) : 0;
    if (options.latest) {
      const newest = await this.client.range({ ...range, limit }).catch(asTimeout);
      return { items: newest.kvs.map((kv) => this.storedOf(kv)), revision: newest.revision, more: newest.more };
    }
    let at = this.revision;
    let r;
    try {
      r = await this.client.range({ ...range, limit, revision: at });
    } catch (err) {
      // etcd was compacted past a quiet feed (writes elsewhere): nothing under the prefix changed
      // since the feed's revision, so the newest state is the state at it.
      if (!isCompactedError(err)) asTimeout(err);
      at = this.revision;
      r = await this.client.range({ ...range, limit }).catch(asTimeout);
    }
    // Filtered here, not by etcd: its max_mod_revision applies after the limit.
    const max = options.maxModRevision;
    const kvs = max === undefined ? r.kvs : r.kvs.filter((kv) => kv.modRevision <= max);
    // As the reference's list: a value that cannot be read fails the list, naming its key.
    const items = kvs.map((kv) => this.storedOf(kv, (err) => storageReadError(`unable to transform key ${goQuote(kv.key.toString())}: ${err.message}`)));
    return { items, revision: at, more: r.more };
  }

  async count(prefix: string): Promise<number> {
    this.assertOpen();
    const r = await this.client.range({ ...rangeOf(this.toEtcd(prefix)), countOnly: true }).catch(asTimeout);
    return r.count;
  }

  create(key: string, encode: Encode): Promise<Stored> {
    return this.write({ kind: 'create', key, encode });
  }

  update(key: string, expectModRevision: number, encode: Encode): Promise<Stored> {
    return this.write({ kind: 'update', key, expectModRevision, encode });
  }

  delete(key: string, expectModRevision?: number, tombstone?: Tombstone): Promise<Stored> {
    return this.write({ kind: 'delete', key, expectModRevision, tombstone });
  }

  watch(prefix: string, fromRevision: number, listener: WatchListener): Watcher {
    this.assertOpen();
    if (fromRevision < this.compacted) throw compactedError(fromRevision, this.compacted);
    return this.hub.add(prefix, fromRevision, this.history.slice(this.firstAfter(fromRevision)), listener);
  }

  async compact(revision: number): Promise<void> {
    this.assertOpen();
    const target = Math.min(revision, this.revision);
    if (target <= this.compacted) return;
    // With its own interval (the reference's), etcd is compacted by the compactor, not here.
    if (this.options.compactionIntervalMs === undefined) {
      try {
        await this.client.compact(target);
      } catch (err) {
        if (!isCompactedError(err)) throw err; // already compacted further (by another server): fine
      }
    }
    this.forget(target);
  }

  currentRevision(): number {
    return this.revision;
  }

  /** As the reference's etcd health check: a read of `<prefix>/health` that must answer within 2 s. */
  async unreachable(): Promise<string | undefined> {
    if (this.closed) return 'the store is closed';
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve('error getting data from etcd: context deadline exceeded'), HEALTH_TIMEOUT_MS);
    });
    const read = this.client.range({ key: Buffer.from(`${this.prefix}/health`), countOnly: true }).then(
      () => undefined,
      (err: unknown) => `error getting data from etcd: ${err instanceof Error ? err.message : String(err)}`,
    );
    try {
      return await Promise.race([read, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async latestRevision(): Promise<number> {
    this.assertOpen();
    // A read of one key (the prefix itself, which holds nothing): its header is etcd's revision now.
    return (await this.client.range({ key: Buffer.from(this.prefix), limit: 1, countOnly: true }).catch(asTimeout)).revision;
  }

  compactedRevision(): number {
    return this.compacted;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.compactor?.stop();
    this.feed.cancel();
    for (const w of this.waiters) {
      clearTimeout(w.timer);
      w.resolve();
    }
    this.waiters = [];
    this.client.close();
  }

  private assertOpen(): void {
    if (this.closed) throw closedError();
  }

  private etcdKey(key: string): Buffer {
    return Buffer.from(this.toEtcd(key));
  }

  /** A key (or key prefix) of the store as etcd holds it: its root replaced by the prefix, named as the mapping names it. */
  private toEtcd(key: string): string {
    const below = this.root && key.startsWith(this.root) ? key.slice(this.root.length) : key;
    return this.prefix + (this.keys ? this.keys.toEtcd(below) : below);
  }

  /** Whether an etcd key is under the prefix. */
  private owns(key: Buffer): boolean {
    return key.length >= this.prefixBytes.length && key.subarray(0, this.prefixBytes.length).equals(this.prefixBytes);
  }

  /** A key etcd holds as the store names it. */
  private fromEtcd(key: Buffer): string {
    const below = key.toString().slice(this.prefix.length);
    return this.root + (this.keys ? this.keys.fromEtcd(below) : below);
  }

  /** `unreadable` makes the error of a value that cannot be read; without it, it is served as etcd holds it. */
  private storedOf(kv: KeyValue, unreadable?: (err: Error) => Error): Stored {
    return {
      key: this.fromEtcd(kv.key),
      value: this.stamped(kv.value, kv.modRevision, kv.key, unreadable),
      createRevision: kv.createRevision,
      modRevision: kv.modRevision,
    };
  }

  private stamped(value: Buffer, revision: number, etcdKey: Buffer, unreadable?: (err: Error) => Error): Buffer {
    try {
      return this.codec.fromEtcd(value, revision, etcdKey.toString());
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      if (unreadable) throw unreadable(error);
      // Bytes this store cannot read (written by someone else, or with another key): served as etcd holds them.
      process.emitWarning(`etcd storage: cannot read the value of ${etcdKey.toString()} at revision ${revision}: ${error.message}`, 'StorageWarning');
      return value;
    }
  }

  /** The value as the store serves it, or undefined (with a warning) when it cannot be read. */
  private readable(value: Buffer, revision: number, etcdKey: Buffer): Buffer | undefined {
    try {
      return this.codec.fromEtcd(value, revision, etcdKey.toString());
    } catch (err) {
      process.emitWarning(`etcd storage: the watch skips ${etcdKey.toString()} at revision ${revision}, which this server cannot read: ${err instanceof Error ? err.message : String(err)}`, 'StorageWarning');
      return undefined;
    }
  }

  private async write(op: WriteOp): Promise<Stored> {
    this.assertOpen();
    const key = this.etcdKey(op.key);
    const compare: Compare[] = [];
    let success: TxnOp;
    const ttl = op.kind !== 'delete' ? this.options.ttlSecondsOf?.(op.key) : undefined;
    const lease = ttl !== undefined && ttl > 0 ? { lease: await this.leases.leaseFor(ttl) } : {};
    if (op.kind === 'create') {
      compare.push(compareCreate(key, 'EQUAL', 0));
      success = { put: { key, value: this.codec.toEtcd(op.encode(UNSTAMPED), key.toString()), ...lease } };
    } else if (op.kind === 'update') {
      compare.push(compareCreate(key, 'GREATER', 0), compareMod(key, 'EQUAL', op.expectModRevision));
      success = { put: { key, value: this.codec.toEtcd(op.encode(UNSTAMPED), key.toString()), prevKv: true, ...lease } };
    } else {
      compare.push(compareCreate(key, 'GREATER', 0));
      if (op.expectModRevision !== undefined) compare.push(compareMod(key, 'EQUAL', op.expectModRevision));
      success = { deleteRange: { key, prevKv: true } };
    }
    const tombstone = op.kind === 'delete' ? op.tombstone : undefined;
    if (tombstone) this.tombstones.set(op.key, [...(this.tombstones.get(op.key) ?? []), tombstone]);
    try {
      const res = await this.client.txn({ compare, success: [success], failure: [{ range: { key } }] }).catch(asTimeout);
      if (!res.succeeded) throw this.failureOf(op, res);
      await this.feedPassed(res.revision);
      return this.resultOf(op, res);
    } finally {
      if (tombstone) this.dropTombstone(op.key, tombstone);
    }
  }

  /** The error of a transaction whose compare failed, from the key's state it read instead. */
  private failureOf(op: WriteOp, res: TxnResult): StorageError {
    const read = res.results[0];
    const kv = read && 'range' in read ? read.range.kvs[0] : undefined;
    const current = kv ? { key: op.key, value: kv.value, createRevision: kv.createRevision, modRevision: kv.modRevision } : undefined;
    return checkPrecondition(op, current) ?? new StorageError('Conflict', `key ${op.key} changed during the write`, kv?.modRevision);
  }

  /** A successful write's result: its event as the feed published it. */
  private resultOf(op: WriteOp, res: TxnResult): Stored {
    const event = this.eventAt(res.revision);
    if (event && event.key === op.key) {
      return { key: op.key, value: event.value, createRevision: event.createRevision, modRevision: event.modRevision };
    }
    // The feed did not publish it in time (or it is compacted already): built from the answer.
    const done = res.results[0];
    const revision = res.revision;
    if (op.kind === 'delete') {
      const prev = done && 'deleteRange' in done ? done.deleteRange.prevKvs[0] : undefined;
      const last = prev ? this.stamped(prev.value, prev.modRevision, prev.key) : Buffer.alloc(0);
      const value = op.tombstone ? op.tombstone(revision, last) : last;
      return { key: op.key, value, createRevision: prev?.createRevision ?? 0, modRevision: revision };
    }
    const prev = done && 'put' in done ? done.put.prevKv : undefined;
    return { key: op.key, value: op.encode(revision), createRevision: prev?.createRevision ?? revision, modRevision: revision };
  }

  private dropTombstone(key: string, tombstone: Tombstone): void {
    const list = this.tombstones.get(key)?.filter((t) => t !== tombstone) ?? [];
    if (list.length > 0) this.tombstones.set(key, list);
    else this.tombstones.delete(key);
  }

  /** Resolves once the feed has published `revision` (or after the request timeout, with a warning). */
  private feedPassed(revision: number): Promise<void> {
    if (this.revision >= revision || this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter: Waiter = {
        revision,
        resolve,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          process.emitWarning(`etcd storage: the watch did not deliver revision ${revision} in time; the write resolves without it`, 'StorageWarning');
          resolve();
        }, this.client.requestTimeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  private startFeed(startRevision: number): EtcdWatch {
    const { key, rangeEnd } = rangeOf('');
    return new EtcdWatch(this.client, { key, rangeEnd, startRevision, prevKv: true }, {
      events: (events) => this.onFeed(events),
      compacted: (compactRevision) => this.onFeedCompacted(compactRevision),
    });
  }

  private onFeed(events: readonly WatchEvent[]): void {
    const out: StorageEvent[] = [];
    const before = this.revision;
    for (const e of events) {
      const revision = e.kv.modRevision;
      if (revision <= this.revision) continue; // already published (a resumed watch overlaps)
      // Keys outside the prefix are not this store's: they only move the revision on.
      const event = this.owns(e.kv.key) ? this.eventOf(e) : undefined;
      if (event) out.push(event);
      this.revision = revision;
    }
    if (this.revision === before) return;
    if (out.length > 0) {
      this.history.push(...out);
      // Watchers first: their deliveries are queued before the writers' continuations.
      this.hub.publish(out);
    }
    this.releaseWaiters();
  }

  /** Resolves the writes waiting for a revision the feed has reached. */
  private releaseWaiters(): void {
    if (this.waiters.length === 0) return;
    const ready = this.waiters.filter((w) => w.revision <= this.revision);
    if (ready.length === 0) return;
    this.waiters = this.waiters.filter((w) => w.revision > this.revision);
    for (const w of ready) {
      clearTimeout(w.timer);
      w.resolve();
    }
  }

  /**
   * The store's event of an etcd event; none for a value this store cannot read (encrypted with a
   * key it does not have, say): watchers and caches get objects or nothing, never etcd's bytes.
   */
  private eventOf(e: WatchEvent): StorageEvent | undefined {
    const key = this.fromEtcd(e.kv.key);
    const revision = e.kv.modRevision;
    const prev = e.prevKv;
    const prevValue = prev ? this.readable(prev.value, prev.modRevision, prev.key) : undefined;
    if (e.type === 'put') {
      const value = this.readable(e.kv.value, revision, e.kv.key);
      if (!value) return undefined;
      if (e.kv.version === 1) return { type: 'create', key, value, createRevision: revision, modRevision: revision };
      const event: StorageEvent = { type: 'update', key, value, createRevision: e.kv.createRevision, modRevision: revision };
      if (prevValue) event.prevValue = prevValue;
      return event;
    }
    const last = prevValue ?? Buffer.alloc(0);
    let value = last;
    const tombstone = this.tombstones.get(key)?.[0];
    if (tombstone) {
      try {
        value = tombstone(revision, last);
      } catch (err) {
        process.emitWarning(`etcd storage: a delete's tombstone builder threw: ${String(err)}`, 'StorageWarning');
      }
    }
    const event: StorageEvent = { type: 'delete', key, value, createRevision: prev?.createRevision ?? 0, modRevision: revision };
    if (prevValue) event.prevValue = prevValue;
    return event;
  }

  private onFeedCompacted(compactRevision: number): void {
    if (this.closed) return;
    process.emitWarning(
      `etcd storage: etcd compacted revision ${compactRevision} before the watch read revisions ${this.revision + 1}..${compactRevision - 1}; their events are lost`,
      'StorageWarning',
    );
    void this.skipLostHistory();
  }

  /**
   * After events were lost: the store moves on to etcd's revision now, L, with nothing retained
   * before it (a watch from earlier is answered Compacted, a list reads etcd at L), the feed goes
   * on from L + 1, and the listeners re-read what they built at L or later. The feed cannot
   * simply resume at etcd's compacted revision: the state just before it cannot be read any more,
   * so no list would fit the events from it.
   */
  private async skipLostHistory(): Promise<void> {
    let now: number | undefined;
    for (let pause = 50; now === undefined; pause = Math.min(pause * 2, 2_000)) {
      if (this.closed) return;
      try {
        now = (await this.client.range({ key: this.prefixBytes, limit: 1, countOnly: true })).revision;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
    if (this.closed) return;
    this.revision = Math.max(this.revision, now);
    this.forget(this.revision);
    this.feed = this.startFeed(this.revision + 1);
    this.releaseWaiters();
    for (const listener of this.historyLostListeners) {
      try {
        listener(this.revision);
      } catch (err) {
        process.emitWarning(`etcd storage: a history-lost listener threw: ${String(err)}`, 'StorageWarning');
      }
    }
  }

  private forget(revision: number): void {
    if (revision <= this.compacted) return;
    this.history = this.history.slice(this.firstAfter(revision));
    this.compacted = revision;
  }

  private eventAt(revision: number): StorageEvent | undefined {
    const i = this.firstAfter(revision - 1);
    const e = this.history[i];
    return e?.modRevision === revision ? e : undefined;
  }

  /** Index of the first history event with a revision above `revision`. */
  private firstAfter(revision: number): number {
    let lo = 0;
    let hi = this.history.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.history[mid] as StorageEvent).modRevision <= revision) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/**
 * A value in etcd that cannot be read (not decodable, or encrypted with a key this server does not
 * have): the reference's storage answers it as an internal error.
 */
function storageReadError(message: string): StatusError {
  return internalError(message);
}

/** The etcd range of every key starting with `prefix` (etcd takes no empty key: "\0" then). */
function rangeOf(prefix: string): { key: Buffer; rangeEnd: Buffer } {
  const key = Buffer.from(prefix);
  if (key.length === 0) return { key: Buffer.from([0]), rangeEnd: Buffer.from([0]) };
  return { key, rangeEnd: prefixRangeEnd(key) };
}
