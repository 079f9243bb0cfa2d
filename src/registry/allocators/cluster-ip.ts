// The ClusterIP allocator of one service CIDR, as the reference's: the network address (and, for
// IPv4, the broadcast address) is never given, IPv6 ranges are capped at 65536 addresses, random
// picks prefer the upper part of the range, and the first address is kept for the `kubernetes`
// Service.
import { canonicalIp, cidrContains, cidrSize, formatCidr, formatIp, parseCidr, parseIp, type Cidr, type IpFamily } from './ip-range.js';
import { SlotPool } from './slot-pool.js';

export class RangeFullError extends Error {
  constructor() {
    super('range is full');
  }
}

export class IpNotInRangeError extends Error {
  constructor(ip: string, range: string) {
    super(`the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${range}`);
  }
}

export class IpAllocatedError extends Error {
  constructor() {
    super('provided IP is already allocated');
  }
}

const IPV6_MAX_SIZE = 65536n;

/** The static band's size: min(max(16, size/16), 256), none for blocks of 16 or fewer. */
function staticBandOf(cidr: Cidr): number {
  const size = cidrSize(cidr);
  if (size <= 16n) return 0;
  const band = size / 16n;
  return Number(band < 16n ? 16n : band > 256n ? 256n : band);
}

export class ClusterIpRange {
  readonly family: IpFamily;
  /** The range as the reference prints it ("10.96.0.0/12"). */
  readonly text: string;
  /** The address of slot 0: the one after the network address. */
  private readonly base: bigint;
  private readonly pool: SlotPool;

  constructor(readonly cidr: Cidr) {
    this.family = cidr.family;
    this.text = formatCidr(cidr);
    let size = cidrSize(cidr);
    if (cidr.family === 'IPv6') {
      if (size > IPV6_MAX_SIZE) size = IPV6_MAX_SIZE;
    } else {
      size -= 1n; // the broadcast address
    }
    size -= 1n; // the network address
    this.base = cidr.network + 1n;
    this.pool = new SlotPool(Number(size < 0n ? 0n : size), { staticBand: staticBandOf(cidr), reserved: 0 });
  }

  /** The taken offsets (what the range's RangeAllocation object stores). */
  get slots(): SlotPool {
    return this.pool;
  }

  /** The first address, which the `kubernetes` Service holds. */
  firstAddress(): string {
    return formatIp({ family: this.family, value: this.base });
  }

  get size(): number {
    return this.pool.size;
  }

  get used(): number {
    return this.pool.used;
  }

  /** The slot of an address of this range, or undefined (out of range, network, broadcast). */
  private slotOf(text: string): number | undefined {
    const ip = parseIp(text);
    if (!ip || !cidrContains(this.cidr, ip)) return undefined;
    const offset = ip.value - this.base;
    return offset >= 0n && offset < BigInt(this.pool.size) ? Number(offset) : undefined;
  }

  has(ip: string): boolean {
    const slot = this.slotOf(ip);
    return slot !== undefined && this.pool.has(slot);
  }

  /**
   * Takes an address asked for by number. A dry run checks only that it is in range (the
   * reference's dry run does not look at what is taken).
   */
  allocate(ip: string, dryRun = false): void {
    const slot = this.slotOf(ip);
    if (slot === undefined) throw new IpNotInRangeError(canonicalIp(ip), this.text);
    if (dryRun) return;
    if (!this.pool.take(slot)) throw new IpAllocatedError();
  }

  /** Takes a free address at random. A dry run answers the network address, as the reference's. */
  allocateNext(dryRun = false): string {
    if (dryRun) return formatIp({ family: this.family, value: this.cidr.network });
    const slot = this.pool.takeRandom();
    if (slot === undefined) throw new RangeFullError();
    return formatIp({ family: this.family, value: this.base + BigInt(slot) });
  }

  /** Gives an address back; addresses out of range or not taken are ignored. */
  release(ip: string): void {
    const slot = this.slotOf(ip);
    if (slot !== undefined) this.pool.release(slot);
  }
}

const MAX_CIDR_BITS = 20;

/**
 * --service-cluster-ip-range: one CIDR, or an IPv4 and an IPv6 one (either first) for dual-stack.
 * Throws with the reference's messages when the flag is not usable.
 */
export function parseServiceClusterIpRanges(flag: string): ClusterIpRange[] {
  const texts = flag.split(',').map((s) => s.trim());
  if (texts.length > 2) throw new Error('--service-cluster-ip-range must not contain more than two entries');
  const ranges: ClusterIpRange[] = [];
  texts.forEach((text, i) => {
    const cidr = parseCidr(text);
    if (!cidr) throw new Error(`--service-cluster-ip-range: invalid CIDR address: ${text}`);
    const name = i === 0 ? '--service-cluster-ip-range' : '--service-cluster-ip-range[1]';
    const bits = cidr.family === 'IPv4' ? 32 : 128;
    // The reference keeps ranges small: their bitmaps are stored, and larger ones add nothing.
    if (bits - cidr.prefix > MAX_CIDR_BITS) throw new Error(`specified ${name} is too large; for ${bits}-bit addresses, the mask must be >= ${bits - MAX_CIDR_BITS}`);
    ranges.push(new ClusterIpRange(cidr));
  });
  if (ranges.length === 2 && ranges[0]!.family === ranges[1]!.family) {
    throw new Error('--service-cluster-ip-range[0] and --service-cluster-ip-range[1] must be of different IP family');
  }
  return ranges;
}
