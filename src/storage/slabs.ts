// Where a watch cache keeps the bytes of its objects: copied into shared slabs, a few hundred
// objects to an allocation, rather than one allocation per object. A Buffer of its own costs an
// ArrayBuffer object and a native backing store (with its bookkeeping and malloc header) besides
// the bytes, and scatters long-lived allocations among the short-lived ones of requests; here each
// object is only a view into its slab.
//
// A slab lives as long as any view into it does, so versions that are gone would keep their bytes
// in place while one neighbour lives on. The owner says which views are its current values (live);
// when a full slab holds less than half its bytes live, those views are copied into the newest
// slab and the owner given the copies (`relocate`), so the old slab goes once the older views held
// elsewhere (history, requests under way) are let go. Memory is then at most about twice the live
// bytes, plus what the owner's retained history still holds.

/** Values larger than this are kept in an allocation of their own. */
const LARGE = 32 * 1024;
const FIRST_SLAB = 8 * 1024;
/**
 * Slabs stay small so that they can be made of memory the process freed: a burst of short-lived
 * native allocations (a thousand stalled watchers' TLS writes, cut off together) leaves holes in
 * the malloc heap that 64 KiB slabs fill; 256 KiB ones found few holes that large and grew the
 * heap past them (the slow-watcher probe of issue 14: 25–30 MiB more RSS, kept for good).
 */
export const LAST_SLAB = 64 * 1024;

interface Slab {
  bytes: Buffer;
  used: number;
  /** Bytes of the owner's live views into this slab. */
  live: number;
  /** The keys of the live views made in this slab (stale ones are skipped when relocating). */
  keys: string[];
}

/** Given a key whose live view is in a slab being emptied: its current view there, or undefined (no longer live there). */
export type LiveView = (key: string) => Buffer | undefined;

export class Slabs {
  private current: Slab | undefined;
  /** Slabs holding live views, by their memory. */
  private readonly slabs = new Map<ArrayBufferLike, Slab>();
  private nextSize = FIRST_SLAB;
  /** Full slabs found mostly gone, emptied at the next release (once the owner holds its new value). */
  private toEmpty: Slab[] = [];
  private emptying = false;

  /**
   * @param liveView what the owner holds as the key's live value (to find it in a slab being emptied)
   * @param relocated told the copy that replaces a live view (the owner keeps it in the view's place)
   */
  constructor(
    private readonly liveView: LiveView,
    private readonly relocated: (key: string, copy: Buffer) => void,
  ) {}

  /** A copy of `value` kept in a slab (not counted live: history, tombstones). */
  copy(value: Buffer): Buffer {
    if (value.length > LARGE || value.length === 0) return own(value);
    let slab = this.current;
    if (!slab || slab.used + value.length > slab.bytes.length) slab = this.fresh(value.length);
    const at = slab.used;
    // set(), not Buffer's copy(): its checks and the view it makes of a part cost more than the copy.
    slab.bytes.set(value, at);
    slab.used += value.length;
    return slab.bytes.subarray(at, at + value.length);
  }

  /** A copy of `value` that is the owner's live value of `key` until `release`d. */
  keep(key: string, value: Buffer): Buffer {
    const kept = this.copy(value);
    this.hold(key, kept);
    return kept;
  }

  /** `view` (made by copy) is now the live value of `key`. */
  hold(key: string, view: Buffer): void {
    const slab = this.slabOf(view) ?? (this.current?.bytes.buffer === view.buffer ? this.current : undefined);
    if (!slab) return;
    if (!this.slabs.has(slab.bytes.buffer)) this.slabs.set(slab.bytes.buffer, slab);
    slab.live += view.length;
    slab.keys.push(key);
  }

  /**
   * `view` is no longer a live value of the owner (called once the owner holds what replaces it, so
   * that slabs emptied now move the owner's current values).
   */
  release(view: Buffer): void {
    const slab = this.slabOf(view);
    if (slab) {
      slab.live -= view.length;
      if (slab !== this.current) this.check(slab);
    }
    if (this.emptying) return;
    this.emptying = true;
    try {
      for (let next = this.toEmpty.pop(); next; next = this.toEmpty.pop()) this.empty(next);
    } finally {
      this.emptying = false;
    }
  }

  /** A full slab: dropped when nothing live is left, to be emptied when less than half is. */
  private check(slab: Slab): void {
    if (slab.live <= 0) this.slabs.delete(slab.bytes.buffer);
    else if (slab.live * 2 < slab.used && !this.toEmpty.includes(slab)) this.toEmpty.push(slab);
  }

  /** Bytes in slabs holding live views, and of those views: for tests and diagnostics. */
  usage(): { slabs: number; allocated: number; live: number } {
    let allocated = 0;
    let live = 0;
    for (const s of this.slabs.values()) {
      allocated += s.bytes.length;
      live += s.live;
    }
    return { slabs: this.slabs.size, allocated, live };
  }

  private slabOf(view: Buffer): Slab | undefined {
    return this.slabs.get(view.buffer);
  }

  private fresh(atLeast: number): Slab {
    const old = this.current;
    const size = Math.max(this.nextSize, atLeast);
    this.nextSize = Math.min(LAST_SLAB, size * 2);
    const slab: Slab = { bytes: Buffer.allocUnsafeSlow(size), used: 0, live: 0, keys: [] };
    this.current = slab;
    // The slab that was being filled is now full: mostly gone already, it is emptied at the next release.
    if (old && this.slabs.has(old.bytes.buffer)) this.check(old);
    return slab;
  }

  /** Copies the live views of `slab` into the newest one; the owner takes the copies in their place. */
  private empty(slab: Slab): void {
    if (!this.slabs.has(slab.bytes.buffer)) return;
    this.slabs.delete(slab.bytes.buffer);
    const keys = slab.keys;
    slab.keys = [];
    slab.live = 0;
    for (const key of keys) {
      const view = this.liveView(key);
      if (!view || view.buffer !== slab.bytes.buffer) continue;
      this.relocated(key, this.keep(key, view));
    }
  }
}

/** A copy in an allocation of its own. */
function own(value: Buffer): Buffer {
  const copy = Buffer.allocUnsafeSlow(value.length);
  copy.set(value);
  return copy;
}
