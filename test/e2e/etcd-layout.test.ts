// What capstan keeps in etcd is what kube-apiserver 1.25 keeps: keys in the reference's layout
// (grouped built-ins without their group, the historical names), built-in objects in the Protobuf
// envelope without resourceVersion, custom resources as JSON, Secrets encrypted at rest with
// --encryption-provider-config, Events with an etcd lease of --event-ttl. Objects written into etcd in that shape (as kube-apiserver writes
// them) are read, listed, watched, updated and deleted through capstan. Skipped without /usr/bin/etcd.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { decodeProtobufObject, PROTOBUF_MAGIC } from '../../src/encoding/protobuf.js';
import { encodeProtobufObject } from '../../src/encoding/protobuf-encode.js';
import { EtcdClient } from '../../src/storage/etcd/client.js';
import { until } from '../helpers.js';
import { EtcdProcess, etcdMissing } from '../storage/etcd-process.js';
import { kubectl, ok, startCapstan, stopCapstan, type Capstan } from './harness.js';

const KEY_1 = Buffer.alloc(32, 1).toString('base64');
const KEY_2 = Buffer.alloc(32, 2).toString('base64');

function encryptionConfig(provider: string, secret: string): string {
  return `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources: [secrets]
    providers:
      - ${provider}:
          keys:
            - name: key1
              secret: ${secret}
      - identity: {}
`;
}

