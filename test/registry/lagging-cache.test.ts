// Updates and deletes start from the watch cache's copy of the object. With other servers writing
// to the store (etcd), that copy may lag the store: the write must then answer as if it had read
// the store — no conflict for a resourceVersion the store has, no write skipped because the body
// equals the old copy, no delete of a version older than the store's. A store wrapper here holds the cache's feed back, as a slow etcd watch would.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonObject } from '../../src/json.js';
import { ResourceDefinitions } from '../../src/registry/definitions.js';
import { objectKey } from '../../src/registry/keys.js';
import { Registry } from '../../src/registry/store.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import type { Encode, ListOptions, Storage, WatchListener, Watcher, StorageEvent } from '../../src/storage/types.js';
import { GROUP, widgetDefinition } from './widgets.js';

/** A memory store that other servers write too: it has a latest revision, and its watches' events can be held back. */
class SharedStorage implements Storage {
  readonly inner = new MemoryStorage();
  readonly keepsValues = true;
  private held: Array<() => void> | undefined;

  get = (key: string) => this.inner.get(key);
  list = (prefix: string, options?: ListOptions) => this.inner.list(prefix, options);
  count = (prefix: string) => this.inner.count(prefix);
  create = (key: string, encode: Encode) => this.inner.create(key, encode);
  update = (key: string, expect: number, encode: Encode) => this.inner.update(key, expect, encode);
  delete = (key: string, expect?: number, tombstone?: (revision: number, last: Buffer) => Buffer) => this.inner.delete(key, expect, tombstone);
  compact = (revision: number) => this.inner.compact(revision);
  currentRevision = () => this.inner.currentRevision();
  compactedRevision = () => this.inner.compactedRevision();
  close = () => this.inner.close();
  latestRevision = () => Promise.resolve(this.inner.currentRevision());

  watch(prefix: string, fromRevision: number, listener: WatchListener): Watcher {
    return this.inner.watch(prefix, fromRevision, (e: StorageEvent) => (this.held ? this.held.push(() => listener(e)) : listener(e)));
  }

  /** Watches get no events until release(), then all of them in order. */
  hold(): void {
    this.held = [];
  }

  release(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const deliver of held) deliver();
  }
}

function setUp(): { storage: SharedStorage; registry: Registry; info: ReturnType<ResourceDefinitions['lookup']> & object } {
  const storage = new SharedStorage();
  const definitions = new ResourceDefinitions();
  definitions.add(widgetDefinition());
  const registry = new Registry(definitions, storage, { historyWindowMs: 60_000 });
  return { storage, registry, info: definitions.lookup(GROUP, 'v1', 'widgets')! };
}

const widget = (name: string, spec: JsonObject, resourceVersion?: string): JsonObject => ({
  apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name, ...(resourceVersion ? { resourceVersion } : {}) }, spec,
});

const parsed = (body: Buffer) => JSON.parse(body.toString()) as { metadata: { resourceVersion: string }; spec: JsonObject };

/** Another server's write: straight into the store, seen by this server's cache only once released. */
async function writtenElsewhere(storage: SharedStorage, name: string, spec: JsonObject): Promise<number> {
  const key = objectKey({ group: GROUP, resource: 'widgets', namespaced: true }, 'ns', name);
  const current = (await storage.get(key))!;
  const old = JSON.parse(current.value.toString()) as JsonObject;
  const written = await storage.update(key, current.modRevision, (rev) => Buffer.from(JSON.stringify({ ...old, metadata: { ...(old['metadata'] as JsonObject), resourceVersion: String(rev) }, spec })));
  return written.modRevision;
}

