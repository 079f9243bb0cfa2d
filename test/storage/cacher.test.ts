// The watch cache over a MemoryStorage: current and exact-revision lists, paging with remaining
// counts, filters, gets, watches from a revision (history then live, in order, only its prefix),
// Compacted for what the window or the storage no longer holds, and stopping. Each case runs twice:
// sharing the store's values (memory storage keeps them) and with the cache's own copies in slabs
// (as over SQLite or etcd).
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { Cacher, type CacheEvent, type CacherOptions } from '../../src/storage/cacher.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { StorageError, type Watcher } from '../../src/storage/types.js';
import { sleep, until } from '../helpers.js';
import { jsonWatchFrame } from '../../src/encoding/derived.js';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const LIMIT = { timeout: 5_000 };
const PREFIX = '/r/';

/** Values are JSON strings, so a watch frame is a JSON document. */
const value = (text: string): Buffer => Buffer.from(JSON.stringify(text));
const texts = (items: readonly Buffer[]): string[] => items.map((b) => JSON.parse(b.toString()) as string);

/** A memory storage that says it does not keep its values: the cache copies them into its slabs. */
class CopiedStorage extends MemoryStorage {
  override readonly keepsValues = false;
}

/** Creates or updates a key; the write's revision. */
async function put(storage: MemoryStorage, key: string, text: string): Promise<number> {
  const current = await storage.get(key);
  const stored = current ? await storage.update(key, current.modRevision, () => value(text)) : await storage.create(key, () => value(text));
  return stored.modRevision;
}

async function del(storage: MemoryStorage, key: string): Promise<number> {
  return (await storage.delete(key)).modRevision;
}

function isCompacted(oldest: number): (err: unknown) => boolean {
  return (err) => {
    assert.ok(err instanceof StorageError, `expected StorageError, got ${String(err)}`);
    assert.equal(err.code, 'Compacted');
    assert.equal(err.revision, oldest);
    return true;
  };
}

type Open = (cacher: Cacher, from: number, listener: (e: CacheEvent) => void, ended?: () => void) => Watcher;

/** The two ways a watch is handed its changes: while each is applied (informers), and in turns (the API's watches). */
const WAYS: ReadonlyArray<readonly [string, Open]> = [
  ['handed over as applied', (c, from, listener, ended) => c.watch(from, listener, ended)],
  ['handed over in turns', (c, from, listener, ended) => c.watchInTurns(from, listener, ended)],
];

/** A watch's events as "type key value@rev". */
function record(cacher: Cacher, from: number, open: Open = WAYS[0]![1]): { seen: string[]; stop: () => void } {
  const seen: string[] = [];
  const w = open(cacher, from, (e: CacheEvent) => seen.push(`${e.type} ${e.key} ${JSON.parse(e.value.toString())}@${e.rev}`));
  return { seen, stop: () => w.stop() };
}

const started: Cacher[] = [];
async function start(storage: MemoryStorage, options: Partial<CacherOptions> = {}, prefix = PREFIX): Promise<Cacher> {
  const cacher = await Cacher.start(storage, prefix, { windowMs: 60_000, ...options });
  started.push(cacher);
  return cacher;
}
afterEach(() => {
  for (const c of started.splice(0)) c.stop();
});

