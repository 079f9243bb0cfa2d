// In-memory Storage (for `--storage memory` and tests), with the same semantics as SqliteStorage:
// one global revision, retained history until compact(), asynchronous ordered watch delivery.
// Writes apply at call time, so their revisions follow call order, as with SqliteStorage's queue.
// Values are kept by reference: callers must not mutate a Buffer after handing it over.

import { compareKeys, effectiveLimit, prefixEnd } from './keys.js';
import { applyWrite, checkPrecondition, closedError, compactedError, type Tombstone, type WriteOp } from './ops.js';
import type { Encode, ListOptions, ListResult, Storage, Stored, StorageEvent, WatchListener, Watcher } from './types.js';
import { WatchHub } from './watch-hub.js';

export class MemoryStorage implements Storage {
  readonly keepsValues: boolean = true;
  private readonly data = new Map<string, Stored>();
  /** Every key, sorted by compareKeys, for range reads. */
  private readonly keys: string[] = [];
  /** Events after the compacted revision, in revision order. */
  private history: StorageEvent[] = [];
  private readonly hub = new WatchHub();
  private revision = 0;
  private compacted = 0;
  private closed = false;

  async get(key: string): Promise<Stored | undefined> {
    this.assertOpen();
    const s = this.data.get(key);
    return s ? { ...s } : undefined;
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    this.assertOpen();
    const limit = effectiveLimit(options.limit);
    const end = this.rangeEnd(prefix);
    let i = this.lowerBound(prefix);
    if (options.afterKey !== undefined && compareKeys(options.afterKey, prefix) >= 0) {
      i = this.upperBound(options.afterKey);
    }
    const items: Stored[] = [];
    const maxMod = options.maxModRevision ?? Infinity;
    for (; i < end && (limit === undefined || items.length < limit); i++) {
      const stored = this.data.get(this.keys[i] as string) as Stored;
      if (stored.modRevision <= maxMod) items.push({ ...stored });
    }
    return { items, revision: this.revision, more: i < end };
  }

  async count(prefix: string): Promise<number> {
    this.assertOpen();
    return this.rangeEnd(prefix) - this.lowerBound(prefix);
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
    const start = this.firstAfter(fromRevision);
    return this.hub.add(prefix, fromRevision, this.history.slice(start), listener);
  }

  async compact(revision: number): Promise<void> {
    this.assertOpen();
    const target = Math.min(revision, this.revision);
    if (target <= this.compacted) return;
    this.history = this.history.slice(this.firstAfter(target));
    this.compacted = target;
  }

  currentRevision(): number {
    return this.revision;
  }

  compactedRevision(): number {
    return this.compacted;
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private async write(op: WriteOp): Promise<Stored> {
    this.assertOpen();
    const current = this.data.get(op.key);
    const failed = checkPrecondition(op, current);
    if (failed) throw failed;
    // applyWrite may throw (the encoder): nothing has changed yet, and the revision is not used.
    const { result, event, next } = applyWrite(op, current, this.revision + 1);
    this.revision++;
    if (next) {
      if (!current) this.keys.splice(this.lowerBound(op.key), 0, op.key);
      this.data.set(op.key, next);
    } else {
      this.keys.splice(this.lowerBound(op.key), 1);
      this.data.delete(op.key);
    }
    this.history.push(event);
    this.hub.publish([event]);
    return result;
  }

  private assertOpen(): void {
    if (this.closed) throw closedError();
  }

  /** Index of the first key >= `key`. */
  private lowerBound(key: string): number {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareKeys(this.keys[mid] as string, key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Index of the first key > `key`. */
  private upperBound(key: string): number {
    const i = this.lowerBound(key);
    return this.keys[i] === key ? i + 1 : i;
  }

  /** Index just past the last key under `prefix`. */
  private rangeEnd(prefix: string): number {
    const end = prefixEnd(prefix);
    return end === undefined ? this.keys.length : this.lowerBound(end);
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
