// The watch cache's slabs: copies share allocations, and a slab kept by a few long-lived values
// among many gone is emptied into the newest one (the owner takes the copies), so churn next to
// long-lived objects does not pin memory; through the watch cache, every read still gives the bytes
// of the version it asks for.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LAST_SLAB, Slabs } from '../../src/storage/slabs.js';
import { Cacher } from '../../src/storage/cacher.js';
import { MemoryStorage } from '../../src/storage/memory.js';

const LIMIT = { timeout: 20_000 };

/** An owner of live values, as the watch cache is. */
function owner(): { values: Map<string, Buffer>; slabs: Slabs; put(key: string, text: string): void; remove(key: string): void } {
  const values = new Map<string, Buffer>();
  const slabs = new Slabs(
    (key) => values.get(key),
    (key, copy) => values.set(key, copy),
  );
  return {
    values,
    slabs,
    put(key, text) {
      const before = values.get(key);
      values.set(key, slabs.keep(key, Buffer.from(text)));
      if (before) slabs.release(before);
    },
    remove(key) {
      const before = values.get(key);
      values.delete(key);
      if (before) slabs.release(before);
    },
  };
}

describe('slabs', () => {
  it('copies the bytes, many values to one allocation', LIMIT, () => {
    const o = owner();
    for (let i = 0; i < 1000; i++) o.put(`k${i}`, `value ${i} `.repeat(10));
    for (let i = 0; i < 1000; i++) assert.equal(o.values.get(`k${i}`)!.toString(), `value ${i} `.repeat(10));
    const allocations = new Set([...o.values.values()].map((b) => b.buffer));
    assert.ok(allocations.size <= 10, `${allocations.size} allocations for 1000 values`);
  });

  it('slabs stay small (64 KiB), so that freed memory in the malloc heap can be reused for them', LIMIT, () => {
    const o = owner();
    // 5,000 objects of 10 KiB, as the slow-watcher probe writes.
    for (let i = 0; i < 5000; i++) o.put(`k${i}`, `${i} `.padEnd(10 * 1024, 'x'));
    const usage = o.slabs.usage();
    assert.equal(LAST_SLAB, 64 * 1024);
    assert.ok(usage.allocated / usage.slabs <= 64 * 1024, `${usage.slabs} slabs of ${usage.allocated} bytes`);
    assert.ok(usage.allocated <= 1.1 * usage.live, `${usage.allocated} bytes in slabs for ${usage.live} live`);
    for (let i = 0; i < 5000; i += 499) assert.equal(o.values.get(`k${i}`)!.toString(), `${i} `.padEnd(10 * 1024, 'x'));
  });

  it('values larger than a slab share nothing', LIMIT, () => {
    const o = owner();
    o.put('big', 'x'.repeat(100_000));
    o.put('small', 'y');
    assert.equal(o.values.get('big')!.toString(), 'x'.repeat(100_000));
    assert.notEqual(o.values.get('big')!.buffer, o.values.get('small')!.buffer);
  });

  it('churn next to long-lived values: slabs mostly gone are emptied, memory stays about twice the live bytes', LIMIT, () => {
    const o = owner();
    const hot = 'h'.repeat(500);
    for (let i = 0; i < 20_000; i++) {
      o.put('hot', `${i} ${hot}`);
      // One long-lived value among every 50 versions of the hot key: each slab has some.
      if (i % 50 === 0) o.put(`long-${i}`, `long ${i}`);
      if (i % 100 === 50) o.remove(`long-${i - 50}`);
    }
    const live = [...o.values.values()].reduce((n, b) => n + b.length, 0);
    const usage = o.slabs.usage();
    assert.equal(usage.live, live);
    assert.ok(usage.allocated <= 2 * live + 2 * LAST_SLAB, `${usage.allocated} bytes in slabs for ${live} live`);
    assert.equal(o.values.get('hot')!.toString(), `19999 ${hot}`);
    for (const [key, value] of o.values) if (key.startsWith('long-')) assert.equal(value.toString(), `long ${key.slice(5)}`);
  });

  it('through the watch cache: after churn every get, list and exact-revision list gives the right bytes', LIMIT, async () => {
    // Values copied (the store says it does not keep them), as over SQLite or etcd.
    const storage = new (class extends MemoryStorage {
      override readonly keepsValues = false;
    })();
    const cacher = await Cacher.start(storage, '/r/', { windowMs: 60_000 });
    try {
      const pad = 'p'.repeat(300);
      let hot = await storage.create('/r/hot', () => Buffer.from(`0 ${pad}`));
      const revisions: Array<{ rev: number; text: string }> = [];
      for (let i = 1; i < 3000; i++) {
        hot = await storage.update('/r/hot', hot.modRevision, () => Buffer.from(`${i} ${pad}`));
        if (i % 40 === 0) await storage.create(`/r/long-${String(i).padStart(5, '0')}`, () => Buffer.from(`long ${i}`));
        if (i % 500 === 0) revisions.push({ rev: hot.modRevision, text: `${i} ${pad}` });
      }
      assert.equal(cacher.get('/r/hot')!.toString(), `2999 ${pad}`);
      const listed = cacher.list({ prefix: '/r/' }).items.map((b) => b.toString());
      assert.equal(listed.length, 1 + Math.floor(2999 / 40));
      assert.equal(listed[0], `2999 ${pad}`);
      for (let i = 40, n = 1; i < 3000; i += 40, n++) assert.equal(listed[n], `long ${i}`);
      for (const { rev, text } of revisions) {
        const at = cacher.list({ prefix: '/r/hot', revision: rev }).items.map((b) => b.toString());
        assert.deepEqual(at, [text]);
      }
    } finally {
      cacher.stop();
    }
  });
});