describe('capstan keeps in etcd what kube-apiserver keeps', { skip: etcdMissing, timeout: 240_000 }, () => {
  let etcd: EtcdProcess;
  let capstan: Capstan | undefined;
  let client: EtcdClient;
  const dir = mkdtempSync(join(tmpdir(), 'capstan-e2e-etcd-layout-'));
  const configFile = join(dir, 'encryption.yaml');
  const flags = (): string[] => ['--storage', 'etcd', '--etcd-servers', etcd.url, '--encryption-provider-config', configFile];
  const raw = async (key: string): Promise<Buffer | undefined> => (await client.range({ key: Buffer.from(key) })).kvs[0]?.value;
  const kc = (): string => capstan!.kubeconfig;
  /** A value put into etcd directly, as kube-apiserver would. */
  const putRaw = async (key: string, value: Buffer): Promise<void> => {
    await client.txn({ compare: [], success: [{ put: { key: Buffer.from(key), value } }], failure: [] });
  };

  before(async () => {
    etcd = await EtcdProcess.start();
    client = new EtcdClient({ endpoints: [etcd.url] });
    writeFileSync(configFile, encryptionConfig('aescbc', KEY_1));
    capstan = await startCapstan(join(dir, 'data'), flags());
  });
  after(async () => {
    client?.close();
    if (capstan) await stopCapstan(capstan);
    await etcd?.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stores kubectl creates at the reference keys, in the Protobuf envelope without resourceVersion', { timeout: 90_000 }, async () => {
    const manifests = [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm1', namespace: 'default' }, data: { a: '1' } },
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd1', namespace: 'default' }, spec: { replicas: 0, selector: { matchLabels: { app: 'd1' } }, template: { metadata: { labels: { app: 'd1' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } } },
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 's1', namespace: 'default' }, spec: { ports: [{ port: 80 }] } },
      { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'e1', namespace: 'default' }, subsets: [] },
      { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } },
      { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'rc1', namespace: 'default' }, spec: { replicas: 0, selector: { app: 'rc1' }, template: { metadata: { labels: { app: 'rc1' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } } },
      { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'i1', namespace: 'default' }, spec: { defaultBackend: { service: { name: 's1', port: { number: 80 } } } } },
      { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j1', namespace: 'default' }, spec: { suspend: true, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } } },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'cr1' }, rules: [] },
      { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l1', namespace: 'default' }, spec: {} },
    ];
    await ok(kc(), ['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: manifests }));
    const expected: [string, string, string][] = [
      ['/registry/configmaps/default/cm1', 'v1', 'ConfigMap'],
      ['/registry/deployments/default/d1', 'apps/v1', 'Deployment'],
      ['/registry/services/specs/default/s1', 'v1', 'Service'],
      ['/registry/services/endpoints/default/e1', 'v1', 'Endpoints'],
      ['/registry/minions/n1', 'v1', 'Node'],
      ['/registry/controllers/default/rc1', 'v1', 'ReplicationController'],
      ['/registry/ingress/default/i1', 'networking.k8s.io/v1', 'Ingress'],
      ['/registry/jobs/default/j1', 'batch/v1', 'Job'],
      ['/registry/clusterroles/cr1', 'rbac.authorization.k8s.io/v1', 'ClusterRole'],
      ['/registry/leases/default/l1', 'coordination.k8s.io/v1', 'Lease'],
      ['/registry/namespaces/default', 'v1', 'Namespace'],
    ];
    for (const [key, apiVersion, kind] of expected) {
      const value = await raw(key);
      assert.ok(value, `nothing at ${key}`);
      assert.ok(value.subarray(0, 4).equals(PROTOBUF_MAGIC), `${key} is not in the Protobuf envelope: ${value.subarray(0, 20).toString()}`);
      const decoded = decodeProtobufObject(value);
      assert.equal(decoded.apiVersion, apiVersion, key);
      assert.equal(decoded.kind, kind, key);
      const metadata = decoded.object['metadata'] as Record<string, unknown>;
      assert.equal(metadata['name'], key.split('/').pop());
      assert.equal(metadata['resourceVersion'], undefined, `${key} keeps no resourceVersion`);
    }
    // Nothing under capstan's own names.
    const all = await client.range({ key: Buffer.from('/registry/'), rangeEnd: Buffer.from('/registry0'), keysOnly: true });
    const keys = all.kvs.map((kv) => kv.key.toString());
    assert.ok(!keys.some((k) => /^\/registry\/(apps|batch|networking\.k8s\.io|rbac\.authorization\.k8s\.io|coordination\.k8s\.io)\//.test(k)), keys.join('\n'));
    assert.ok(!keys.some((k) => /^\/registry\/(nodes|endpoints|replicationcontrollers)\//.test(k)), keys.join('\n'));
    // And capstan reads them back: resourceVersion is etcd's revision of the key.
    const cm = JSON.parse(await ok(kc(), ['get', 'configmap', 'cm1', '-o', 'json'])) as { data: Record<string, string>; metadata: { resourceVersion: string } };
    const kv = (await client.range({ key: Buffer.from('/registry/configmaps/default/cm1') })).kvs[0]!;
    assert.deepEqual(cm.data, { a: '1' });
    assert.equal(cm.metadata.resourceVersion, String(kv.modRevision));
  });

  it('reads, lists, watches, updates and deletes objects written into etcd as kube-apiserver writes them', { timeout: 90_000 }, async () => {
    const put = async (name: string, data: Record<string, string>): Promise<void> => {
      const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', uid: `00000000-0000-0000-0000-00000000000${name.length % 10}`, creationTimestamp: '2024-01-01T00:00:00Z' }, data };
      await putRaw(`/registry/configmaps/default/${name}`, encodeProtobufObject(obj));
    };
    await put('direct', { written: 'by-etcd' });
    await until('capstan sees the object written into etcd', async () => (await kubectl(kc(), ['get', 'configmap', 'direct'])).code === 0, 20_000, 100);
    const got = JSON.parse(await ok(kc(), ['get', 'configmap', 'direct', '-o', 'json'])) as { data: Record<string, string>; metadata: { uid: string; resourceVersion: string } };
    assert.deepEqual(got.data, { written: 'by-etcd' });
    assert.equal(got.metadata.uid, '00000000-0000-0000-0000-000000000006');
    const names = (await ok(kc(), ['get', 'configmaps', '-o', 'name'])).trim().split('\n');
    assert.ok(names.includes('configmap/direct'), names.join(' '));

    // A watch sees the next one written into etcd.
    const watch = spawn('kubectl', ['--kubeconfig', kc(), 'get', 'configmaps', '--watch-only', '-o', 'custom-columns=NAME:.metadata.name,V:.data.v', '--no-headers'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let watched = '';
    watch.stdout.on('data', (c: Buffer) => (watched += c.toString()));
    try {
      await new Promise((r) => setTimeout(r, 1_500));
      await put('direct2', { v: 'seen' });
      await until('the watch shows the object written into etcd', () => /direct2\s+seen/.test(watched), 20_000, 50);
    } finally {
      watch.kill();
    }

    // Updated through capstan: etcd holds the envelope with the change.
    await ok(kc(), ['label', 'configmap', 'direct', 'changed=yes']);
    const updated = decodeProtobufObject((await raw('/registry/configmaps/default/direct'))!).object as { metadata: { labels?: Record<string, string> }; data: Record<string, string> };
    assert.deepEqual(updated.metadata.labels, { changed: 'yes' });
    assert.deepEqual(updated.data, { written: 'by-etcd' });
    // Deleted through capstan: gone from etcd.
    await ok(kc(), ['delete', 'configmap', 'direct']);
    assert.equal(await raw('/registry/configmaps/default/direct'), undefined);

    // A grouped built-in kube-apiserver wrote (no group in its key): served as apps/v1.
    const deployment = {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'direct-d', namespace: 'default', uid: '00000000-0000-0000-0000-0000000000d1', generation: 1, creationTimestamp: '2024-01-01T00:00:00Z' },
      spec: { replicas: 0, selector: { matchLabels: { app: 'dd' } }, template: { metadata: { labels: { app: 'dd' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
    };
    await putRaw('/registry/deployments/default/direct-d', encodeProtobufObject(deployment));
    await until('capstan serves the Deployment written into etcd', async () => (await kubectl(kc(), ['get', 'deployment', 'direct-d'])).code === 0, 20_000, 100);
    const d = JSON.parse(await ok(kc(), ['get', 'deployment', 'direct-d', '-o', 'json'])) as { apiVersion: string; spec: { template: { metadata: Record<string, unknown> } } };
    assert.equal(d.apiVersion, 'apps/v1');
    assert.deepEqual(d.spec.template.metadata, { creationTimestamp: null, labels: { app: 'dd' } });
    await ok(kc(), ['delete', 'deployment', 'direct-d']);
    await until('the Deployment is gone from etcd', async () => (await raw('/registry/deployments/default/direct-d')) === undefined, 20_000, 100);

    // JSON written by an older capstan stays readable.
    await putRaw('/registry/configmaps/default/old-json', Buffer.from(JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'old-json', namespace: 'default', uid: 'u-old', creationTimestamp: '2024-01-01T00:00:00Z' }, data: { old: 'json' } })));
    await until('capstan reads JSON values', async () => (await kubectl(kc(), ['get', 'configmap', 'old-json', '-o', 'jsonpath={.data.old}'])).stdout === 'json', 20_000, 100);
  });

  it('keeps custom resources as JSON under their group', { timeout: 90_000 }, async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' },
      spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
    };
    await ok(kc(), ['create', '-f', '-'], JSON.stringify(crd));
    const crdValue = await raw('/registry/apiextensions.k8s.io/customresourcedefinitions/widgets.example.com');
    assert.ok(crdValue?.subarray(0, 4).equals(PROTOBUF_MAGIC), 'the CRD itself is in the Protobuf envelope');
    await until('the Widget kind is served', async () => (await kubectl(kc(), ['get', 'widgets'])).code === 0, 30_000, 200);
    await ok(kc(), ['create', '-f', '-'], JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'default' }, spec: { size: 3 } }));
    const value = await raw('/registry/example.com/widgets/default/w1');
    assert.ok(value, 'the widget is at /registry/example.com/widgets/default/w1');
    const stored = JSON.parse(value.toString()) as { kind: string; spec: { size: number }; metadata: Record<string, unknown> };
    assert.equal(stored.kind, 'Widget');
    assert.deepEqual(stored.spec, { size: 3 });
    assert.equal(stored.metadata['resourceVersion'], undefined);
  });

  it('keeps Secrets encrypted (aescbc, then aesgcm) and reads them back; a wrong key fails with the reference\'s error', { timeout: 120_000 }, async () => {
    await ok(kc(), ['create', 'secret', 'generic', 'pw', '--from-literal=password=hunter2-plain']);
    const value = (await raw('/registry/secrets/default/pw'))!;
    assert.ok(value.toString('latin1').startsWith('k8s:enc:aescbc:v1:key1:'), value.subarray(0, 30).toString());
    assert.ok(!value.includes('hunter2-plain') && !value.includes(Buffer.from('hunter2-plain').toString('base64')), 'the secret is not readable in etcd');
    const back = await ok(kc(), ['get', 'secret', 'pw', '-o', 'jsonpath={.data.password}']);
    assert.equal(Buffer.from(back, 'base64').toString(), 'hunter2-plain');
    // ConfigMaps are not named in the configuration: kept as they are.
    assert.ok((await raw('/registry/configmaps/default/cm1'))!.subarray(0, 4).equals(PROTOBUF_MAGIC));

    // The same key name with another secret: the Secret cannot be read. The reference's list of
    // Secrets fails with this error; capstan's watch cache loads every Secret when it starts, so
    // capstan refuses to start, naming the key (where kube-apiserver would start and fail each read).
    await stopCapstan(capstan!);
    capstan = undefined;
    writeFileSync(configFile, encryptionConfig('aescbc', KEY_2));
    await assert.rejects(startCapstan(join(dir, 'data-wrong-key'), flags()), (err: Error) => {
      assert.match(err.message, /Internal error occurred: unable to transform key "\/registry\/secrets\/default\/pw": (invalid padding on input|invalid PKCS7 data \(empty or not padded\))/);
      return true;
    });

    // aesgcm first, the old aescbc key to read: old Secrets read, new ones are written with aesgcm.
    writeFileSync(configFile, `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources: [secrets]
    providers:
      - aesgcm:
          keys: [{name: gcm1, secret: "${KEY_2}"}]
      - aescbc:
          keys: [{name: key1, secret: "${KEY_1}"}]
`);
    capstan = await startCapstan(join(dir, 'data-gcm'), flags());
    // The Secret read before is read again, through the second provider.
    assert.equal(Buffer.from(await ok(kc(), ['get', 'secret', 'pw', '-o', 'jsonpath={.data.password}']), 'base64').toString(), 'hunter2-plain');
    await ok(kc(), ['create', 'secret', 'generic', 'pw2', '--from-literal=password=second']);
    assert.ok((await raw('/registry/secrets/default/pw2'))!.toString('latin1').startsWith('k8s:enc:aesgcm:v1:gcm1:'));
    assert.equal(Buffer.from(await ok(kc(), ['get', 'secret', 'pw2', '-o', 'jsonpath={.data.password}']), 'base64').toString(), 'second');
  });

  it('keeps Events for --event-ttl with an etcd lease, then etcd deletes them and watchers see it', { timeout: 90_000 }, async () => {
    await stopCapstan(capstan!);
    capstan = undefined;
    capstan = await startCapstan(join(dir, 'data-ttl'), [...flags(), '--event-ttl', '3s']);
    const event = { apiVersion: 'v1', kind: 'Event', metadata: { name: 'ev1', namespace: 'default' }, involvedObject: { kind: 'ConfigMap', name: 'cm1', namespace: 'default' }, reason: 'Test', message: 'short-lived', type: 'Normal' };
    await ok(kc(), ['create', '-f', '-'], JSON.stringify(event));
    const kv = (await client.range({ key: Buffer.from('/registry/events/default/ev1') })).kvs[0];
    assert.ok(kv, 'the Event is at /registry/events/default/ev1');
    assert.notEqual(kv.lease, '0', 'the Event has a lease');
    assert.equal((await client.range({ key: Buffer.from('/registry/configmaps/default/cm1') })).kvs[0]?.lease, '0', 'a ConfigMap has none');
    await until('etcd expired the Event and capstan no longer has it', async () => (await kubectl(kc(), ['get', 'event', 'ev1'])).stderr.includes('NotFound'), 30_000, 250);
    assert.equal(await raw('/registry/events/default/ev1'), undefined);
  });

  it('refuses to start with a bad encryption configuration, in one line', { timeout: 60_000 }, async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, encryptionConfig('aescbc', Buffer.alloc(5, 1).toString('base64')));
    const started = startCapstan(join(dir, 'data-bad'), ['--storage', 'etcd', '--etcd-servers', etcd.url, '--encryption-provider-config', bad]);
    await assert.rejects(started, (err: Error) => {
      assert.match(err.message, /--encryption-provider-config .*bad\.yaml: resources\[0\]\.providers\[0\]\.aescbc\.keys\[0\]\.secret: Invalid value: "REDACTED": secret is not of the expected length, got 5, expected one of \[16 24 32\]/);
      return true;
    });
  });
});
