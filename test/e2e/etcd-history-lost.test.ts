// capstan cut off from its etcd while others write there and etcd is compacted past what capstan's
// watch had read: when etcd is back in reach, capstan's watch caches are built again from a list
// (reads show the new state), open watches end as the reference's cacher ends them when it
// re-lists, a watch again from the old resourceVersion gets 410 Gone, and a watch from the new
// list's resourceVersion works. Skipped when /usr/bin/etcd is absent.
import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EtcdClient } from '../../src/storage/etcd/client.js';
import { call, kubeconfigTls, mustOk, until, type ClientTls } from '../helpers.js';
import { EtcdProcess, etcdMissing } from '../storage/etcd-process.js';
import { Relay } from '../storage/etcd-relay.js';
import { startCapstan, stopCapstan, type Capstan } from './harness.js';

interface OpenWatch {
  lines: Array<{ type: string; object: { metadata?: { name?: string }; code?: number; reason?: string } }>;
  ended: boolean;
  stop(): void;
}

/** A watch over HTTPS whose events are collected as they come, and whether the server ended it. */
function openWatch(base: string, path: string, tls: ClientTls): OpenWatch {
  const watch: OpenWatch = { lines: [], ended: false, stop: () => req.destroy() };
  const req = httpsRequest(new URL(path, base), { ...tls }, (res) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      text += chunk;
      for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n')) {
        watch.lines.push(JSON.parse(text.slice(0, nl)));
        text = text.slice(nl + 1);
      }
    });
    res.on('end', () => (watch.ended = true));
  });
  req.on('error', () => (watch.ended = true));
  req.end();
  return watch;
}

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
/** The test's own ConfigMaps in a list (the server adds kube-root-ca.crt). */
const ours = (list: { items: Array<{ metadata: { name: string } }> }): string[] => list.items.map((c) => c.metadata.name).filter((n) => n !== 'kube-root-ca.crt').sort();

describe('capstan after etcd compacted past its watch', { skip: etcdMissing, timeout: 120_000 }, () => {
  let etcd: EtcdProcess;
  let relay: Relay;
  let capstan: Capstan | undefined;
  let direct: EtcdClient;
  const dir = mkdtempSync(join(tmpdir(), 'capstan-e2e-lost-'));
  /** The server's warnings, shown when a step fails. */
  let log = '';

  before(async () => {
    etcd = await EtcdProcess.start();
    relay = await Relay.start(etcd.clientPort);
    direct = new EtcdClient({ endpoints: [etcd.url] });
    capstan = await startCapstan(join(dir, 'data'), ['--storage', 'etcd', '--etcd-servers', relay.url, '--etcd-prefix', '/lost']);
    capstan.process.stderr!.on('data', (c: Buffer) => (log += c.toString()));
  });
  after(async () => {
    if (capstan) await stopCapstan(capstan);
    direct?.close();
    await relay?.close();
    await etcd?.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('re-lists its caches, ends its watches, and answers a watch from before with 410', { timeout: 90_000 }, async () => {
    const base = /server: (\S+)/.exec(readFileSync(capstan!.kubeconfig, 'utf8'))![1]!;
    const tls = kubeconfigTls(capstan!.kubeconfig);
    for (const name of ['kept', 'gone']) await mustOk(call(base, 'POST', CONFIGMAPS, { tls, body: { metadata: { name }, data: { v: '1' } } }), 201);
    const before = await mustOk(call(base, 'GET', CONFIGMAPS, { tls }));
    const oldRv = before.json.metadata.resourceVersion as string;
    const watch = openWatch(base, `${CONFIGMAPS}?watch=1&resourceVersion=${oldRv}&allowWatchBookmarks=false`, tls);
    try {
      await mustOk(call(base, 'POST', CONFIGMAPS, { tls, body: { metadata: { name: 'seen' } } }), 201);
      await until('the watch sees a create', () => watch.lines.some((l) => l.object.metadata?.name === 'seen'), 10_000);

      // Cut off: meanwhile another writer deletes one, adds one (as JSON, which capstan reads too), and etcd is compacted.
      relay.drop();
      const key = (name: string): Buffer => Buffer.from(`/lost/configmaps/default/${name}`);
      await direct.txn({ compare: [], success: [{ deleteRange: { key: key('gone') } }] });
      const added = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'added', namespace: 'default', uid: '6d3f2c1e-0000-4000-8000-000000000001', creationTimestamp: '2026-01-01T00:00:00Z' }, data: { v: 'direct' } };
      await direct.txn({ compare: [], success: [{ put: { key: key('added'), value: Buffer.from(JSON.stringify(added)) } }] });
      const now = (await direct.range({ key: key('added') })).revision;
      await direct.compact(now);
      relay.restore();

      // The open watch ends (without the events it missed); reads show etcd's state.
      await until(() => `the open watch ends; server's log: ${log.slice(-2000)}`, () => watch.ended, 30_000, 50);
      assert.ok(!watch.lines.some((l) => l.object.metadata?.name === 'gone' || l.object.metadata?.name === 'added'), 'no invented events');
      const got = await until('the added ConfigMap is served', async () => {
        const r = await call(base, 'GET', `${CONFIGMAPS}/added`, { tls });
        return r.status === 200 ? r : undefined;
      }, 30_000, 100);
      assert.equal(got.json.data.v, 'direct');
      assert.equal((await call(base, 'GET', `${CONFIGMAPS}/gone`, { tls })).status, 404);
      const list = await mustOk(call(base, 'GET', CONFIGMAPS, { tls }));
      assert.deepEqual(ours(list.json), ['added', 'kept', 'seen']);
      // Served from the rebuilt cache too (an exact-revision list goes to the cache).
      const cached = await mustOk(call(base, 'GET', `${CONFIGMAPS}?resourceVersion=${list.json.metadata.resourceVersion}&resourceVersionMatch=Exact`, { tls }));
      assert.deepEqual(ours(cached.json), ['added', 'kept', 'seen']);

      // A watch again from the old resourceVersion: 410 Gone as an ERROR event, so the client re-lists.
      const again = openWatch(base, `${CONFIGMAPS}?watch=1&resourceVersion=${oldRv}`, tls);
      try {
        await until('the old resourceVersion is refused', () => again.lines.length > 0, 10_000);
        assert.equal(again.lines[0]!.type, 'ERROR');
        assert.equal(again.lines[0]!.object.code, 410);
        assert.equal(again.lines[0]!.object.reason, 'Expired');
      } finally {
        again.stop();
      }

      // From the new list's resourceVersion: the next change arrives.
      const fresh = openWatch(base, `${CONFIGMAPS}?watch=1&resourceVersion=${list.json.metadata.resourceVersion}`, tls);
      try {
        await mustOk(call(base, 'POST', CONFIGMAPS, { tls, body: { metadata: { name: 'after' } } }), 201);
        await until('the new watch sees the next create', () => fresh.lines.some((l) => l.type === 'ADDED' && l.object.metadata?.name === 'after'), 10_000);
        assert.ok(!fresh.lines.some((l) => l.type === 'ERROR'), JSON.stringify(fresh.lines));
      } finally {
        fresh.stop();
      }
    } finally {
      watch.stop();
    }
  });
});
