// The capstan command storing in a real etcd (--storage etcd --etcd-servers): kubectl creates,
// gets, lists, watches and deletes a ConfigMap; capstan restarted on the same etcd still has it,
// and the objects are in etcd under --etcd-prefix. Skipped when /usr/bin/etcd is absent.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EtcdClient, prefixRangeEnd } from '../../src/storage/etcd/client.js';
import { call, kubeconfigTls, until } from '../helpers.js';
import { EtcdProcess, etcdMissing } from '../storage/etcd-process.js';
import { ok, kubectl, startCapstan, stopCapstan, type Capstan } from './harness.js';

describe('capstan on etcd', { skip: etcdMissing, timeout: 120_000 }, () => {
  let etcd: EtcdProcess;
  let capstan: Capstan | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'capstan-e2e-etcd-'));
  const flags = (): string[] => ['--storage', 'etcd', '--etcd-servers', etcd.url, '--etcd-prefix', '/capstan-e2e'];

  before(async () => {
    etcd = await EtcdProcess.start();
    capstan = await startCapstan(join(dir, 'data'), flags());
  });
  after(async () => {
    if (capstan) await stopCapstan(capstan);
    await etcd?.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves kubectl create, get, list, watch and delete of a ConfigMap', { timeout: 60_000 }, async () => {
    const kc = capstan!.kubeconfig;
    await ok(kc, ['create', 'configmap', 'first', '--from-literal=a=1']);
    const first = JSON.parse(await ok(kc, ['get', 'configmap', 'first', '-o', 'json'])) as { data: Record<string, string>; metadata: { resourceVersion: string } };
    assert.deepEqual(first.data, { a: '1' });
    assert.match(first.metadata.resourceVersion, /^[1-9]\d*$/);

    // A watch from now: sees the next create, with the resourceVersion a get then shows.
    const watch = spawn('kubectl', ['--kubeconfig', kc, 'get', 'configmaps', '--watch-only', '-o', 'custom-columns=NAME:.metadata.name,RV:.metadata.resourceVersion', '--no-headers'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let watched = '';
    watch.stdout.on('data', (c: Buffer) => (watched += c.toString()));
    try {
      // kubectl opens its watch after a list; create until the watch has surely started.
      await until('the watch is open', async () => (await kubectl(kc, ['get', 'configmaps', '-o', 'name'])).code === 0, 10_000, 100);
      await new Promise((r) => setTimeout(r, 500));
      await ok(kc, ['create', 'configmap', 'second', '--from-literal=b=2']);
      await until('the watch shows the new ConfigMap', () => /second\s+\d+/.test(watched), 20_000, 50);
    } finally {
      watch.kill();
    }
    const second = JSON.parse(await ok(kc, ['get', 'configmap', 'second', '-o', 'json'])) as { metadata: { resourceVersion: string } };
    assert.match(watched, new RegExp(`second\\s+${second.metadata.resourceVersion}\\b`));
    assert.ok(Number(second.metadata.resourceVersion) > Number(first.metadata.resourceVersion));

    const names = (await ok(kc, ['get', 'configmaps', '-o', 'name'])).trim().split('\n');
    assert.ok(names.includes('configmap/first') && names.includes('configmap/second'), names.join(' '));

    await ok(kc, ['delete', 'configmap', 'first']);
    const gone = await kubectl(kc, ['get', 'configmap', 'first']);
    assert.notEqual(gone.code, 0);
    assert.match(gone.stderr, /NotFound|not found/);
  });

  it('keeps its objects across a restart of capstan on the same etcd, in etcd under the prefix', { timeout: 60_000 }, async () => {
    const before = JSON.parse(await ok(capstan!.kubeconfig, ['get', 'configmap', 'second', '-o', 'json'])) as { metadata: { resourceVersion: string; uid: string } };
    await stopCapstan(capstan!);
    capstan = undefined;
    // A fresh data folder: nothing of the first run is kept but what is in etcd.
    capstan = await startCapstan(join(dir, 'data-2'), flags());
    const after = JSON.parse(await ok(capstan.kubeconfig, ['get', 'configmap', 'second', '-o', 'json'])) as { data: Record<string, string>; metadata: { resourceVersion: string; uid: string } };
    assert.deepEqual(after.data, { b: '2' });
    assert.equal(after.metadata.uid, before.metadata.uid);
    assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion);
    const missing = await kubectl(capstan.kubeconfig, ['get', 'configmap', 'first']);
    assert.notEqual(missing.code, 0, 'the deleted ConfigMap stays deleted');

    const client = new EtcdClient({ endpoints: [etcd.url] });
    try {
      const key = Buffer.from('/capstan-e2e/');
      const r = await client.range({ key, rangeEnd: prefixRangeEnd(key), keysOnly: true });
      const keys = r.kvs.map((kv) => kv.key.toString());
      // The reference's layout: the prefix in place of /registry, core resources without a group.
      assert.ok(keys.includes('/capstan-e2e/configmaps/default/second'), keys.join('\n'));
      assert.ok(keys.includes('/capstan-e2e/namespaces/default'), keys.join('\n'));
      assert.ok(!keys.some((k) => k.includes('/registry')), keys.join('\n'));
      assert.ok(!keys.some((k) => k.endsWith('/configmaps/default/first')));
    } finally {
      client.close();
    }
  });

  it('reports etcd down in /readyz and /livez, as the reference\'s etcd check, and is ready again when it returns', { timeout: 60_000 }, async () => {
    const kc = capstan!.kubeconfig;
    const base = /server: (\S+)/.exec(readFileSync(kc, 'utf8'))![1]!;
    const tls = kubeconfigTls(kc);
    assert.equal((await call(base, 'GET', '/readyz', { tls })).status, 200);
    await etcd.stop();
    try {
      const ready = await until('/readyz fails', async () => {
        const r = await call(base, 'GET', '/readyz?verbose', { tls });
        return r.status === 500 ? r : undefined;
      }, 15_000, 200);
      assert.match(ready.text, /^\[-\]etcd failed: reason withheld$/m);
      const live = await call(base, 'GET', '/livez?verbose', { tls });
      assert.equal(live.status, 500);
      assert.match(live.text, /^\[-\]etcd failed: reason withheld$/m);
      // A write that needs etcd is answered the reference's Timeout, not left hanging.
      const started = Date.now();
      const write = await call(base, 'POST', '/api/v1/namespaces/default/configmaps', { tls, body: { metadata: { name: 'during-outage' } } });
      assert.equal(write.status, 504, write.text);
      assert.deepEqual([write.json.kind, write.json.reason, write.json.message], ['Status', 'Timeout', 'Timeout: request did not complete within requested timeout - context deadline exceeded']);
      assert.ok(Date.now() - started < 20_000, `answered after ${Date.now() - started} ms`);
    } finally {
      await etcd.start();
    }
    await until('/readyz passes again', async () => (await call(base, 'GET', '/readyz', { tls })).status === 200, 20_000, 200);
    await ok(kc, ['create', 'configmap', 'after-outage', '--from-literal=c=3']);
    assert.match(await ok(kc, ['get', 'configmap', 'after-outage', '-o', 'name']), /configmap\/after-outage/);
  });
});
