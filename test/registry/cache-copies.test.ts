// The watch cache keeps its own copies of what a store that hands out new bytes (SQLite, etcd)
// gives it; the registry tells the resource's definition of each, so that what it worked out of
// the bytes written (custom resources: that they read back as they are) holds for the copy.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { genericDefinition, ResourceDefinitions } from '../../src/registry/definitions.js';
import { Registry } from '../../src/registry/store.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { until } from '../helpers.js';

/** A memory storage that says it does not keep its values: the cache copies them into its slabs. */
class CopiedStorage extends MemoryStorage {
  override readonly keepsValues = false;
}

describe('the watch cache\'s copies', { timeout: 10_000 }, () => {
  it('are told to the definition in force, beside the bytes written', async () => {
    const written: Buffer[] = [];
    const told: Array<{ from: Buffer; to: Buffer; by: string }> = [];
    const definition = (by: string) => genericDefinition({
      group: 'example.com', resource: 'widgets', kind: 'Widget', namespaced: true, versions: ['v1'],
      hooks: { written: (bytes) => written.push(bytes), copied: (from, to) => told.push({ from, to, by }) },
    });
    const definitions = new ResourceDefinitions();
    definitions.add(definition('first'));
    const registry = new Registry(definitions, new CopiedStorage(), { historyWindowMs: 60_000 });
    await registry.startCaches();
    const info = () => definitions.lookup('example.com', 'v1', 'widgets')!;
    await registry.create(info(), 'ns', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'a' } }, { manager: 'test' });
    await until('the copy told', () => told.length === 1, 2000, 1);
    assert.notEqual(told[0]!.to, told[0]!.from);
    assert.ok(told[0]!.to.equals(told[0]!.from));
    assert.ok(written.some((w) => w.equals(told[0]!.to)), 'the copy is of the bytes written');
    // Its definition replaced (a CRD changed), the copies go to the new one.
    definitions.add(definition('second'));
    await registry.create(info(), 'ns', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'b' } }, { manager: 'test' });
    await until('the second copy told', () => told.length === 2, 2000, 1);
    assert.deepEqual(told.map((t) => t.by), ['first', 'second']);
  });
});
