// Leases for expiring objects are shared as the reference's lease manager shares them: one lease
// for many writes while it outlives their TTL by no more than the reuse window.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EtcdClient } from '../../src/storage/etcd/client.js';
import { TtlLeases } from '../../src/storage/etcd/ttl-leases.js';

describe('leases for TTLs', () => {
  it('reuses a lease within its window, grants a new one after, and asks for TTL + 5% (at most 60 s)', { timeout: 5_000 }, async () => {
    const granted: number[] = [];
    const client = { leaseGrant: async (ttl: number) => ({ id: String(granted.push(ttl)), ttl }) } as unknown as EtcdClient;
    let now = 1_000_000;
    const leases = new TtlLeases(client, () => now);
    const [a, b] = await Promise.all([leases.leaseFor(3600), leases.leaseFor(3600)]);
    assert.equal(a, '1');
    assert.equal(b, '1', 'writes during the grant share it');
    now += 59_000;
    assert.equal(await leases.leaseFor(3600), '1', 'still outlives the TTL');
    now += 2_000;
    assert.equal(await leases.leaseFor(3600), '2', 'it would not: a new lease');
    assert.deepEqual(granted, [3660, 3660]);
    assert.equal(await leases.leaseFor(100), '3', 'another TTL, another lease');
    assert.deepEqual(granted, [3660, 3660, 105]);
  });
});