for (const [label, Store] of [['values shared with memory storage', MemoryStorage], ['values copied into slabs', CopiedStorage]] as const) {
  describe(`watch cache (${label}): lists and gets`, () => {
    it('lists the current objects of its prefix in key order, at the storage revision', LIMIT, async () => {
      const storage = new Store();
      await put(storage, '/r/b', 'b1');
      await put(storage, '/other/x', 'x1');
      await put(storage, '/r/a', 'a1');
      const cacher = await start(storage);
      await put(storage, '/r/c', 'c1');
      await put(storage, '/rr/d', 'not mine');
      const list = cacher.list({ prefix: PREFIX });
      assert.deepEqual(texts(list.items), ['a1', 'b1', 'c1']);
      assert.equal(list.revision, storage.currentRevision());
      assert.equal(list.revision, 5);
      assert.equal(list.continueAfter, undefined);
    });

    it('lists a narrower prefix (one namespace) only', LIMIT, async () => {
      const storage = new Store();
      for (const key of ['/r/ns1/a', '/r/ns1/b', '/r/ns2/a', '/r/ns10/a']) await put(storage, key, key);
      const cacher = await start(storage);
      assert.deepEqual(texts(cacher.list({ prefix: '/r/ns1/' }).items), ['/r/ns1/a', '/r/ns1/b']);
      assert.deepEqual(texts(cacher.list({ prefix: '/r/ns2/' }).items), ['/r/ns2/a']);
      assert.deepEqual(texts(cacher.list({ prefix: '/r/ns3/' }).items), []);
    });

    it('lists the state at an exact retained revision', LIMIT, async () => {
      const storage = new Store();
      const cacher = await start(storage);
      assert.equal(await put(storage, '/r/a', 'a1'), 1);
      assert.equal(await put(storage, '/r/b', 'b1'), 2);
      assert.equal(await put(storage, '/r/a', 'a2'), 3);
      assert.equal(await del(storage, '/r/b'), 4);
      assert.equal(await put(storage, '/r/c', 'c1'), 5);
      const at = (revision: number) => {
        const list = cacher.list({ prefix: PREFIX, revision });
        assert.equal(list.revision, revision);
        return texts(list.items);
      };
      assert.deepEqual(at(0), []);
      assert.deepEqual(at(1), ['a1']);
      assert.deepEqual(at(2), ['a1', 'b1']);
      assert.deepEqual(at(3), ['a2', 'b1']);
      assert.deepEqual(at(4), ['a2']);
      assert.deepEqual(at(5), ['a2', 'c1']);
    });

    it('started late, it knows the storage\'s retained history; before the compacted revision it is Compacted', LIMIT, async () => {
      const storage = new Store();
      await put(storage, '/r/a', 'a1'); // 1
      await put(storage, '/r/b', 'b1'); // 2
      await put(storage, '/r/a', 'a2'); // 3
      await del(storage, '/r/b'); // 4
      await put(storage, '/r/c', 'c1'); // 5
      const full = await start(storage);
      assert.deepEqual(texts(full.list({ prefix: PREFIX, revision: 2 }).items), ['a1', 'b1']);
      // Keys created within the replayed history are absent before their creates.
      assert.deepEqual(texts(full.list({ prefix: PREFIX, revision: 1 }).items), ['a1']);
      assert.deepEqual(texts(full.list({ prefix: PREFIX, revision: 4 }).items), ['a2']);
      // A replayed create, changed after the start: both versions stay readable.
      await put(storage, '/r/c', 'c2'); // 6
      await until('the change', () => full.get('/r/c')?.toString() === JSON.stringify('c2'), 2000, 1);
      assert.deepEqual(texts(full.list({ prefix: PREFIX, revision: 5 }).items), ['a2', 'c1']);
      assert.deepEqual(texts(full.list({ prefix: PREFIX, revision: 6 }).items), ['a2', 'c2']);

      await storage.compact(3);
      const later = await start(storage);
      assert.equal(later.oldestRevision(), 3);
      assert.deepEqual(texts(later.list({ prefix: PREFIX, revision: 3 }).items), ['a2', 'b1']);
      assert.deepEqual(texts(later.list({ prefix: PREFIX, revision: 4 }).items), ['a2']);
      assert.deepEqual(texts(later.list({ prefix: PREFIX }).items), ['a2', 'c2']);
      assert.throws(() => later.list({ prefix: PREFIX, revision: 2 }), isCompacted(3));
    });

    it('gets the current value of a key; a deleted or unknown key is undefined', LIMIT, async () => {
      const storage = new Store();
      await put(storage, '/r/a', 'a1');
      const cacher = await start(storage);
      assert.equal(cacher.get('/r/a')?.toString(), '"a1"');
      await put(storage, '/r/a', 'a2');
      assert.equal(cacher.get('/r/a')?.toString(), '"a2"');
      await del(storage, '/r/a');
      assert.equal(cacher.get('/r/a'), undefined);
      assert.equal(cacher.get('/r/never'), undefined);
    });

    it('a list and a get give the same Buffer: the store\'s own, or (copied) the cache\'s copy, many to an allocation', LIMIT, async () => {
      const storage = new Store();
      const cacher = await start(storage);
      for (let i = 0; i < 50; i++) await put(storage, `/r/k${String(i).padStart(2, '0')}`, `v${i}`.repeat(10));
      await put(storage, '/r/k00', 'changed');
      const stored = await storage.get('/r/k00');
      const listed = cacher.list({ prefix: PREFIX }).items;
      assert.equal(cacher.get('/r/k00'), listed[0]);
      assert.deepEqual(texts(listed), Array.from({ length: 50 }, (_, i) => (i === 0 ? 'changed' : `v${i}`.repeat(10))));
      if (!storage.keepsValues) {
        assert.notEqual(listed[0], stored!.value);
        assert.ok(new Set(listed.map((b) => b.buffer)).size <= 2, 'the copies share slabs');
      } else {
        assert.equal(listed[0], stored!.value);
      }
    });
  });

  describe(`watch cache (${label}): an index of the current objects`, () => {
    // Values "node/name": the index files each under its node, as pods under spec.nodeName.
    const nodeOf = (v: Buffer): string => (JSON.parse(v.toString()) as string).split('/')[0]!;
    const onNode = (node: string) => (v: Buffer) => nodeOf(v) === node;

    it('lists from the index what a scan with the same filter lists, through creates, moves and deletes', LIMIT, async () => {
      const storage = new Store();
      for (let i = 0; i < 12; i++) await put(storage, `${PREFIX}ns${i % 2}/p${i}`, `n${i % 3}/p${i}`);
      const cacher = await start(storage);
      const both = (node: string, prefix = PREFIX, limit?: number) => {
        const scan = cacher.list({ prefix, filter: onNode(node), limit });
        const indexed = cacher.list({ prefix, filter: onNode(node), limit, keys: cacher.indexedKeys('node', nodeOf, node) });
        assert.deepEqual(texts(indexed.items), texts(scan.items));
        assert.equal(indexed.continueAfter, scan.continueAfter);
        assert.equal(indexed.revision, scan.revision);
        return texts(indexed.items);
      };
      assert.deepEqual(both('n0'), ['n0/p0', 'n0/p6', 'n0/p3', 'n0/p9']);
      // Made before these changes: kept up to date by them.
      await put(storage, `${PREFIX}ns0/p0`, 'n2/p0'); // moved
      await del(storage, `${PREFIX}ns1/p3`);
      await put(storage, `${PREFIX}ns1/p99`, 'n0/p99');
      assert.deepEqual(both('n0'), ['n0/p6', 'n0/p9', 'n0/p99']);
      assert.deepEqual(both('n2'), ['n2/p0', 'n2/p2', 'n2/p8', 'n2/p11', 'n2/p5']);
      assert.deepEqual(both('n0', `${PREFIX}ns1/`), ['n0/p9', 'n0/p99']);
      assert.deepEqual(both('nowhere'), []);
      // Pages: the same items and the same continue point as the scan.
      assert.deepEqual(both('n2', PREFIX, 2), ['n2/p0', 'n2/p2']);
      const page2 = cacher.list({ prefix: PREFIX, filter: onNode('n2'), limit: 2, afterKey: `${PREFIX}ns0/p2`, keys: cacher.indexedKeys('node', nodeOf, 'n2') });
      assert.deepEqual(texts(page2.items), ['n2/p8', 'n2/p11']);
      assert.equal(page2.continueAfter, `${PREFIX}ns1/p11`);
      assert.throws(() => cacher.list({ prefix: PREFIX, revision: cacher.revision(), keys: [] }), /current state only/);
    });
  });

  describe(`watch cache (${label}): paging`, () => {
    async function fiveKeys(): Promise<{ storage: MemoryStorage; cacher: Cacher }> {
      const storage = new Store();
      const cacher = await start(storage);
      for (const k of ['k1', 'k2', 'k3', 'k4', 'k5']) await put(storage, `/r/${k}`, k);
      return { storage, cacher };
    }

    it('pages with limit and continueAfter, counting what remains only when asked', LIMIT, async () => {
      const { cacher } = await fiveKeys();
      const first = cacher.list({ prefix: PREFIX, limit: 2, countRemaining: true });
      assert.deepEqual(texts(first.items), ['k1', 'k2']);
      assert.equal(first.continueAfter, '/r/k2');
      assert.equal(first.remaining, 3);
      const uncounted = cacher.list({ prefix: PREFIX, limit: 2 });
      assert.equal(uncounted.continueAfter, '/r/k2');
      assert.equal(uncounted.remaining, undefined);

      const second = cacher.list({ prefix: PREFIX, limit: 2, afterKey: first.continueAfter, countRemaining: true });
      assert.deepEqual(texts(second.items), ['k3', 'k4']);
      assert.equal(second.continueAfter, '/r/k4');
      assert.equal(second.remaining, 1);

      const last = cacher.list({ prefix: PREFIX, limit: 2, afterKey: second.continueAfter, countRemaining: true });
      assert.deepEqual(texts(last.items), ['k5']);
      assert.equal(last.continueAfter, undefined);
      assert.equal(last.remaining, undefined);
    });

    it('a page that ends exactly at the last item says nothing follows', LIMIT, async () => {
      const { cacher } = await fiveKeys();
      const page = cacher.list({ prefix: PREFIX, limit: 5, countRemaining: true });
      assert.equal(page.items.length, 5);
      assert.equal(page.continueAfter, undefined);
      assert.equal(page.remaining, undefined);
      const rest = cacher.list({ prefix: PREFIX, limit: 3, afterKey: '/r/k2' });
      assert.deepEqual(texts(rest.items), ['k3', 'k4', 'k5']);
      assert.equal(rest.continueAfter, undefined);
    });

    it('startKey is inclusive: a continue key (last key + "\\u0000") starts right after the last item', LIMIT, async () => {
      const { cacher } = await fiveKeys();
      assert.deepEqual(texts(cacher.list({ prefix: PREFIX, startKey: '/r/k2\u0000', limit: 2 }).items), ['k3', 'k4']);
      assert.deepEqual(texts(cacher.list({ prefix: PREFIX, startKey: '/r/k2', limit: 2 }).items), ['k2', 'k3']);
      // A start before the prefix starts at the prefix.
      assert.deepEqual(texts(cacher.list({ prefix: PREFIX, startKey: '/a', limit: 1 }).items), ['k1']);
    });

    it('deleted keys are skipped and not counted as remaining; no next page when only deleted keys follow', LIMIT, async () => {
      const { storage, cacher } = await fiveKeys();
      await del(storage, '/r/k2');
      const page = cacher.list({ prefix: PREFIX, limit: 2, countRemaining: true });
      assert.deepEqual(texts(page.items), ['k1', 'k3']);
      assert.equal(page.continueAfter, '/r/k3');
      assert.equal(page.remaining, 2);
      await del(storage, '/r/k4');
      await del(storage, '/r/k5');
      const end = cacher.list({ prefix: PREFIX, limit: 2, countRemaining: true });
      assert.deepEqual(texts(end.items), ['k1', 'k3']);
      assert.equal(end.continueAfter, undefined);
      assert.equal(end.remaining, undefined);
    });

    it('pages at an exact older revision count what existed then', LIMIT, async () => {
      const { storage, cacher } = await fiveKeys();
      const then = storage.currentRevision();
      await del(storage, '/r/k2');
      await put(storage, '/r/k6', 'k6');
      const page = cacher.list({ prefix: PREFIX, revision: then, limit: 2, countRemaining: true });
      assert.deepEqual(texts(page.items), ['k1', 'k2']);
      assert.equal(page.continueAfter, '/r/k2');
      assert.equal(page.remaining, 3); // k3, k4, k5: not k6, written later
      const next = cacher.list({ prefix: PREFIX, revision: then, limit: 3, afterKey: '/r/k2', countRemaining: true });
      assert.deepEqual(texts(next.items), ['k3', 'k4', 'k5']);
      assert.equal(next.continueAfter, undefined);
      const now = cacher.list({ prefix: PREFIX, limit: 2, countRemaining: true });
      assert.deepEqual(texts(now.items), ['k1', 'k3']);
      assert.equal(now.remaining, 3); // k4, k5, k6
    });

    it('filters before the limit; remaining counts only matching items', LIMIT, async () => {
      const storage = new Store();
      const cacher = await start(storage);
      const values = { k1: 'x1', k2: 'y2', k3: 'x3', k4: 'y4', k5: 'x5', k6: 'y6' };
      for (const [k, v] of Object.entries(values)) await put(storage, `/r/${k}`, v);
      const isX = (b: Buffer) => b.toString().startsWith('"x');
      assert.deepEqual(texts(cacher.list({ prefix: PREFIX, filter: isX }).items), ['x1', 'x3', 'x5']);
      const page = cacher.list({ prefix: PREFIX, filter: isX, limit: 2, countRemaining: true });
      assert.deepEqual(texts(page.items), ['x1', 'x3']);
      assert.equal(page.continueAfter, '/r/k3');
      assert.equal(page.remaining, 1);
      const last = cacher.list({ prefix: PREFIX, filter: isX, limit: 2, afterKey: '/r/k3', countRemaining: true });
      assert.deepEqual(texts(last.items), ['x5']);
      assert.equal(last.continueAfter, undefined, 'k6 follows but does not match');
      const exact = cacher.list({ prefix: PREFIX, filter: isX, limit: 3 });
      assert.equal(exact.continueAfter, undefined, 'nothing matching follows x5');
    });
  });

  for (const [way, open] of WAYS) {
    describe(`watch cache (${label}): watches ${way}`, () => {
      it('delivers the retained changes after the revision, then live ones, in order', LIMIT, async () => {
        const storage = new Store();
        const cacher = await start(storage);
        await put(storage, '/r/a', 'a1'); // 1
        await put(storage, '/r/b', 'b1'); // 2
        await put(storage, '/r/a', 'a2'); // 3
        await del(storage, '/r/b'); // 4
        const w = record(cacher, 2, open);
        await put(storage, '/r/c', 'c1'); // 5
        await until('three events', () => w.seen.length >= 3, 2000, 1);
        assert.deepEqual(w.seen, ['update /r/a a2@3', 'delete /r/b b1@4', 'create /r/c c1@5']);
        w.stop();
      });

      it('a watch from now sees only later changes; from a revision not reached yet, only those after it', LIMIT, async () => {
        const storage = new Store();
        const cacher = await start(storage);
        await put(storage, '/r/a', 'a1');
        const now = cacher.revision();
        const fromNow = record(cacher, now, open);
        const future = record(cacher, now + 2, open);
        await put(storage, '/r/a', 'a2');
        await put(storage, '/r/a', 'a3');
        await put(storage, '/r/a', 'a4');
        await until('three events', () => fromNow.seen.length >= 3, 2000, 1);
        assert.deepEqual(fromNow.seen, ['update /r/a a2@2', 'update /r/a a3@3', 'update /r/a a4@4']);
        assert.deepEqual(future.seen, ['update /r/a a4@4']);
      });

      it('sees only its own prefix; writes elsewhere move the revision but not lastChangeRevision', LIMIT, async () => {
        const storage = new Store();
        await put(storage, '/r/a', 'a1'); // 1
        await put(storage, '/other/x', 'x1'); // 2
        const cacher = await start(storage);
        assert.equal(cacher.lastChangeRevision(), 1);
        assert.equal(cacher.revision(), 2);
        const w = record(cacher, 0, open);
        await put(storage, '/rr/y', 'y1'); // 3: shares the first characters only
        await put(storage, '/other/x', 'x2'); // 4
        assert.equal(cacher.lastChangeRevision(), 1);
        assert.equal(cacher.revision(), 4);
        await put(storage, '/r/b', 'b1'); // 5
        assert.equal(cacher.lastChangeRevision(), 5);
        await del(storage, '/r/a'); // 6
        assert.equal(cacher.lastChangeRevision(), 6);
        await until('three events', () => w.seen.length >= 3, 2000, 1);
        assert.deepEqual(w.seen, ['create /r/a a1@1', 'create /r/b b1@5', 'delete /r/a a1@6']);
      });

      it('gives every watcher the same event, framed once by the derived cache', LIMIT, async () => {
        const storage = new Store();
        const cacher = await start(storage);
        const got: CacheEvent[] = [];
        const one = open(cacher, 0, (e) => got.push(e));
        const two = open(cacher, 0, (e) => got.push(e));
        await put(storage, '/r/a', 'a1');
        await until('both watchers', () => got.length >= 2, 2000, 1);
        const [first, second] = got as [CacheEvent, CacheEvent];
        assert.equal(first, second);
        const frame = jsonWatchFrame('ADDED', first.value);
        assert.equal(frame.toString(), '{"type":"ADDED","object":"a1"}\n');
        assert.equal(jsonWatchFrame('ADDED', second.value), frame);
        assert.equal(jsonWatchFrame('MODIFIED', first.value).toString(), '{"type":"MODIFIED","object":"a1"}\n');
        one.stop();
        two.stop();
      });

      it('a delete event carries the last value and the previous one', LIMIT, async () => {
        const storage = new Store();
        const cacher = await start(storage);
        const got: CacheEvent[] = [];
        open(cacher, 0, (e) => got.push(e));
        await put(storage, '/r/a', 'a1');
        await put(storage, '/r/a', 'a2');
        await del(storage, '/r/a');
        await until('three events', () => got.length >= 3, 2000, 1);
        assert.deepEqual(got.map((e) => [e.type, e.value.toString(), e.prevValue?.toString()]), [
          ['create', '"a1"', undefined],
          ['update', '"a2"', '"a1"'],
          ['delete', '"a2"', '"a2"'],
        ]);
      });

      it('throws Compacted for a revision before what the storage retained', LIMIT, async () => {
        const storage = new Store();
        for (const v of ['1', '2', '3', '4']) await put(storage, '/r/a', v);
        await storage.compact(2);
        const cacher = await start(storage);
        assert.throws(() => open(cacher, 1, () => {}), isCompacted(2));
        const w = record(cacher, 2, open);
        await until('two events', () => w.seen.length >= 2, 2000, 1);
        assert.deepEqual(w.seen, ['update /r/a 3@3', 'update /r/a 4@4']);
      });
    });

  }
  describe(`watch cache (${label}): history window`, () => {
    it('forgets changes older than the window (injected clock): watches and exact lists before them are Compacted', LIMIT, async () => {
      let clock = 1_000;
      const storage = new Store();
      const cacher = await start(storage, { windowMs: 100, now: () => clock });
      await put(storage, '/r/a', 'a1'); // 1 at 1000
      clock = 1_050;
      await put(storage, '/r/b', 'b1'); // 2 at 1050
      await put(storage, '/r/a', 'a2'); // 3 at 1050
      assert.equal(cacher.oldestRevision(), 0, 'nothing is older than the window yet');
      assert.deepEqual(texts(cacher.list({ prefix: PREFIX, revision: 0 }).items), []);

      clock = 1_120; // the horizon is now 1020: revision 1 falls out
      assert.equal(cacher.oldestRevision(), 1);
      assert.throws(() => cacher.watch(0, () => {}), isCompacted(1));
      assert.throws(() => cacher.list({ prefix: PREFIX, revision: 0 }), isCompacted(1));
      assert.deepEqual(texts(cacher.list({ prefix: PREFIX, revision: 1 }).items), ['a1']);
      assert.deepEqual(texts(cacher.list({ prefix: PREFIX, revision: 2 }).items), ['a1', 'b1']);
      const w = record(cacher, 1);
      await until('two events', () => w.seen.length >= 2, 2000, 1);
      assert.deepEqual(w.seen, ['create /r/b b1@2', 'update /r/a a2@3']);

      clock = 10_000; // everything falls out; the current state stays
      assert.equal(cacher.oldestRevision(), 3);
      assert.throws(() => cacher.list({ prefix: PREFIX, revision: 2 }), isCompacted(3));
      assert.deepEqual(texts(cacher.list({ prefix: PREFIX }).items), ['a2', 'b1']);
      assert.deepEqual(texts(cacher.list({ prefix: PREFIX, revision: 3 }).items), ['a2', 'b1']);
    });

    it('once a deletion leaves the window, the key is gone from gets, pages and counts', LIMIT, async () => {
      let clock = 0;
      const storage = new Store();
      const cacher = await start(storage, { windowMs: 100, now: () => clock });
      for (const k of ['k1', 'k2', 'k3']) await put(storage, `/r/${k}`, k);
      await del(storage, '/r/k3'); // 4
      clock = 1_000;
      assert.equal(cacher.oldestRevision(), 4);
      const page = cacher.list({ prefix: PREFIX, limit: 1, countRemaining: true });
      assert.deepEqual(texts(page.items), ['k1']);
      assert.equal(page.remaining, 1);
      assert.equal(cacher.get('/r/k3'), undefined);
      assert.deepEqual(texts(cacher.list({ prefix: PREFIX, revision: 4 }).items), ['k1', 'k2']);
    });

    it('keeps at most maxEvents changes, whatever their age', LIMIT, async () => {
      const storage = new Store();
      const cacher = await start(storage, { maxEvents: 2 });
      for (const v of ['1', '2', '3', '4']) await put(storage, '/r/a', v);
      assert.equal(cacher.oldestRevision(), 2);
      assert.throws(() => cacher.watch(1, () => {}), isCompacted(2));
      const w = record(cacher, 2);
      await until('two events', () => w.seen.length >= 2, 2000, 1);
      assert.deepEqual(w.seen, ['update /r/a 3@3', 'update /r/a 4@4']);
    });

    it('across thousands of changes dropped, the retained ones and the state at each retained revision stay right', LIMIT, async () => {
      const storage = new Store();
      const cacher = await start(storage, { maxEvents: 300 });
      // Keys a..e written in turn; every 7th write deletes the key instead.
      const state = new Map<string, string>();
      const states: Array<Map<string, string>> = [new Map()];
      for (let i = 1; i <= 5000; i++) {
        const key = `/r/${'abcde'[i % 5]}`;
        if (i % 7 === 0 && state.has(key)) {
          await del(storage, key);
          state.delete(key);
        } else {
          await put(storage, key, `v${i}`);
          state.set(key, `v${i}`);
        }
        states.push(new Map(state));
      }
      const oldest = cacher.oldestRevision();
      assert.equal(oldest, 5000 - 300);
      for (const rev of [oldest, oldest + 1, 4800, 5000]) {
        const expected = [...states[rev]!].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, v]) => v);
        assert.deepEqual(texts(cacher.list({ prefix: PREFIX, revision: rev }).items), expected, `state at ${rev}`);
      }
      const w = record(cacher, 4990);
      await until('ten events', () => w.seen.length >= 10, 2000, 1);
      assert.equal(w.seen.length, 10);
      assert.match(w.seen[9]!, /@5000$/);
      w.stop();
    });
  });

  for (const [way, open] of WAYS) {
    describe(`watch cache (${label}): stopping, watches ${way}`, () => {
      it('a stopped watcher gets nothing more; one stopped before its replay gets nothing at all', LIMIT, async () => {
        const storage = new Store();
        const cacher = await start(storage);
        await put(storage, '/r/a', 'a1');
        const early = record(cacher, 0, open);
        early.stop();
        const w = record(cacher, 0, open);
        assert.equal(cacher.watcherCount(), 1);
        await until('replay', () => w.seen.length >= 1, 2000, 1);
        w.stop();
        assert.equal(cacher.watcherCount(), 0);
        await put(storage, '/r/a', 'a2');
        await sleep(20);
        assert.deepEqual(w.seen, ['create /r/a a1@1']);
        assert.deepEqual(early.seen, []);
      });

      it('a throwing watcher does not keep the others from their events', LIMIT, async () => {
        const storage = new Store();
        const cacher = await start(storage);
        const warnings: string[] = [];
        const onWarning = (w: Error) => warnings.push(w.message);
        process.on('warning', onWarning);
        try {
          open(cacher, 0, () => {
            throw new Error('broken listener');
          });
          const good = record(cacher, 0, open);
          await sleep(5); // past the (empty) replay: the next events are live
          await put(storage, '/r/a', 'a1');
          await put(storage, '/r/a', 'a2');
          await until('both events', () => good.seen.length >= 2, 2000, 1);
          assert.deepEqual(good.seen, ['create /r/a a1@1', 'update /r/a a2@2']);
          await until('warnings', () => warnings.length >= 2, 2000, 1);
          assert.match(warnings[0]!, /broken listener/);
        } finally {
          process.off('warning', onWarning);
        }
      });

      it('a stopped cache no longer follows the storage and drops its watchers', LIMIT, async () => {
        const storage = new Store();
        const cacher = await start(storage);
        await put(storage, '/r/a', 'a1');
        const w = record(cacher, 0, open);
        await until('replay', () => w.seen.length >= 1, 2000, 1);
        cacher.stop();
        assert.equal(cacher.watcherCount(), 0);
        await put(storage, '/r/a', 'a2');
        await sleep(20);
        assert.equal(cacher.get('/r/a')?.toString(), '"a1"');
        assert.equal(cacher.lastChangeRevision(), 1);
        assert.deepEqual(w.seen, ['create /r/a a1@1']);
      });
    });
  }
  describe(`watch cache (${label}): watches handed over in turns`, () => {
    const aTurn = () => new Promise((resolve) => setImmediate(resolve));

    it('a change reaches them in a later turn, not while it is applied: each once, the same event for all', LIMIT, async () => {
      const storage = new Store();
      const cacher = await start(storage);
      const got: CacheEvent[][] = [[], [], []];
      const watchers = got.map((list) => cacher.watchInTurns(0, (e) => list.push(e)));
      await put(storage, '/r/a', 'a1');
      assert.deepEqual(got.map((list) => list.length), [0, 0, 0], 'not yet');
      assert.equal(watchers[0]!.caughtUp(), false);
      await aTurn();
      assert.deepEqual(got.map((list) => list.map((e) => `${e.type}@${e.rev}`)), [['create@1'], ['create@1'], ['create@1']]);
      assert.ok(got[1]![0] === got[0]![0] && got[2]![0] === got[0]![0], 'one CacheEvent for every watch');
      assert.equal(watchers[0]!.caughtUp(), true);
    });

    it('a long history is handed over whole and in order, some changes at a time', LIMIT, async () => {
      const storage = new Store();
      const cacher = await start(storage);
      for (let i = 1; i <= 300; i++) await put(storage, `/r/k${i % 7}`, `v${i}`);
      const w = record(cacher, 0, (c, from, listener) => c.watchInTurns(from, listener));
      await until('all 300', () => w.seen.length >= 300, 2000, 1);
      await sleep(10);
      assert.equal(w.seen.length, 300);
      assert.deepEqual(w.seen.map((line) => Number(line.split('@')[1])), Array.from({ length: 300 }, (_, i) => i + 1));
    });

    it('one whose changes leave the history before its turn is ended (its client resumes); the cache goes on', LIMIT, async () => {
      const storage = new Store();
      const cacher = await start(storage, { maxEvents: 3 });
      const seen: number[] = [];
      let ended = 0;
      cacher.watchInTurns(0, (e) => seen.push(e.rev), () => ended++);
      for (let i = 1; i <= 6; i++) await put(storage, '/r/a', `a${i}`);
      await aTurn();
      assert.equal(ended, 1);
      assert.deepEqual(seen, []);
      assert.equal(cacher.watcherCount(), 0);
      const later = record(cacher, cacher.revision(), (c, from, listener) => c.watchInTurns(from, listener));
      await put(storage, '/r/a', 'a7');
      await until('the next change', () => later.seen.length >= 1, 2000, 1);
      assert.deepEqual(later.seen, ['update /r/a a7@7']);
    });
  });
}

