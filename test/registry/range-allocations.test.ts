// The service allocators' RangeAllocation objects on their own: the bitmap as Go's big.Int bytes,
// the objects the reference names (dual-stack's second range too), a stored snapshot respected,
// and two servers' allocators on one store racing for the last address: one gets it, the other
// answers as the reference does when the range is full.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeRangeBitmap, encodeRangeBitmap } from '../../src/registry/allocators/range-bitmap.js';
import { ServiceAllocators } from '../../src/registry/allocators/service-allocation.js';
import { decodeJson, type JsonObject } from '../../src/json.js';
import { StatusError } from '../../src/errors.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import type { Storage } from '../../src/storage/types.js';

const service = (name: string, spec: JsonObject = {}): JsonObject => ({
  apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec: { type: 'ClusterIP', ports: [{ port: 80, protocol: 'TCP' }], ...spec },
});

const stored = async (storage: Storage, name: string): Promise<JsonObject> => decodeJson((await storage.get(`/registry/ranges/${name}`))!.value) as JsonObject;
const taken = async (storage: Storage, name: string): Promise<number[]> => [...decodeRangeBitmap(Buffer.from(String((await stored(storage, name))['data']), 'base64'))].sort((a, b) => a - b);

describe('RangeAllocation objects', { timeout: 20_000 }, () => {
  it('keep the bitmap as Go\'s big.Int.Bytes(): big-endian, offset k is bit k, no leading zeros', () => {
    assert.deepEqual([...encodeRangeBitmap([])], []);
    assert.deepEqual([...encodeRangeBitmap([0])], [0x01]);
    assert.deepEqual([...encodeRangeBitmap([8])], [0x01, 0x00]);
    // 2^0 + 2^9 + 2^15 = 0x8201
    assert.deepEqual([...encodeRangeBitmap([15, 0, 9])], [0x82, 0x01]);
    assert.deepEqual([...decodeRangeBitmap(Buffer.from([0x82, 0x01]))].sort((a, b) => a - b), [0, 9, 15]);
    assert.deepEqual([...decodeRangeBitmap(Buffer.from([0x00, 0x00, 0x04]))], [2], 'leading zeros read too');
  });

  it('are created under the reference\'s keys, the secondary family\'s too, with what the Services hold', async () => {
    const storage = new MemoryStorage();
    const pools = ServiceAllocators.fromFlags('10.0.0.0/24,fd00::/120', '30000-30099');
    pools.restore(service('held', { clusterIP: '10.0.0.10', clusterIPs: ['10.0.0.10', 'fd00::10'], ipFamilies: ['IPv4', 'IPv6'], type: 'NodePort', ports: [{ port: 80, nodePort: 30005 }] }));
    await pools.keepRangesIn(storage);
    assert.equal((await stored(storage, 'serviceips'))['range'], '10.0.0.0/24');
    assert.equal((await stored(storage, 'serviceips'))['kind'], 'RangeAllocation');
    assert.equal((await stored(storage, 'secondaryserviceips'))['range'], 'fd00::/120');
    assert.equal((await stored(storage, 'servicenodeports'))['range'], '30000-30099');
    assert.deepEqual(await taken(storage, 'serviceips'), [9]);
    assert.deepEqual(await taken(storage, 'secondaryserviceips'), [15]);
    assert.deepEqual(await taken(storage, 'servicenodeports'), [5]);
    pools.stopKeepingRanges();
  });

  it('respect a snapshot already stored, and write each allocation and release', async () => {
    const storage = new MemoryStorage();
    await storage.create('/registry/ranges/serviceips', () => Buffer.from(JSON.stringify({
      apiVersion: 'v1', kind: 'RangeAllocation', metadata: {}, range: '10.0.0.0/24', data: encodeRangeBitmap([19]).toString('base64'),
    })));
    const pools = ServiceAllocators.fromFlags('10.0.0.0/24', '30000-30099');
    await pools.keepRangesIn(storage);
    await assert.rejects(Promise.resolve(pools.allocateCreate(service('s', { clusterIP: '10.0.0.20' }), false)), (err: unknown) => err instanceof StatusError && err.code === 422);
    const svc = service('t', { clusterIP: '10.0.0.30' });
    (await pools.allocateCreate(svc, false)).commit();
    assert.deepEqual(await taken(storage, 'serviceips'), [19, 29], 'written before the allocation resolved');
    await pools.releaseDurably(svc);
    assert.deepEqual(await taken(storage, 'serviceips'), [19]);
    pools.stopKeepingRanges();
  });

  it('give the last address to one of two servers racing for it; the other answers range full', async () => {
    const storage = new MemoryStorage();
    // 10.0.0.0/29: six addresses, the first kept for the kubernetes Service: five for random picks.
    const a = ServiceAllocators.fromFlags('10.0.0.0/29', '30000-30099');
    const b = ServiceAllocators.fromFlags('10.0.0.0/29', '30000-30099');
    await a.keepRangesIn(storage);
    await b.keepRangesIn(storage);
    const results = await Promise.allSettled(Array.from({ length: 6 }, async (_, i) => {
      const svc = service(`s${i}`);
      const claim = await (i % 2 === 0 ? a : b).allocateCreate(svc, false);
      claim.commit();
      return (svc['spec'] as JsonObject)['clusterIP'] as string;
    }));
    const ips = results.filter((r): r is PromiseFulfilledResult<string> => r.status === 'fulfilled').map((r) => r.value);
    assert.equal(ips.length, 5, JSON.stringify(results));
    assert.equal(new Set(ips).size, 5, `distinct: ${ips.join(' ')}`);
    const refused = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')!.reason as StatusError;
    assert.equal(refused.code, 500);
    assert.match(refused.message, /failed to allocate a serviceIP: range is full/);
    assert.deepEqual(await taken(storage, 'serviceips'), [1, 2, 3, 4, 5]);
    a.stopKeepingRanges();
    b.stopKeepingRanges();
  });

  it('free, as the reference\'s repair loop, what no Service holds after three passes, and no sooner', async () => {
    const storage = new MemoryStorage();
    await storage.create('/registry/ranges/serviceips', () => Buffer.from(JSON.stringify({
      apiVersion: 'v1', kind: 'RangeAllocation', metadata: {}, range: '10.0.0.0/24', data: encodeRangeBitmap([9, 49]).toString('base64'),
    })));
    const held = service('held', { clusterIP: '10.0.0.10' });
    const pools = ServiceAllocators.fromFlags('10.0.0.0/24', '30000-30099');
    pools.restore(held);
    await pools.keepRangesIn(storage, async () => [held]);
    assert.deepEqual(await taken(storage, 'serviceips'), [9, 49], 'kept at start');
    await pools.repair!.runOnce();
    await pools.repair!.runOnce();
    assert.deepEqual(await taken(storage, 'serviceips'), [9, 49], 'a suspect for two passes');
    await pools.repair!.runOnce();
    assert.deepEqual(await taken(storage, 'serviceips'), [9], 'freed at the third');
    pools.stopKeepingRanges();
  });
});
