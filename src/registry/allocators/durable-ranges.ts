// The RangeAllocation objects of one server's Service allocators on a store other servers write
// too, as the reference's etcd-backed allocators keep them: every allocation is written to its
// range's object (compare-and-swap) before the Service is, and every release after the Service is
// gone, one write at a time per server (as the reference's lock). Other servers' writes reach this
// server through a watch on ranges/ and through the conflicts of its own writes.
import type { Storage, Watcher } from '../../storage/types.js';
import type { StoredRange } from './stored-range.js';

export const RANGES_PREFIX = '/registry/ranges/';

/** Slots each range lost to other servers' writes (see StoredRange.flush). */
export type LostSlots = Map<StoredRange, number[]>;

/** A range could not be written; `lost`: what the others that were written lost meanwhile. */
export class RangesNotWritten extends Error {
  constructor(readonly reason: unknown, readonly lost: LostSlots) {
    super(reason instanceof Error ? reason.message : String(reason));
  }
}

export class DurableRanges {
  private tail: Promise<unknown> = Promise.resolve();
  private watcher: Watcher | undefined;
  private flushQueued = false;

  private constructor(private readonly storage: Storage, readonly ranges: readonly StoredRange[]) {}

  /** Opens (creating what is missing) every range's object, then follows what other servers write. */
  static async open(storage: Storage, ranges: readonly StoredRange[]): Promise<DurableRanges> {
    const durable = new DurableRanges(storage, ranges);
    const from = storage.currentRevision();
    for (const range of ranges) await range.open(storage);
    durable.watcher = storage.watch(RANGES_PREFIX, from, (e) => {
      if (e.type === 'delete') return;
      ranges.find((r) => r.key === e.key)?.observe(e.value, e.modRevision);
    });
    return durable;
  }

  stop(): void {
    this.watcher?.stop();
  }

  /** Runs `work` once every earlier one has finished: this server's writes to the ranges, one at a time. */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.tail.then(work, work);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Takes in what other servers wrote since (call inside exclusive, before allocating). */
  refresh(): void {
    for (const range of this.ranges) range.refresh();
  }

  /** Writes every range that changed; the slots lost to other servers, by range (empty when none). */
  async flush(): Promise<LostSlots> {
    // Each range is its own object: written side by side (one round trip for a NodePort Service).
    const results = await Promise.allSettled(this.ranges.map((range) => range.flush(this.storage)));
    const lost: LostSlots = new Map();
    results.forEach((r, i) => {
      if (r.status === 'fulfilled' && r.value.length > 0) lost.set(this.ranges[i]!, r.value);
    });
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw new RangesNotWritten(failed.reason, lost);
    return lost;
  }

  /** Marks again as taken what other servers hold (after the allocation that lost them gave back its picks). */
  static retake(lost: LostSlots): void {
    for (const [range, slots] of lost) for (const slot of slots) range.pool.take(slot);
  }

  /** Releases made outside an allocation (a Service deleted or updated): written soon, in turn. */
  flushSoon(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    this.exclusive(async () => {
      this.flushQueued = false;
      this.refresh();
      // Nothing was taken here, so nothing is lost; a failure is written by the next allocation's flush.
      await this.flush();
    }).catch((err: unknown) => console.error('writing the service allocators\' ranges:', err instanceof Error ? err.message : err));
  }

  /**
   * Releases the caller has made, written before it goes on. A failure is only logged (the
   * reference's delete logs it too): the release stays in the pool, and the next write takes it.
   */
  async flushNow(): Promise<void> {
    await this.exclusive(async () => {
      this.refresh();
      await this.flush();
    }).catch((err: unknown) => console.error('writing the service allocators\' ranges:', err instanceof Error ? err.message : err));
  }
}
