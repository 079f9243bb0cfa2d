// One allocator's RangeAllocation object in a store other servers write too (the reference's
// /registry/ranges/serviceips, …/secondaryserviceips, …/servicenodeports): core/v1
// RangeAllocation {range, data}, data the bitmap of taken offsets (range-bitmap.ts).
//
// The pool (what this server allocates from) is the object as last read or written, plus what this
// server took or released since. A flush writes the pool by compare-and-swap on the revision it was
// read at; when another server wrote first, the newer object is read and this server's own changes
// are put on top of it (a rebase): releases always, takes only where the slot is still free there —
// the others are lost, and the allocation that made them must choose again. So a slot is never
// stored as taken by two servers' allocations at once.
import { decodeJson, isObject, type JsonObject } from '../../json.js';
import { StorageError, type Storage, type Stored } from '../../storage/types.js';
import { decodeRangeBitmap, encodeRangeBitmap } from './range-bitmap.js';
import type { SlotPool } from './slot-pool.js';

/** Conflicts in a row before a flush gives up (each means another server wrote in between). */
const MAX_FLUSH_CONFLICTS = 16;

interface RangeSnapshot {
  range: string;
  slots: Set<number>;
  metadata: JsonObject;
}

function snapshotOf(value: Buffer): RangeSnapshot {
  const obj = decodeJson(value);
  const metadata = isObject(obj) && isObject(obj['metadata']) ? { ...obj['metadata'] } : {};
  delete metadata['resourceVersion'];
  const range = isObject(obj) && typeof obj['range'] === 'string' ? obj['range'] : '';
  const data = isObject(obj) && typeof obj['data'] === 'string' ? Buffer.from(obj['data'], 'base64') : Buffer.alloc(0);
  return { range, slots: decodeRangeBitmap(data), metadata };
}

export class StoredRange {
  /** The slots the object held at `revision`, as far as this range can read them. */
  private stored = new Set<number>();
  /** The object's modRevision as last read or written; 0: to be read before the next write. */
  private revision = 0;
  private exists = false;
  /** The stored object's metadata, kept as it is (the reference writes an empty one). */
  private metadata: JsonObject = {};
  /** A newer object another server wrote, seen by the watch: read and taken in by refresh(). */
  private newer: { revision: number; value: Buffer } | undefined;

  /**
   * @param key the object's key (/registry/ranges/…)
   * @param rangeSpec its `range` ("10.96.0.0/12", "30000-32767")
   * @param fullMessage the 500's message when this range keeps losing its picks to other servers
   */
  constructor(readonly key: string, readonly rangeSpec: string, readonly pool: SlotPool, readonly fullMessage: string) {}

  /**
   * At start: the object is created from the pool (what the stored Services hold) when missing;
   * one that exists keeps what it holds (another server's or kube-apiserver's allocations that
   * may not be in a Service yet), with what the Services hold added.
   */
  async open(storage: Storage): Promise<void> {
    // The rebase keeps every slot the object holds taken, lost or not: nothing to give back here.
    await this.read(storage);
    await this.flush(storage);
  }

  /** What the watch saw written (by any server; this one's own writes are older than `revision` by then). */
  observe(value: Buffer, revision: number): void {
    // Kept unread: this server's own writes (most events) are older than `revision` by refresh().
    if (revision <= this.revision || (this.newer && revision <= this.newer.revision)) return;
    this.newer = { revision, value };
  }

  /** Takes in the newest object the watch saw, keeping this server's own changes on top. */
  refresh(): void {
    const newer = this.newer;
    this.newer = undefined;
    if (!newer || newer.revision <= this.revision) return;
    let snapshot: RangeSnapshot;
    try {
      snapshot = snapshotOf(newer.value);
    } catch {
      return; // unreadable: the next write's conflict reads it again
    }
    // Slots this server took outside an allocation (a reset's restore) stay taken either way.
    this.rebase(snapshot, newer.revision);
  }

  /** Whether the pool differs from the stored object. */
  get dirty(): boolean {
    if (!this.exists || this.revision === 0) return true;
    if (this.pool.used !== this.stored.size) return true;
    for (const slot of this.pool.takenSlots()) if (!this.stored.has(slot)) return true;
    return false;
  }

  /**
   * Writes the pool. Resolves with the slots this server took that another server's write holds
   * (no longer taken by this server's allocation: its caller must choose again); throws on a
   * storage failure, after which the object is read again before the next write.
   */
  async flush(storage: Storage): Promise<number[]> {
    for (let conflicts = 0; ; ) {
      if (this.revision === 0) {
        const lost = await this.read(storage);
        if (lost.length > 0) return lost;
      }
      if (!this.dirty) return [];
      const slots = [...this.pool.takenSlots()];
      const encode = (): Buffer => Buffer.from(JSON.stringify({
        kind: 'RangeAllocation',
        apiVersion: 'v1',
        metadata: this.metadata,
        range: this.rangeSpec,
        data: encodeRangeBitmap(slots).toString('base64'),
      }));
      try {
        const written = this.exists ? await storage.update(this.key, this.revision, encode) : await storage.create(this.key, encode);
        this.stored = new Set(slots);
        this.revision = written.modRevision;
        this.exists = true;
        return [];
      } catch (err) {
        this.revision = 0;
        const raced = err instanceof StorageError && (err.code === 'Conflict' || err.code === 'NotFound' || err.code === 'KeyExists');
        if (!raced) throw err;
        if (++conflicts >= MAX_FLUSH_CONFLICTS) throw new Error(`${this.key}: ${conflicts} conflicting writes in a row`);
      }
    }
  }

  /** Reads the object and rebases the pool on it; the slots lost to it. */
  private async read(storage: Storage): Promise<number[]> {
    const current: Stored | undefined = await storage.get(this.key);
    if (!current) {
      this.exists = false;
      this.revision = 0;
      // Nothing stored: what the pool holds is all there is (as if the object held it).
      this.stored = new Set(this.pool.takenSlots());
      return [];
    }
    this.exists = true;
    return this.rebase(snapshotOf(current.value), current.modRevision);
  }

  /** The object at `revision` with this server's changes since `stored` on top; the takes it loses. */
  private rebase(fresh: RangeSnapshot, revision: number): number[] {
    // A snapshot of another range (flags differ between servers) says nothing about this one.
    const theirs = fresh.range === this.rangeSpec ? fresh.slots : new Set<number>();
    const next = new Set(theirs);
    const lost: number[] = [];
    for (const slot of this.stored) if (!this.pool.has(slot)) next.delete(slot);
    for (const slot of this.pool.takenSlots()) {
      if (this.stored.has(slot)) continue;
      if (theirs.has(slot)) lost.push(slot);
      else next.add(slot);
    }
    this.pool.replace(next);
    this.stored = theirs;
    this.revision = revision;
    this.metadata = fresh.metadata;
    return lost;
  }
}