describe('updates while the watch cache lags the store', { timeout: 20_000 }, () => {
  it('accepts the resourceVersion the store has, which the cache does not have yet', async () => {
    const { storage, registry, info } = setUp();
    await registry.create(info, 'ns', widget('a', { v: 1 }), { manager: 'test' });
    await registry.get(info, 'ns', 'a'); // (its watch cache started, and holding it)
    storage.hold();
    const elsewhere = await writtenElsewhere(storage, 'a', { v: 2 });
    const result = await registry.update(info, 'ns', 'a', widget('a', { v: 3 }, String(elsewhere)), undefined, { manager: 'test' });
    assert.equal(result.status, 200);
    assert.deepEqual(parsed(result.body).spec, { v: 3 });
    assert.ok(Number(parsed(result.body).metadata.resourceVersion) > elsewhere);
    // An old resourceVersion is still a conflict.
    await assert.rejects(registry.update(info, 'ns', 'a', widget('a', { v: 4 }, String(elsewhere)), undefined, { manager: 'test' }), (err: { code?: number }) => err.code === 409);
    storage.release();
    await storage.close();
  });

  it('writes a body equal to the cache\'s old copy: the store holds another', async () => {
    const { storage, registry, info } = setUp();
    const created = parsed((await registry.create(info, 'ns', widget('b', { v: 1 }), { manager: 'test' })).body);
    await registry.get(info, 'ns', 'b');
    storage.hold();
    const elsewhere = await writtenElsewhere(storage, 'b', { v: 2 });
    const result = await registry.update(info, 'ns', 'b', widget('b', { v: 1 }), undefined, { manager: 'test' });
    const answered = parsed(result.body);
    assert.deepEqual(answered.spec, { v: 1 });
    assert.ok(Number(answered.metadata.resourceVersion) > elsewhere, `written after the other server's write (${answered.metadata.resourceVersion}; created at ${created.metadata.resourceVersion})`);
    const stored = await storage.get(objectKey({ group: GROUP, resource: 'widgets', namespaced: true }, 'ns', 'b'));
    assert.deepEqual((JSON.parse(stored!.value.toString()) as { spec: JsonObject }).spec, { v: 1 });
    storage.release();
    await storage.close();
  });
});

describe('deletes while the watch cache lags the store', { timeout: 20_000 }, () => {
  const key = (name: string) => objectKey({ group: GROUP, resource: 'widgets', namespaced: true }, 'ns', name);

  it('accepts a resourceVersion precondition the store has, which the cache does not have yet', async () => {
    const { storage, registry, info } = setUp();
    await registry.create(info, 'ns', widget('c', { v: 1 }), { manager: 'test' });
    await registry.get(info, 'ns', 'c');
    storage.hold();
    const elsewhere = await writtenElsewhere(storage, 'c', { v: 2 });
    const result = await registry.delete(info, 'ns', 'c', { preconditions: { resourceVersion: String(elsewhere) } });
    assert.equal(result.status, 200);
    assert.equal(await storage.get(key('c')), undefined);
    storage.release();
    await storage.close();
  });

  it('refuses a resourceVersion precondition the store has moved past, though the cache still has it', async () => {
    const { storage, registry, info } = setUp();
    const created = parsed((await registry.create(info, 'ns', widget('d', { v: 1 }), { manager: 'test' })).body);
    await registry.get(info, 'ns', 'd');
    storage.hold();
    await writtenElsewhere(storage, 'd', { v: 2 });
    await assert.rejects(registry.delete(info, 'ns', 'd', { preconditions: { resourceVersion: created.metadata.resourceVersion } }), (err: { code?: number }) => err.code === 409);
    assert.deepEqual((JSON.parse((await storage.get(key('d')))!.value.toString()) as { spec: JsonObject }).spec, { v: 2 }, 'still stored');
    storage.release();
    await storage.close();
  });

  it('deletes the object the store has, whose version the cache has not seen', async () => {
    const { storage, registry, info } = setUp();
    await registry.create(info, 'ns', widget('e', { v: 1 }), { manager: 'test' });
    await registry.get(info, 'ns', 'e');
    storage.hold();
    await writtenElsewhere(storage, 'e', { v: 2 });
    const result = await registry.delete(info, 'ns', 'e');
    assert.equal(result.status, 200);
    assert.equal(await storage.get(key('e')), undefined);
    storage.release();
    await storage.close();
  });
});
