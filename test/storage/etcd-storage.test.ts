// etcd-only checks of the etcd client and EtcdStorage, against a real etcd (skipped when
// /usr/bin/etcd is absent): watches that survive an etcd restart and resume from their last
// revision, Compacted when etcd compacted the history meanwhile, compare-and-swap under concurrent
// writers on two stores sharing one etcd, requests that fail rather than hang while etcd is down,
// the watch cache over etcd, the reference's key layout and values through a key mapping and codec
// (a value encrypted with another key fails gets and lists, and stays out of watches), leases, TLS
// with client certificates.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Cacher } from '../../src/storage/cacher.js';
import { EtcdClient, compareCreate } from '../../src/storage/etcd/client.js';
import { LeaseKeeper } from '../../src/storage/etcd/lease.js';
import { EtcdStorage, type EtcdStorageOptions } from '../../src/storage/etcd/storage.js';
import { EtcdWatch, type WatchEvent } from '../../src/storage/etcd/watch.js';
import { COMPACT_REV_KEY, EtcdCompactor } from '../../src/storage/etcd/compactor.js';
import { StorageError, type Encode, type StorageEvent } from '../../src/storage/types.js';
import { ensureServingMaterial } from '../../src/server/certs.js';
import { parseEncryptionConfig } from '../../src/server/encryption-config.js';
import { EtcdKeyLayout } from '../../src/server/etcd-layout.js';
import { EtcdValues } from '../../src/server/etcd-values.js';
import { StatusError } from '../../src/errors.js';
import { sleep, until } from '../helpers.js';
import { EtcdProcess, etcdMissing, freePort } from './etcd-process.js';
import { Relay } from './etcd-relay.js';

const LIMIT = { timeout: 60_000 };
const enc =
  (name: string): Encode =>
  (rev) =>
    Buffer.from(`${name}@${rev}`);
const stamp = (value: Buffer, revision: number): Buffer => Buffer.from(value.toString().replace(/@\d+$/, `@${revision}`));
const text = (b: Buffer | undefined): string | undefined => b?.toString();
const revs = (events: readonly { modRevision: number }[]): number[] => events.map((e) => e.modRevision);
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

let prefixSeq = 0;
const newPrefix = (): string => `/etcd-test-${++prefixSeq}`;

function openStore(endpoints: string[], options: Partial<EtcdStorageOptions> = {}): Promise<EtcdStorage> {
  return EtcdStorage.open({ endpoints, prefix: newPrefix(), stamp, requestTimeoutMs: 3_000, ...options });
}

const isCompactedErrorLike = (err: unknown): boolean => err instanceof Error && /compacted/.test(err.message);