describe('what the cache keeps of its start', () => {
  /** A store that hands out new Buffers (as SQLite and etcd do) and remembers each weakly. */
  class HandingOutStorage extends CopiedStorage {
    readonly handedOut: Array<WeakRef<Buffer>> = [];
    private handOut(value: Buffer): Buffer {
      const copy = Buffer.from(value);
      this.handedOut.push(new WeakRef(copy));
      return copy;
    }

    override async list(...args: Parameters<MemoryStorage['list']>): ReturnType<MemoryStorage['list']> {
      const page = await super.list(...args);
      return { ...page, items: page.items.map((i) => ({ ...i, value: this.handOut(i.value) })) };
    }

    override watch(...[prefix, from, listener]: Parameters<MemoryStorage['watch']>): Watcher {
      return super.watch(prefix, from, (e) => listener({ ...e, value: this.handOut(e.value), ...(e.prevValue ? { prevValue: this.handOut(e.prevValue) } : {}) }));
    }
  }

  it('lets go of the values the store handed it at the start as views into larger buffers, current and replayed (it keeps copies)', LIMIT, async () => {
    const storage = new HandingOutStorage();
    // Some keys only current (compacted history), some with their changes replayed.
    for (let i = 0; i < 50; i++) await put(storage, `/r/old${i}`, `o${i}`);
    await storage.compact(storage.currentRevision());
    for (let i = 0; i < 50; i++) await put(storage, `/r/new${i % 10}`, `n${i}`);
    const cacher = await start(storage);
    const handedOut = storage.handedOut.length;
    assert.ok(handedOut >= 100, `${handedOut} values handed out`);
    assert.equal(cacher.list({ prefix: PREFIX }).items.length, 60);
    // A WeakRef made or read in this job holds its target until the job ends.
    await new Promise((resolve) => setImmediate(resolve));
    setFlagsFromString('--expose-gc');
    (runInNewContext('gc') as () => void)();
    const kept = storage.handedOut.filter((r) => r.deref() !== undefined).length;
    assert.equal(kept, 0, `${kept} of ${handedOut} values handed out at the start are still held`);
    // Its own copies serve it.
    assert.deepEqual(texts([cacher.get('/r/new3')!, cacher.get('/r/old7')!]), ['n43', 'o7']);
  });

  it('keeps the values read at its start that are allocations of their own (as SQLite\'s) as they are; later ones are copied', LIMIT, async () => {
    class OwnAllocations extends CopiedStorage {
      override async list(...args: Parameters<MemoryStorage['list']>): ReturnType<MemoryStorage['list']> {
        const page = await super.list(...args);
        return { ...page, items: page.items.map((i) => ({ ...i, value: own(i.value) })) };
      }

      override watch(...[prefix, from, listener]: Parameters<MemoryStorage['watch']>): Watcher {
        return super.watch(prefix, from, (e) => listener({ ...e, value: own(e.value), ...(e.prevValue ? { prevValue: own(e.prevValue) } : {}) }));
      }
    }
    const own = (b: Buffer): Buffer => {
      const copy = Buffer.allocUnsafeSlow(b.length);
      b.copy(copy);
      return copy;
    };
    const storage = new OwnAllocations();
    await put(storage, '/r/old', 'o');
    await storage.compact(storage.currentRevision());
    await put(storage, '/r/new', 'n1');
    await put(storage, '/r/new', 'n2');
    const cacher = await start(storage);
    const startValues = [cacher.get('/r/old')!, cacher.get('/r/new')!];
    assert.deepEqual(texts(startValues), ['o', 'n2']);
    for (const v of startValues) assert.equal(v.buffer.byteLength, v.length, 'the store\'s own allocation, not a view into a slab');
    assert.deepEqual(texts(cacher.list({ prefix: PREFIX, revision: storage.compactedRevision() + 1 }).items), ['n1', 'o']);

    await put(storage, '/r/old', 'o2');
    await until('the change', () => cacher.get('/r/old')?.toString() === JSON.stringify('o2'), 2000, 1);
    const later = cacher.get('/r/old')!;
    assert.ok(later.buffer.byteLength > later.length, 'a change is copied into a slab');
  });
});

describe('what the cache says of its copies', () => {
  it('tells each copy it keeps as current, with the value copied (none when it shares the store\'s values)', LIMIT, async () => {
    for (const [Store, copies] of [[CopiedStorage, true], [MemoryStorage, false]] as const) {
      const storage = new Store();
      const told: Array<[Buffer, Buffer]> = [];
      const cacher = await start(storage, { copied: (from, to) => told.push([from, to]) });
      await put(storage, '/r/a', 'a1');
      await put(storage, '/r/a', 'a2');
      await put(storage, '/r/b', 'b1');
      await del(storage, '/r/b');
      await until('the changes', () => cacher.get('/r/a')?.toString() === JSON.stringify('a2') && cacher.get('/r/b') === undefined, 2000, 1);
      if (!copies) {
        assert.equal(told.length, 0);
        continue;
      }
      // The three puts (a delete keeps nothing new): each copy is what the cache now serves, and equal to what the store gave.
      assert.deepEqual(told.map(([from, to]) => [texts([from])[0], texts([to])[0], from !== to]), [['a1', 'a1', true], ['a2', 'a2', true], ['b1', 'b1', true]]);
      assert.equal(told[1]![1], cacher.get('/r/a'));
    }
  });
});
