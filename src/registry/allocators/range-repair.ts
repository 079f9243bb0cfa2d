// The reference's repair loops for the kept ranges (its ipallocator and portallocator repair
// controllers), in short: every few minutes what the stored Services hold is compared with the
// ranges. An address or port a Service holds that its range does not is taken; one the range holds
// that no Service does is freed once it was seen so in three passes in a row, so that an allocation
// on its way to its Service (on this server or another) is never freed.
import type { DurableRanges } from './durable-ranges.js';
import type { SlotPool } from './slot-pool.js';

/** As the reference's: every three minutes. */
export const REPAIR_INTERVAL_MS = 3 * 60_000;
const PASSES_BEFORE_FREEING = 3;

export class RangeRepair {
  /** Per range: slots held by no Service, with the passes in a row that found them so. */
  private readonly suspects = new Map<SlotPool, Map<number, number>>();

  /**
   * @param heldByServices the slots the stored Services hold, one pool per range of `durable`, in its order
   */
  constructor(private readonly durable: DurableRanges, private readonly heldByServices: () => Promise<SlotPool[]>) {}

  async runOnce(): Promise<void> {
    // The Services first: anything allocated after this read is in the ranges and not in it, a
    // suspect for one pass only.
    const held = await this.heldByServices();
    await this.durable.exclusive(async () => {
      this.durable.refresh();
      this.durable.ranges.forEach((range, i) => {
        const services = held[i];
        if (!services) return;
        const pool = range.pool;
        const suspects = this.suspects.get(pool) ?? new Map<number, number>();
        this.suspects.set(pool, suspects);
        for (const slot of services.takenSlots()) pool.take(slot);
        for (const slot of [...pool.takenSlots()]) {
          if (services.has(slot)) {
            suspects.delete(slot);
            continue;
          }
          const passes = (suspects.get(slot) ?? 0) + 1;
          if (passes < PASSES_BEFORE_FREEING) {
            suspects.set(slot, passes);
          } else {
            suspects.delete(slot);
            pool.release(slot);
          }
        }
        for (const slot of suspects.keys()) if (!pool.has(slot)) suspects.delete(slot);
      });
      await this.durable.flush();
    });
  }
}
