// Numbered slots 0..size-1, each free or taken: the state behind both service allocators (an
// address's offset in its range, a port's offset in the node port range).

export interface SlotPoolOptions {
  /**
   * Slots below this one are a static band, where random picks go only once the slots above it
   * are all taken (the reference's ServiceIPStaticSubrange: low addresses stay free for
   * addresses asked for by number).
   */
  staticBand?: number;
  /** A slot random picks never give (still taken when asked for by number). */
  reserved?: number;
}

export class SlotPool {
  private readonly taken = new Set<number>();
  private readonly staticBand: number;
  private readonly reserved: number | undefined;

  constructor(readonly size: number, options: SlotPoolOptions = {}) {
    this.staticBand = Math.min(options.staticBand ?? 0, size);
    this.reserved = options.reserved;
  }

  get used(): number {
    return this.taken.size;
  }

  has(slot: number): boolean {
    return this.taken.has(slot);
  }

  /** Takes a slot; false when it is already taken. */
  take(slot: number): boolean {
    if (this.taken.has(slot)) return false;
    this.taken.add(slot);
    return true;
  }

  release(slot: number): void {
    this.taken.delete(slot);
  }

  /** The taken slots, in no particular order. */
  takenSlots(): IterableIterator<number> {
    return this.taken.values();
  }

  /** Makes exactly these slots the taken ones (a snapshot read back from storage). */
  replace(slots: Iterable<number>): void {
    this.taken.clear();
    for (const slot of slots) if (slot >= 0 && slot < this.size) this.taken.add(slot);
  }

  /** A free slot at random (upper band first), taken; undefined when none is left. */
  takeRandom(): number | undefined {
    const slot = this.freeIn(this.staticBand, this.size) ?? this.freeIn(0, this.staticBand);
    if (slot !== undefined) this.taken.add(slot);
    return slot;
  }

  /** A free slot in [from, to): scanning on from a random start, wrapping around. */
  private freeIn(from: number, to: number): number | undefined {
    const length = to - from;
    if (length <= 0) return undefined;
    const start = Math.floor(Math.random() * length);
    for (let i = 0; i < length; i++) {
      const slot = from + ((start + i) % length);
      if (slot !== this.reserved && !this.taken.has(slot)) return slot;
    }
    return undefined;
  }
}
