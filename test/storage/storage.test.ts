// One behavioural suite run against every Storage backend (memory, SQLite, etcd), plus SQLite-only
// checks (group commit, restart, batch rollback). etcd's tests run against a real etcd (skipped when
// /usr/bin/etcd is absent); etcd-only checks are in etcd-storage.test.ts.

import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareKeys, prefixEnd } from '../../src/storage/keys.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { EtcdStorage } from '../../src/storage/etcd/storage.js';
import { StorageError, type Encode, type Storage, type StorageErrorCode, type StorageEvent } from '../../src/storage/types.js';
import { sleep, until } from '../helpers.js';
import { EtcdProcess, etcdMissing } from './etcd-process.js';

const tmp = mkdtempSync(join(tmpdir(), 'capstan-storage-test-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
let fileSeq = 0;

/** An encoder whose bytes carry the revision, as the layer above does with resourceVersion. */
const enc =
  (name: string): Encode =>
  (rev) =>
    Buffer.from(`${name}@${rev}`);
const text = (b: Buffer | undefined): string | undefined => b?.toString();

function isError(code: StorageErrorCode, revision?: number): (err: unknown) => boolean {
  return (err) => {
    assert.ok(err instanceof StorageError, `expected StorageError, got ${String(err)}`);
    assert.equal(err.code, code);
    if (revision !== undefined) assert.equal(err.revision, revision);
    return true;
  };
}

function collect(store: Storage, prefix: string, from: number): { events: StorageEvent[]; stop: () => void } {
  const events: StorageEvent[] = [];
  const w = store.watch(prefix, from, (e) => events.push(e));
  return { events, stop: () => w.stop() };
}

const revs = (events: readonly StorageEvent[]): number[] => events.map((e) => e.modRevision);
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

interface Backend {
  name: string;
  /** Why this backend's tests are skipped here, if they are. */
  skip?: string;
  /** Concurrent writes get revisions in call order (a local queue); etcd orders them as they arrive. */
  callOrder: boolean;
  open(): Promise<Storage>;
  before?(): Promise<void>;
  after?(): Promise<void>;
}

/** For the etcd backend: the test encoder's bytes with the revision put in (as the server's stamp does for resourceVersion). */
const stampTestValue = (value: Buffer, revision: number): Buffer => Buffer.from(value.toString().replace(/@\d+$/, `@${revision}`));

let etcd: EtcdProcess | undefined;
let etcdPrefixSeq = 0;

const backends: Backend[] = [
  { name: 'MemoryStorage', callOrder: true, open: async () => new MemoryStorage() },
  {
    name: 'SqliteStorage',
    callOrder: true,
    open: async () => SqliteStorage.open(join(tmp, `db-${++fileSeq}.sqlite`)),
  },
  {
    // One etcd for the suite; each test has a key prefix of its own and counts revisions from the store's at open.
    name: 'EtcdStorage',
    skip: etcdMissing,
    callOrder: false,
    before: async () => {
      etcd = await EtcdProcess.start();
    },
    after: async () => {
      await etcd?.destroy();
    },
    open: () => EtcdStorage.open({ endpoints: [etcd!.url], prefix: `/test-${++etcdPrefixSeq}`, stamp: stampTestValue }),
  },
];

for (const backend of backends) {
  describe(backend.name, { skip: backend.skip, timeout: 120_000 }, () => {
    let store: Storage;
    /** The store's revision at open: 0 for a new memory or SQLite store, etcd's revision for etcd. */
    let base: number;
    /** The revision of the n-th write of a test. */
    const R = (n: number): number => base + n;
    before(async () => backend.before?.());
    after(async () => backend.after?.());
    beforeEach(async () => {
      store = await backend.open();
      base = store.currentRevision();
    });
    afterEach(async () => {
      await store.close();
    });

    it('creates, gets, updates and deletes', async () => {
      assert.equal(store.currentRevision(), R(0));
      const c = await store.create('/registry/pods/a', enc('a'));
      assert.deepEqual({ ...c, value: text(c.value) }, { key: '/registry/pods/a', value: `a@${R(1)}`, createRevision: R(1), modRevision: R(1) });
      const g = await store.get('/registry/pods/a');
      assert.equal(text(g?.value), `a@${R(1)}`);
      assert.equal(g?.modRevision, R(1));

      const u = await store.update('/registry/pods/a', R(1), enc('a2'));
      assert.deepEqual([text(u.value), u.createRevision, u.modRevision], [`a2@${R(2)}`, R(1), R(2)]);
      assert.equal((await store.get('/registry/pods/a'))?.modRevision, R(2));

      const d = await store.delete('/registry/pods/a');
      assert.deepEqual([text(d.value), d.createRevision, d.modRevision], [`a2@${R(2)}`, R(1), R(3)]);
      assert.equal(await store.get('/registry/pods/a'), undefined);
      assert.equal(store.currentRevision(), R(3));
      assert.equal(await store.get('/nothing'), undefined);
    });

    it('reports KeyExists, NotFound and Conflict with the current revision', async () => {
      await store.create('/k', enc('k'));
      await store.update('/k', R(1), enc('k'));
      await assert.rejects(store.create('/k', enc('again')), isError('KeyExists'));
      await assert.rejects(store.update('/missing', R(1), enc('x')), isError('NotFound'));
      await assert.rejects(store.delete('/missing'), isError('NotFound'));
      await assert.rejects(store.update('/k', R(1), enc('stale')), isError('Conflict', R(2)));
      await assert.rejects(store.delete('/k', R(1)), isError('Conflict', R(2)));
      assert.equal(text((await store.get('/k'))?.value), `k@${R(2)}`);
      assert.equal(store.currentRevision(), R(2), 'failed writes consume no revision');
      const d = await store.delete('/k', R(2));
      assert.equal(d.modRevision, R(3));
    });

    it('builds delete tombstones from the revision and the last value', async () => {
      await store.create('/t', enc('t'));
      const w = collect(store, '/t', R(1));
      const d = await store.delete('/t', undefined, (rev, last) => Buffer.from(`gone@${rev} was ${last.toString()}`));
      assert.equal(text(d.value), `gone@${R(2)} was t@${R(1)}`);
      await until('delete event', () => w.events.length === 1, 2000, 1);
      const [e] = w.events;
      assert.deepEqual([e?.type, text(e?.value), text(e?.prevValue), e?.createRevision, e?.modRevision], ['delete', `gone@${R(2)} was t@${R(1)}`, `t@${R(1)}`, R(1), R(2)]);
      w.stop();
    });

    it('lists by prefix with afterKey, limit and more', async () => {
      for (const k of ['/registry/pods/ns/b', '/registry/pods/ns/a', '/registry/pods2/x', '/registry/pod', '/registry/pods/ns/c']) {
        await store.create(k, enc(k));
      }
      const all = await store.list('/registry/pods/');
      assert.deepEqual(all.items.map((i) => i.key), ['/registry/pods/ns/a', '/registry/pods/ns/b', '/registry/pods/ns/c']);
      assert.equal(all.more, false);
      assert.equal(all.revision, R(5));
      assert.equal(text(all.items[0]?.value), `/registry/pods/ns/a@${R(2)}`);

      // No trailing slash: the sibling /registry/pods2 matches as a string prefix, /registry/pod does not.
      assert.deepEqual((await store.list('/registry/pods')).items.map((i) => i.key), [
        '/registry/pods/ns/a',
        '/registry/pods/ns/b',
        '/registry/pods/ns/c',
        '/registry/pods2/x',
      ]);

      const p1 = await store.list('/registry/pods/', { limit: 2 });
      assert.deepEqual(p1.items.map((i) => i.key), ['/registry/pods/ns/a', '/registry/pods/ns/b']);
      assert.equal(p1.more, true);
      const p2 = await store.list('/registry/pods/', { limit: 2, afterKey: '/registry/pods/ns/b' });
      assert.deepEqual(p2.items.map((i) => i.key), ['/registry/pods/ns/c']);
      assert.equal(p2.more, false);
      const exact = await store.list('/registry/pods/', { limit: 3 });
      assert.equal(exact.more, false);
      assert.equal((await store.list('/registry/pods/', { limit: 0 })).items.length, 3, 'limit 0 means no limit');
      assert.equal((await store.list('/registry/pods/', { afterKey: '/a' })).items.length, 3, 'afterKey before the prefix');
      assert.equal((await store.list('/registry/pods/', { afterKey: '/z' })).items.length, 0);
      assert.equal((await store.list('/none/')).items.length, 0);
      assert.equal((await store.list('')).items.length, 5, 'empty prefix lists everything');
    });

    it('lists only the keys last written at or before maxModRevision, with their values', async () => {
      for (const k of ['/registry/pods/ns/a', '/registry/pods/ns/b', '/registry/pods/ns/c']) await store.create(k, enc(k));
      const b = await store.get('/registry/pods/ns/b');
      await store.update('/registry/pods/ns/b', b!.modRevision, enc('/registry/pods/ns/b'));
      const unchanged = await store.list('/registry/pods/', { maxModRevision: R(2) });
      assert.deepEqual(unchanged.items.map((i) => [i.key, text(i.value)]), [['/registry/pods/ns/a', `/registry/pods/ns/a@${R(1)}`]]);
      assert.equal(unchanged.revision, R(4), 'read at the store\'s revision, not at maxModRevision');
      assert.deepEqual((await store.list('/registry/pods/', { maxModRevision: R(3) })).items.map((i) => i.key), ['/registry/pods/ns/a', '/registry/pods/ns/c']);
      assert.equal((await store.list('/registry/pods/', { maxModRevision: R(4) })).items.length, 3);
      assert.equal((await store.list('/registry/pods/', { maxModRevision: R(0) })).items.length, 0);
    });

    it('orders keys by code point, as SQLite does', async () => {
      for (const k of ['/u/\u{1F600}', '/u/\uFFFD', '/u/b', '/u/\u{10FFFF}x']) await store.create(k, enc(k));
      assert.deepEqual((await store.list('/u/')).items.map((i) => i.key), ['/u/b', '/u/\uFFFD', '/u/\u{1F600}', '/u/\u{10FFFF}x']);
      assert.equal(await store.count('/u/\u{10FFFF}'), 1);
      assert.equal(await store.count('/u/\uFFFD'), 1);
    });

    it('counts keys under a prefix', async () => {
      for (const k of ['/c/a', '/c/b', '/c2/a', '/d']) await store.create(k, enc(k));
      assert.equal(await store.count('/c/'), 2);
      assert.equal(await store.count('/c'), 3);
      assert.equal(await store.count('/x'), 0);
      assert.equal(await store.count(''), 4);
      await store.delete('/c/a');
      assert.equal(await store.count('/c/'), 1);
    });

    it('increases revisions strictly across keys', async () => {
      const seen: number[] = [];
      for (let i = 0; i < 10; i++) {
        seen.push((await store.create(`/r/${i}`, enc('x'))).modRevision);
        seen.push((await store.update(`/r/${i}`, seen[seen.length - 1] as number, enc('y'))).modRevision);
      }
      assert.deepEqual(seen, range(R(1), R(20)));
      assert.equal(store.currentRevision(), R(20));
    });

    it('watch replays history from a revision, then live events, in order', async () => {
      await store.create('/w/a', enc('a')); // 1
      await store.create('/other/x', enc('x')); // 2
      await store.update('/w/a', R(1), enc('a')); // 3
      await store.create('/w/b', enc('b')); // 4
      const w = collect(store, '/w/', R(1));
      assert.equal(w.events.length, 0, 'delivery is asynchronous');
      await store.delete('/w/a'); // 5
      await store.create('/w2/sibling', enc('s')); // 6
      await store.update('/w/b', R(4), enc('b')); // 7
      await until('four events', () => w.events.length >= 4, 2000, 1);
      await sleep(10);
      assert.deepEqual(revs(w.events), [R(3), R(4), R(5), R(7)]);
      assert.deepEqual(w.events.map((e) => e.type), ['update', 'create', 'delete', 'update']);
      assert.deepEqual(w.events.map((e) => text(e.prevValue)), [`a@${R(1)}`, undefined, `a@${R(3)}`, `b@${R(4)}`]);
      assert.equal(w.events[1]?.createRevision, R(4));
      w.stop();

      const fromZero = collect(store, '', R(0));
      await until('full replay', () => fromZero.events.length >= 7, 2000, 1);
      assert.deepEqual(revs(fromZero.events), range(R(1), R(7)));
      fromZero.stop();

      const future = collect(store, '', R(9));
      await store.create('/f/1', enc('f')); // 8
      await store.create('/f/2', enc('f')); // 9
      await store.create('/f/3', enc('f')); // 10
      await until('event after a future revision', () => future.events.length >= 1, 2000, 1);
      assert.deepEqual(revs(future.events), [R(10)]);
      future.stop();
    });

    it('watches of prefixes at several depths, started together, replay exactly the history under each', async () => {
      const keys = ['/registry/pods/ns1/a', '/registry/pods/ns2/b', '/registry/pods2/ns1/c', '/registry/apps/deployments/ns1/d', '/registry/apps/replicasets/ns1/e', '/registry/f', '/g'];
      for (const key of keys) await store.create(key, enc(key));
      await store.update('/registry/pods/ns1/a', R(1), enc('a2'));
      const prefixes = ['/registry/pods/', '/registry/pods/ns1/', '/registry/pods', '/registry/apps/', '/registry/apps/deployments/', '/registry/', '/', ''];
      const watches = prefixes.map((prefix) => ({ prefix, w: collect(store, prefix, R(0)) }));
      const written = [...keys, '/registry/pods/ns1/a'];
      for (const { prefix, w } of watches) {
        const expected = written.filter((k) => k.startsWith(prefix));
        await until(`${expected.length} events under ${JSON.stringify(prefix)}`, () => w.events.length >= expected.length, 2000, 1);
        await sleep(5);
        assert.deepEqual(w.events.map((e) => e.key), expected, `under ${JSON.stringify(prefix)}`);
        w.stop();
      }
    });

    it('watch misses and repeats nothing while writes are in flight', async () => {
      const watchers: { from: number; events: StorageEvent[]; stop: () => void }[] = [];
      const writes: Promise<unknown>[] = [];
      for (let i = 0; i < 150; i++) {
        writes.push(
          store.create(`/f/${i}`, enc('v')).then((s) => {
            // Right after a write resolves, before its event has been delivered anywhere.
            if (i % 20 === 0) watchers.push({ from: s.modRevision - 1, ...collect(store, '/f/', s.modRevision - 1) });
          }),
        );
        if (i % 10 === 5) {
          const from = Math.max(R(0), store.currentRevision() - 2);
          watchers.push({ from, ...collect(store, '/f/', from) });
          await new Promise((r) => setImmediate(r)); // let a batch commit between watchers
        }
      }
      await Promise.all(writes);
      const last = store.currentRevision();
      assert.equal(last, R(150));
      for (const w of watchers) await until(`events after ${w.from}`, () => w.events.length >= last - w.from, 2000, 1);
      await sleep(10);
      for (const w of watchers) {
        assert.deepEqual(revs(w.events), range(w.from + 1, last), `watcher from ${w.from}`);
        w.stop();
      }
    });

    it('watch throws Compacted below the compacted revision', async () => {
      for (let i = 0; i < 5; i++) await store.create(`/k/${i}`, enc('v'));
      await store.compact(R(3));
      assert.equal(store.compactedRevision(), R(3));
      assert.throws(() => store.watch('/k/', R(2), () => {}), isError('Compacted', R(3)));
      assert.throws(() => store.watch('/k/', R(0), () => {}), isError('Compacted', R(3)));
      const w = collect(store, '/k/', R(3));
      await until('retained history', () => w.events.length >= 2, 2000, 1);
      assert.deepEqual(revs(w.events), [R(4), R(5)]);
      w.stop();
      await store.compact(R(2)); // never goes backwards
      assert.equal(store.compactedRevision(), R(3));
      await store.compact(R(100)); // not beyond the current revision
      assert.equal(store.compactedRevision(), R(5));
    });

    it('stop() ends delivery, even of queued events', async () => {
      const w = collect(store, '/s/', R(0));
      await store.create('/s/1', enc('v'));
      await until('first event', () => w.events.length === 1, 2000, 1);
      w.stop();
      await store.create('/s/2', enc('v'));
      const queued = collect(store, '/s/', R(0));
      queued.stop(); // its replay was queued but not yet delivered
      await sleep(10);
      assert.equal(w.events.length, 1);
      assert.equal(queued.events.length, 0);
    });

    it('a throwing listener does not break other listeners', async () => {
      let thrown = 0;
      const bad = store.watch('/b/', R(0), () => {
        thrown++;
        throw new Error('listener failure (expected in this test)');
      });
      const good = collect(store, '/b/', R(0));
      await store.create('/b/1', enc('v'));
      await store.create('/b/2', enc('v'));
      await until('events for the good listener', () => good.events.length === 2, 2000, 1);
      assert.equal(thrown, 2);
      bad.stop();
      good.stop();
    });

    it('200 concurrent creates get distinct revisions', async () => {
      const before = store instanceof SqliteStorage ? store.commitCount : 0;
      const results = await Promise.all(Array.from({ length: 200 }, (_, i) => store.create(`/p/${i}`, enc(`p${i}`))));
      const set = new Set(results.map((r) => r.modRevision));
      assert.equal(set.size, 200);
      assert.deepEqual([...set].sort((a, b) => a - b), range(R(1), R(200)));
      results.forEach((r) => assert.equal(text(r.value), `p${r.key.slice(3)}@${r.modRevision}`));
      assert.equal(await store.count('/p/'), 200);
      if (store instanceof SqliteStorage) {
        const commits = store.commitCount - before;
        assert.ok(commits < 200, `expected group commit, got ${commits} commits for 200 writes`);
      }
    });

    it('a failed op in a batch does not affect the others', async () => {
      await store.create('/x/existing', enc('e')); // 1
      const ops = [
        store.create('/x/a', enc('a')),
        store.create('/x/existing', enc('dup')),
        store.update('/x/existing', 99, enc('stale')),
        store.create('/x/b', () => {
          throw new Error('encoder failed');
        }),
        store.update('/x/existing', R(1), enc('e2')),
        store.create('/x/c', enc('c')),
      ];
      const settled = await Promise.allSettled(ops);
      assert.deepEqual(settled.map((s) => s.status), ['fulfilled', 'rejected', 'rejected', 'rejected', 'fulfilled', 'fulfilled']);
      const value = (i: number) => (settled[i] as PromiseFulfilledResult<{ modRevision: number; value: Buffer }>).value;
      const written = [value(0).modRevision, value(4).modRevision, value(5).modRevision];
      if (backend.callOrder) {
        assert.deepEqual(written, [R(2), R(3), R(4)]);
        assert.ok(isError('Conflict', R(1))((settled[2] as PromiseRejectedResult).reason));
      } else {
        // etcd orders concurrent transactions as they reach it: the same revisions, in some order.
        assert.deepEqual([...written].sort((a, b) => a - b), [R(2), R(3), R(4)]);
        assert.ok(isError('Conflict')((settled[2] as PromiseRejectedResult).reason));
      }
      assert.equal(text(value(4).value), `e2@${value(4).modRevision}`);
      assert.ok(isError('KeyExists')((settled[1] as PromiseRejectedResult).reason));
      assert.equal(((settled[3] as PromiseRejectedResult).reason as Error).message, 'encoder failed');
      assert.equal(await store.get('/x/b'), undefined);
      assert.equal(store.currentRevision(), R(4));
    });

    it('rejects with Closed after close', async () => {
      await store.create('/c', enc('v'));
      await store.close();
      await assert.rejects(store.get('/c'), isError('Closed'));
      await assert.rejects(store.create('/d', enc('v')), isError('Closed'));
      await assert.rejects(store.list('/'), isError('Closed'));
      assert.throws(() => store.watch('/', R(0), () => {}), isError('Closed'));
      await store.close(); // idempotent
    });
  });
}

describe('SqliteStorage durability', () => {
  const path = (): string => join(tmp, `durable-${++fileSeq}.sqlite`);

  it('keeps keys, the revision and the compacted revision across restart', async () => {
    const file = path();
    let store = SqliteStorage.open(file);
    const writes = Array.from({ length: 50 }, (_, i) => store.create(`/r/${i}`, enc(`r${i}`)));
    await Promise.all(writes);
    await store.update('/r/7', 8, enc('r7b')); // 51
    await store.delete('/r/9'); // 52
    await store.compact(40);
    // Queued but not awaited: close() must commit it.
    const pending = store.create('/r/last', enc('last')); // 53
    await store.close();
    assert.equal((await pending).modRevision, 53);

    store = SqliteStorage.open(file);
    try {
      assert.equal(store.currentRevision(), 53);
      assert.equal(store.compactedRevision(), 40);
      assert.equal(await store.count('/r/'), 50);
      const r7 = await store.get('/r/7');
      assert.deepEqual([text(r7?.value), r7?.createRevision, r7?.modRevision], ['r7b@51', 8, 51]);
      assert.equal(await store.get('/r/9'), undefined);
      assert.throws(() => store.watch('/r/', 39, () => {}), isError('Compacted', 40));
      const w = collect(store, '/r/', 40);
      assert.equal((await store.create('/r/new', enc('n'))).modRevision, 54);
      await until('replay after restart', () => w.events.length >= 14, 2000, 1);
      assert.deepEqual(revs(w.events), range(41, 54));
      assert.deepEqual(w.events.slice(-3).map((e) => e.type), ['delete', 'create', 'create']);
      assert.equal(text(w.events.at(-3)?.value), 'r9@10', 'delete event carries the last value');
      w.stop();
    } finally {
      await store.close();
    }
  });

  it('reports a committed write as current only once it is on disk and its watchers have it', async () => {
    const store = SqliteStorage.open(path());
    try {
      await store.create('/a', enc('a')); // 1
      const seen: number[] = [];
      const w = store.watch('/', 1, (e) => seen.push(e.modRevision));
      const writing = store.create('/b', enc('b'));
      // The batch is committed in this turn of the loop; the WAL's flush answers in a later one.
      await new Promise((r) => setImmediate(r));
      assert.equal(store.currentRevision(), 1, 'a watch from currentRevision() must not miss the write being flushed');
      assert.deepEqual(seen, []);
      assert.equal((await writing).modRevision, 2);
      assert.equal(store.currentRevision(), 2);
      assert.deepEqual(seen, [2]);
      w.stop();
    } finally {
      await store.close();
    }
  });

  it('checkpoints the log on a thread of its own between commits, so the log starts over instead of growing', { timeout: 60_000 }, async () => {
    const file = path();
    let store = SqliteStorage.open(file);
    const value = 'x'.repeat(10 * 1024);
    try {
      // 40 MiB of values, each stored twice (row and event): SQLite's log would hold 80 MiB unchecked.
      for (let wave = 0; wave < 64; wave++) {
        await Promise.all(Array.from({ length: 64 }, (_, i) => store.create(`/big/${wave}/${i}`, enc(value))));
      }
      assert.ok(store.checkpointCount >= 5, `${store.checkpointCount} checkpoints`);
      const wal = statSync(`${file}-wal`).size;
      assert.ok(wal < 16 * 1024 * 1024, `the log grew to ${wal} bytes`);
    } finally {
      await store.close();
    }
    store = SqliteStorage.open(file);
    try {
      assert.equal(await store.count('/big/'), 64 * 64);
      assert.equal(text((await store.get('/big/63/63'))?.value), `${value}@4096`);
    } finally {
      await store.close();
    }
  });

  it('gives its usual page cache back after reading a whole prefix or the history (read with a small one)', async () => {
    const store = SqliteStorage.open(path());
    try {
      const usual = store.pageCacheSize;
      assert.equal(usual, -2000);
      for (let i = 0; i < 50; i++) await store.create(`/cm/${i}`, enc(`v${i}`));
      assert.equal((await store.list('/cm/')).items.length, 50);
      assert.equal(store.pageCacheSize, usual);
      const { events, stop } = collect(store, '/cm/', 0);
      await until('the 50 changes', () => events.length === 50, 2000, 1);
      stop();
      assert.equal(store.pageCacheSize, usual);
      // A paged read is not a scan: it leaves the cache alone.
      assert.equal((await store.list('/cm/', { limit: 5 })).items.length, 5);
      assert.equal(store.pageCacheSize, usual);
    } finally {
      await store.close();
    }
  });

  it('rejects the whole batch and reuses its revisions when the transaction fails', async () => {
    const store = SqliteStorage.open(path());
    try {
      await store.create('/ok', enc('ok')); // 1
      const commits = store.commitCount;
      // A null value violates NOT NULL: an SQL error, which aborts the transaction.
      const bad = store.create('/bad', () => null as unknown as Buffer);
      const good = store.create('/good', enc('good'));
      await assert.rejects(bad);
      await assert.rejects(good);
      assert.equal(store.commitCount, commits);
      assert.equal(store.currentRevision(), 1);
      assert.equal(await store.get('/good'), undefined);
      assert.equal((await store.create('/good', enc('good'))).modRevision, 2);
    } finally {
      await store.close();
    }
  });
});

describe('keys', () => {
  it('computes the end of a prefix range', () => {
    assert.equal(prefixEnd('/registry/pods/'), '/registry/pods0');
    assert.equal(prefixEnd('a'), 'b');
    assert.equal(prefixEnd(''), undefined);
    assert.equal(prefixEnd('a\u{10FFFF}'), 'b');
    assert.equal(prefixEnd('\u{10FFFF}'), undefined);
    assert.equal(prefixEnd('a\uD7FF'), 'a\uE000');
    assert.equal(prefixEnd('a\uFFFF'), 'a\u{10000}');
  });

  it('compares by code point', () => {
    assert.ok(compareKeys('\uFFFD', '\u{1F600}') < 0);
    assert.ok(compareKeys('a', 'ab') < 0);
    assert.equal(compareKeys('x', 'x'), 0);
    assert.ok(compareKeys('b', 'a') > 0);
  });
});
