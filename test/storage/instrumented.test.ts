// The storage wrapper times each operation that reaches the backend under the reference's
// operation names, with the type the key's resource names.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { StorageMetrics } from '../../src/metrics/storage.js';
import { InstrumentedStorage } from '../../src/storage/instrumented.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { parsePrometheusText, sampleValue } from '../prometheus-text.js';

describe('InstrumentedStorage', { timeout: 10_000 }, () => {
  it('records get, list, listWithCount, create, update and delete, errors included', async () => {
    const registry = new Registry();
    const metrics = new StorageMetrics(registry);
    const storage = new InstrumentedStorage(new MemoryStorage(), metrics, (key, list) => `${key.split('/')[2]}${list ? 'List' : ''}`);
    const key = '/registry/things/a';
    const created = await storage.create(key, () => Buffer.from('{}'));
    await assert.rejects(storage.create(key, () => Buffer.from('{}')));
    await storage.get(key);
    await storage.update(key, created.modRevision, () => Buffer.from('{"x":1}'));
    await storage.list('/registry/things/');
    assert.equal(await storage.count('/registry/things/'), 1);
    await storage.delete(key);
    const m = parsePrometheusText(await registry.metrics());
    const count = (operation: string, type: string) => sampleValue(m, 'etcd_request_duration_seconds_count', { operation, type });
    assert.equal(count('create', 'things'), 2);
    assert.equal(count('get', 'things'), 1);
    assert.equal(count('update', 'things'), 1);
    assert.equal(count('list', 'thingsList'), 1);
    assert.equal(count('listWithCount', '/registry/things/'), 1);
    assert.equal(count('delete', 'things'), 1);
    await storage.close();
  });
});
