// The NodePort allocator over --service-node-port-range, as the reference's: any free port of the
// range at random, or the one asked for.
import { RangeFullError } from './cluster-ip.js';
import { SlotPool } from './slot-pool.js';

export class PortNotInRangeError extends Error {
  constructor(range: string) {
    super(`provided port is not in the valid range. The range of valid ports is ${range}`);
  }
}

export class PortAllocatedError extends Error {
  constructor() {
    super('provided port is already allocated');
  }
}

export interface PortRange {
  base: number;
  size: number;
}

function port(text: string, flag: string): number {
  if (!/^\+?\d+$/.test(text)) throw new Error(`unable to parse port range: ${flag}`);
  return Number(text);
}

/** "30000-32767", "30000+2767" or a single port, as the reference's flag reads them. */
export function parsePortRange(flag: string): PortRange {
  const text = flag.trim();
  if (text === '') throw new Error('the port range must not be empty');
  const hyphen = text.indexOf('-');
  const plus = text.indexOf('+');
  if (hyphen >= 0 && plus >= 0) throw new Error(`unable to parse port range: ${text}`);
  let low: number;
  let high: number;
  if (hyphen >= 0) {
    low = port(text.slice(0, hyphen), text);
    high = port(text.slice(hyphen + 1), text);
  } else if (plus >= 0) {
    low = port(text.slice(0, plus), text);
    high = low + port(text.slice(plus + 1), text);
  } else {
    low = high = port(text, text);
  }
  if (low > 65535 || high > 65535) throw new Error(`the port range cannot be greater than 65535: ${text}`);
  if (high < low) throw new Error(`end port cannot be less than start port: ${text}`);
  return { base: low, size: high - low + 1 };
}

export class NodePortRange {
  /** The range as the reference prints it ("30000-32767"). */
  readonly text: string;
  private readonly pool: SlotPool;

  constructor(readonly range: PortRange) {
    this.text = `${range.base}-${range.base + range.size - 1}`;
    this.pool = new SlotPool(range.size);
  }

  /** The taken offsets (what the range's RangeAllocation object stores). */
  get slots(): SlotPool {
    return this.pool;
  }

  get used(): number {
    return this.pool.used;
  }

  private slotOf(port: number): number | undefined {
    const slot = port - this.range.base;
    return Number.isInteger(slot) && slot >= 0 && slot < this.range.size ? slot : undefined;
  }

  has(port: number): boolean {
    const slot = this.slotOf(port);
    return slot !== undefined && this.pool.has(slot);
  }

  allocate(port: number): void {
    const slot = this.slotOf(port);
    if (slot === undefined) throw new PortNotInRangeError(this.text);
    if (!this.pool.take(slot)) throw new PortAllocatedError();
  }

  allocateNext(): number {
    const slot = this.pool.takeRandom();
    if (slot === undefined) throw new RangeFullError();
    return this.range.base + slot;
  }

  /** Gives a port back; ports out of range or not taken are ignored. */
  release(port: number): void {
    const slot = this.slotOf(port);
    if (slot !== undefined) this.pool.release(slot);
  }
}
