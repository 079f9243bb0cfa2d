// Leases for objects that expire (Events, --event-ttl), shared as the reference's lease manager
// shares them: one lease serves every write for a while rather than one lease per object. A lease
// is granted for the TTL plus a reuse window (5% of the TTL, at most a minute, as the reference)
// and handed to writes while it still outlives their TTL, for at most 1,000 objects.
import type { EtcdClient } from './client.js';

const REUSE_FRACTION = 0.05;
const MAX_REUSE_SECONDS = 60;
const MAX_OBJECTS = 1000;

export class TtlLeases {
  private lease: { id: string; expiresMs: number; ttl: number; objects: number } | undefined;
  private granting: Promise<string> | undefined;

  constructor(
    private readonly client: EtcdClient,
    private readonly now: () => number = Date.now,
  ) {}

  /** A lease that keeps a key at least `ttlSeconds` (and at most the reuse window longer). */
  async leaseFor(ttlSeconds: number): Promise<string> {
    const reuse = Math.min(Math.floor(REUSE_FRACTION * ttlSeconds), MAX_REUSE_SECONDS);
    const now = this.now();
    const lease = this.lease;
    if (lease && lease.ttl === ttlSeconds && lease.objects < MAX_OBJECTS) {
      const outlives = now + ttlSeconds * 1000 < lease.expiresMs;
      const notTooLong = now + (ttlSeconds + reuse) * 1000 > lease.expiresMs;
      if (outlives && notTooLong) {
        lease.objects++;
        return lease.id;
      }
    }
    // Writes that arrive while a lease is being granted share it.
    this.granting ??= this.grant(ttlSeconds + reuse, ttlSeconds, now).finally(() => (this.granting = undefined));
    return this.granting;
  }

  private async grant(seconds: number, ttl: number, now: number): Promise<string> {
    const { id } = await this.client.leaseGrant(seconds);
    this.lease = { id, expiresMs: now + seconds * 1000, ttl, objects: 1 };
    return id;
  }
}