describe('etcd client and storage', { skip: etcdMissing, timeout: 180_000 }, () => {
  let etcd: EtcdProcess;
  before(async () => {
    etcd = await EtcdProcess.start();
  });
  after(async () => {
    await etcd?.destroy();
  });

  it('a watch resumes from its last revision after etcd restarts, and a store goes on', LIMIT, async () => {
    const store = await openStore([etcd.url]);
    const client = new EtcdClient({ endpoints: [etcd.url] });
    try {
      const events: StorageEvent[] = [];
      const base = store.currentRevision();
      const w = store.watch('/', base, (e) => events.push(e));
      const key = Buffer.from(`${newPrefix()}/raw`);
      const raw: WatchEvent[] = [];
      let interrupted = 0;
      const rawWatch = new EtcdWatch(client, { key, startRevision: base + 1 }, {
        events: (e) => raw.push(...e),
        compacted: () => assert.fail('not compacted'),
        interrupted: () => interrupted++,
      });
      await store.create('/a', enc('a'));
      await client.txn({ compare: [], success: [{ put: { key, value: Buffer.from('1') } }] });

      await etcd.stop('SIGKILL');
      // While etcd is down, a write fails within the request timeout rather than hang.
      const started = Date.now();
      await assert.rejects(store.create('/down', enc('x')));
      assert.ok(Date.now() - started < 5_000, `failed after ${Date.now() - started} ms`);
      await etcd.start();

      await store.create('/b', enc('b'));
      await client.txn({ compare: [], success: [{ put: { key, value: Buffer.from('2') } }] });
      await until('events after the restart', () => events.length >= 2 && raw.length >= 2, 20_000, 20);
      assert.deepEqual(events.map((e) => [e.type, e.key, text(e.value)]), [
        ['create', '/a', `a@${events[0]?.modRevision}`],
        ['create', '/b', `b@${events[1]?.modRevision}`],
      ]);
      assert.deepEqual(raw.map((e) => e.kv.value.toString()), ['1', '2'], 'the raw watch lost and repeated nothing');
      assert.ok(interrupted >= 1, 'the raw watch saw its stream break');
      // Writes outside the prefix are not the store's events, but its revision moves on with them (etcd's own).
      const newest = Math.max(events[1]!.modRevision, raw[1]!.kv.modRevision);
      await until('the store at etcd\'s revision', () => store.currentRevision() === newest, 5_000, 20);
      w.stop();
      rawWatch.cancel();
    } finally {
      client.close();
      await store.close();
    }
  });

  it('a watch that missed history etcd compacted meanwhile ends with Compacted', LIMIT, async () => {
    const relay = await Relay.start(etcd.clientPort);
    const direct = new EtcdClient({ endpoints: [etcd.url] });
    const viaRelay = new EtcdClient({ endpoints: [relay.url] });
    let lost: number | undefined;
    const prefix = newPrefix();
    const store = await openStore([relay.url], { prefix, onHistoryLost: (r) => (lost = r) });
    const writer = await openStore([etcd.url], { prefix });
    try {
      const key = Buffer.from(`${newPrefix()}/k`);
      const start = (await direct.range({ key })).revision;
      const seen: number[] = [];
      let compactedAt: number | undefined;
      const w = new EtcdWatch(viaRelay, { key, startRevision: start + 1 }, {
        events: (e) => seen.push(...e.map((x) => x.kv.modRevision)),
        compacted: (r) => (compactedAt = r),
      });
      const first = await direct.txn({ compare: [], success: [{ put: { key, value: Buffer.from('1') } }] });
      await until('first event', () => seen.length === 1, 10_000, 10);
      const before = await writer.create('/before', enc('x'));
      await until('the store saw it', () => store.currentRevision() >= before.modRevision, 10_000, 10);
      const storeWatch: StorageEvent[] = [];
      store.watch('/', before.modRevision - 1, (e) => storeWatch.push(e));

      relay.drop();
      await direct.txn({ compare: [], success: [{ put: { key, value: Buffer.from('2') } }] });
      const missed = await writer.create('/missed', enc('y'));
      const last = await direct.txn({ compare: [], success: [{ put: { key, value: Buffer.from('3') } }] });
      await direct.compact(last.revision);
      relay.restore();

      await until('the raw watch is told', () => compactedAt !== undefined, 20_000, 20);
      assert.equal(compactedAt, last.revision);
      assert.deepEqual(seen, [first.revision], 'nothing after the first event was delivered');
      await until('the store is told', () => lost !== undefined, 20_000, 20);
      assert.equal(lost, last.revision);
      // The store moved on to etcd's revision then (nothing written since: the compaction's), retaining nothing before it.
      assert.equal(store.compactedRevision(), last.revision);
      assert.throws(() => store.watch('/', missed.modRevision - 1, () => {}), (err) => err instanceof StorageError && err.code === 'Compacted');
      // The store's feed goes on from what etcd still has.
      const after = await writer.create('/after', enc('z'));
      await until('the store sees later writes', () => store.currentRevision() >= after.modRevision, 10_000, 10);
      assert.deepEqual(storeWatch.map((e) => e.key), ['/before', '/after'], 'the missed write never arrives');
      w.cancel();
    } finally {
      await store.close();
      await writer.close();
      direct.close();
      viaRelay.close();
      await relay.close();
    }
  });

  it('compare-and-swap holds under concurrent writers on two stores sharing etcd', LIMIT, async () => {
    const prefix = newPrefix();
    const a = await EtcdStorage.open({ endpoints: [etcd.url], prefix, stamp });
    const b = await EtcdStorage.open({ endpoints: [etcd.url], prefix, stamp });
    try {
      const created = await a.create('/counter', enc('0'));
      const seenByB: StorageEvent[] = [];
      const wb = b.watch('/', created.modRevision - 1, (e) => seenByB.push(e));
      let conflicts = 0;
      const increment = async (store: EtcdStorage): Promise<void> => {
        for (;;) {
          const current = await store.get('/counter');
          const n = Number(text(current?.value)?.split('@')[0]);
          try {
            await store.update('/counter', current!.modRevision, enc(String(n + 1)));
            return;
          } catch (err) {
            if (!(err instanceof StorageError && err.code === 'Conflict')) throw err;
            conflicts++;
          }
        }
      };
      await Promise.all(Array.from({ length: 40 }, (_, i) => increment(i % 2 ? a : b)));
      const final = await a.get('/counter');
      assert.equal(text(final?.value), `40@${final?.modRevision}`, 'no increment lost');
      assert.equal(final!.modRevision, created.modRevision + 40, 'each increment wrote exactly once');
      assert.ok(conflicts > 0, 'the writers did collide');
      // Each store's watchers see every write, in order, whichever store made it.
      await until('store b saw every write', () => seenByB.length === 41, 10_000, 10);
      assert.deepEqual(revs(seenByB), range(created.modRevision, created.modRevision + 40));
      assert.deepEqual(seenByB.slice(1).map((e) => text(e.value)), range(1, 40).map((n) => `${n}@${created.modRevision + n}`));
      wb.stop();
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('feeds a watch cache: a write is in the cache when its promise resolves', LIMIT, async () => {
    const store = await openStore([etcd.url]);
    try {
      await store.create('/r/early', enc('early'));
      const cacher = await Cacher.start(store, '/r/', { windowMs: 60_000 });
      try {
        assert.equal(text(cacher.get('/r/early')), `early@${store.currentRevision()}`);
        for (let i = 0; i < 20; i++) {
          const s = await store.create(`/r/${i}`, enc(`v${i}`));
          assert.equal(text(cacher.get(`/r/${i}`)), `v${i}@${s.modRevision}`, 'in the cache as the write resolves');
        }
        const del = await store.delete('/r/early');
        assert.equal(cacher.get('/r/early'), undefined);
        assert.equal(cacher.revision(), del.modRevision);
        assert.equal(cacher.snapshot('/r/').keys.length, 20);
      } finally {
        cacher.stop();
      }
    } finally {
      await store.close();
    }
  });

  it('keeps the reference layout through a key mapping and codec; values it cannot read fail gets and lists and stay out of watches', LIMIT, async () => {
    const prefix = newPrefix();
    const keys = EtcdKeyLayout.reference();
    const codec = (secret: number): EtcdValues =>
      new EtcdValues({
        prefix, keys, groups: new Set(['apps']),
        encryption: parseEncryptionConfig(`apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources: [{resources: [secrets], providers: [{aesgcm: {keys: [{name: k, secret: "${Buffer.alloc(32, secret).toString('base64')}"}]}}]}]
`),
      });
    const object = (kind: string, apiVersion: string, name: string) => (rev: number) =>
      Buffer.from(JSON.stringify({ kind, apiVersion, metadata: { name, namespace: 'ns', resourceVersion: String(rev) }, data: { a: 'MQ==' } }));
    const a = await EtcdStorage.open({ endpoints: [etcd.url], prefix, root: '/registry', keys, codec: codec(1) });
    const b = await EtcdStorage.open({ endpoints: [etcd.url], prefix, root: '/registry', keys, codec: codec(2) });
    const client = new EtcdClient({ endpoints: [etcd.url] });
    try {
      const seen: string[] = [];
      const watcher = b.watch('/registry/', b.currentRevision(), (e) => seen.push(e.key));
      const secret = await a.create('/registry/secrets/ns/s', object('Secret', 'v1', 's'));
      const deployment = await a.create('/registry/apps/deployments/ns/d', object('Deployment', 'apps/v1', 'd'));
      assert.equal(JSON.parse(secret.value.toString()).metadata.resourceVersion, String(secret.modRevision));
      // In etcd at the reference's keys; the Secret encrypted with the key as additional data.
      const held = await client.range({ key: Buffer.from(`${prefix}/`), rangeEnd: Buffer.from(`${prefix}0`) });
      assert.deepEqual(held.kvs.map((kv) => kv.key.toString()), [`${prefix}/deployments/ns/d`, `${prefix}/secrets/ns/s`]);
      assert.ok(held.kvs[1]!.value.toString('latin1').startsWith('k8s:enc:aesgcm:v1:k:'));
      // The other store, with another key: the Secret's get and list fail as the reference's. (Its
      // lists read at its own feed's revision: wait for the feed to pass both writes.)
      await until('the other store has seen both writes', () => b.currentRevision() >= deployment.modRevision, 10_000, 10);
      await assert.rejects(b.get('/registry/secrets/ns/s'), (err: unknown) => err instanceof StatusError && err.code === 500 && err.message === 'Internal error occurred: cipher: message authentication failed');
      await assert.rejects(b.list('/registry/secrets/'), (err: unknown) => err instanceof StatusError && err.message === `Internal error occurred: unable to transform key "${prefix}/secrets/ns/s": cipher: message authentication failed`);
      // What it can read it reads, under capstan's key.
      const d = await b.get('/registry/apps/deployments/ns/d');
      assert.equal(JSON.parse(d!.value.toString()).metadata.resourceVersion, String(deployment.modRevision));
      await until('the watch has the Deployment', () => seen.includes('/registry/apps/deployments/ns/d'), 10_000, 20);
      assert.deepEqual(seen, ['/registry/apps/deployments/ns/d'], 'the Secret it cannot read is left out');
      watcher.stop();
    } finally {
      client.close();
      await a.close();
      await b.close();
    }
  });

  it('compacts etcd as the reference: one server per interval through compact_rev_key, to the revision one interval before', LIMIT, async () => {
    const client = new EtcdClient({ endpoints: [etcd.url] });
    const a = new EtcdCompactor(client, 3_600_000);
    const b = new EtcdCompactor(client, 3_600_000);
    const put = async (key: string): Promise<number> =>
      (await client.txn({ compare: [], success: [{ put: { key: Buffer.from(key), value: Buffer.from('v') } }], failure: [] })).revision;
    try {
      const before = await put('/compaction-test/a');
      await a.tick(); // records the revision; nothing compacted on the first interval
      const recorded = Number((await client.range({ key: COMPACT_REV_KEY })).kvs[0]!.value.toString());
      assert.equal(recorded, 0);
      const first = (await client.range({ key: COMPACT_REV_KEY })).revision;
      await b.tick(); // the key moved under b: it follows, and compacts nothing
      assert.equal((await client.range({ key: Buffer.from('/compaction-test/a'), revision: before })).kvs.length, 1, 'not compacted yet');
      await put('/compaction-test/b');
      await a.tick(); // the next interval: a compacts to the revision it recorded before
      await assert.rejects(client.range({ key: Buffer.from('/compaction-test/a'), revision: first - 1 }), (err: unknown) => isCompactedErrorLike(err));
      assert.equal((await client.range({ key: COMPACT_REV_KEY })).kvs[0]!.version, 2);
    } finally {
      a.stop();
      b.stop();
      client.close();
    }
  });

  it('grants a lease, keeps it alive, and its keys go when it is revoked', LIMIT, async () => {
    const client = new EtcdClient({ endpoints: [etcd.url] });
    try {
      const lease = await client.leaseGrant(2);
      assert.equal(lease.ttl, 2);
      const key = Buffer.from(`${newPrefix()}/leased`);
      await client.txn({ compare: [compareCreate(key, 'EQUAL', 0)], success: [{ put: { key, value: Buffer.from('x'), lease: lease.id } }] });
      let lostReason: string | undefined;
      const keeper = new LeaseKeeper(client, lease.id, lease.ttl, (reason) => (lostReason = reason));
      await sleep(3_000); // longer than the TTL: only the keep-alives hold it
      assert.equal((await client.range({ key })).kvs[0]?.lease, lease.id);
      assert.equal(lostReason, undefined);
      keeper.stop();
      await client.leaseRevoke(lease.id);
      assert.equal((await client.range({ key })).count, 0);
    } finally {
      client.close();
    }
  });

  it('fails over to the next endpoint when one is unreachable', LIMIT, async () => {
    const deadPort = await freePort();
    const store = await openStore([`http://127.0.0.1:${deadPort}`, etcd.url]);
    try {
      const s = await store.create('/x', enc('x'));
      assert.equal(text((await store.get('/x'))?.value), `x@${s.modRevision}`);
      assert.equal(store.etcd.currentAddress, `127.0.0.1:${etcd.clientPort}`);
    } finally {
      await store.close();
    }
  });
});

describe('etcd over TLS with client certificates', { skip: etcdMissing, timeout: 60_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-etcd-tls-'));
  let etcd: EtcdProcess | undefined;
  after(async () => {
    await etcd?.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads and writes with the CA and a client certificate, and refuses a client without one', LIMIT, async () => {
    const m = await ensureServingMaterial(join(dir, 'pki'), ['127.0.0.1']);
    const file = (name: string, pem: string): string => {
      const path = join(dir, name);
      writeFileSync(path, pem, { mode: 0o600 });
      return path;
    };
    const tls = { ca: Buffer.from(m.caCert), cert: Buffer.from(m.adminCert), key: Buffer.from(m.adminKey) };
    etcd = await EtcdProcess.start({
      tls: { certFile: file('server.crt', m.serverCert), keyFile: file('server.key', m.serverKey), trustedCaFile: file('ca.crt', m.caCert) },
      clientTls: tls,
    });
    assert.match(etcd.url, /^https:/);
    const store = await openStore([etcd.url], { tls });
    try {
      const s = await store.create('/secret', enc('s'));
      assert.equal(text((await store.get('/secret'))?.value), `s@${s.modRevision}`);
    } finally {
      await store.close();
    }
    const anonymous = new EtcdClient({ endpoints: [etcd.url], tls: { ca: tls.ca }, requestTimeoutMs: 2_000 });
    try {
      await assert.rejects(anonymous.range({ key: Buffer.from('/x') }));
    } finally {
      anonymous.close();
    }
  });
});
