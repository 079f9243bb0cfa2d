// --etcd-servers-overrides as the reference's: `/events#<servers>` keeps core Events (and
// events.k8s.io's, the same resource in the reference) in a second etcd, everything else in the
// first; Events keep that etcd's revisions as their resourceVersions, and reads and watches from
// them work. A value the reference would refuse stops the start with one line. Skipped when
// /usr/bin/etcd is absent.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { decodeStored } from '../../src/server/etcd-values.js';
import { EtcdClient } from '../../src/storage/etcd/client.js';
import { call, kubeconfigTls, mustOk, repoRoot, sleep, until, type ClientTls } from '../helpers.js';
import { EtcdProcess, etcdMissing } from '../storage/etcd-process.js';
import { ok, startCapstan, stopCapstan, type Capstan } from './harness.js';

describe('--etcd-servers-overrides', { skip: etcdMissing, timeout: 180_000 }, () => {
  let main: EtcdProcess;
  let events: EtcdProcess;
  let mainClient: EtcdClient;
  let eventsClient: EtcdClient;
  let capstan: Capstan;
  let base: string;
  let tls: ClientTls;
  const dir = mkdtempSync(join(tmpdir(), 'capstan-e2e-overrides-'));
  const keysIn = async (client: EtcdClient, prefix: string): Promise<string[]> => {
    const r = await client.range({ key: Buffer.from(prefix), rangeEnd: Buffer.from(prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1)), keysOnly: true });
    return r.kvs.map((kv) => kv.key.toString());
  };
  const event = (name: string) => ({
    metadata: { name }, involvedObject: { kind: 'ConfigMap', namespace: 'default', name: 'cm' }, reason: 'Tested', message: name, type: 'Normal',
  });

  before(async () => {
    [main, events] = await Promise.all([EtcdProcess.start(), EtcdProcess.start()]);
    mainClient = new EtcdClient({ endpoints: [main.url] });
    eventsClient = new EtcdClient({ endpoints: [events.url] });
    // The Events etcd well ahead of the other in revisions, so that mixing the two would show.
    for (let i = 0; i < 40; i++) {
      await Promise.all(Array.from({ length: 50 }, (_, j) => eventsClient.txn({ compare: [], success: [{ put: { key: Buffer.from(`/elsewhere/${i}-${j}`), value: Buffer.from('x') } }], failure: [] })));
    }
    capstan = await startCapstan(join(dir, 'data'), ['--storage', 'etcd', '--etcd-servers', main.url, '--etcd-servers-overrides', `/events#${events.url}`]);
    base = /server: (\S+)/.exec(readFileSync(capstan.kubeconfig, 'utf8'))![1]!;
    tls = kubeconfigTls(capstan.kubeconfig);
  });
  after(async () => {
    mainClient?.close();
    eventsClient?.close();
    if (capstan) await stopCapstan(capstan);
    await Promise.all([main?.destroy(), events?.destroy()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps Events in the second etcd and the rest in the first', async () => {
    await mustOk(call(base, 'POST', '/api/v1/namespaces/default/configmaps', { tls, body: { metadata: { name: 'cm' } } }), 201);
    const created = await mustOk(call(base, 'POST', '/api/v1/namespaces/default/events', { tls, body: event('ev1') }), 201);
    await mustOk(call(base, 'POST', '/apis/events.k8s.io/v1/namespaces/default/events', {
      tls, body: { metadata: { name: 'ev2' }, regarding: { kind: 'ConfigMap', namespace: 'default', name: 'cm' }, reason: 'Tested', action: 'Test', type: 'Normal', eventTime: '2026-01-01T00:00:00.000000Z', reportingController: 'test', reportingInstance: 'test' },
    }), 201);
    assert.ok((await keysIn(mainClient, '/registry/configmaps/default/')).includes('/registry/configmaps/default/cm'), 'the ConfigMap in the main etcd');
    assert.deepEqual(await keysIn(eventsClient, '/registry/configmaps/'), [], 'no ConfigMap in the Events etcd');
    assert.deepEqual(await keysIn(mainClient, '/registry/events'), [], 'no Event in the main etcd');
    const eventKeys = await keysIn(eventsClient, '/registry/events');
    assert.ok(eventKeys.includes('/registry/events/default/ev1'), eventKeys.join(' '));
    assert.ok(eventKeys.some((k) => k.endsWith('/default/ev2')), eventKeys.join(' '));
    const kv = (await eventsClient.range({ key: Buffer.from('/registry/events/default/ev1') })).kvs[0]!;
    assert.equal(decodeStored(kv.value)['kind'], 'Event', 'stored in the reference\'s Protobuf envelope');
    // Its resourceVersion is the Events etcd's revision.
    assert.equal(created.json.metadata.resourceVersion, String(kv.modRevision));
    assert.ok(kv.modRevision > 2000);
  });

  it('reads, lists and watches Events from their own etcd\'s resourceVersions', async () => {
    const listed = await mustOk(call(base, 'GET', '/api/v1/namespaces/default/events', { tls }));
    const rv = String(listed.json.metadata.resourceVersion);
    assert.ok(Number(rv) > 2000, `the list's resourceVersion (${rv}) is the Events etcd's`);
    await mustOk(call(base, 'GET', `/api/v1/namespaces/default/events?resourceVersion=${rv}&resourceVersionMatch=NotOlderThan`, { tls }));
    await mustOk(call(base, 'GET', `/api/v1/namespaces/default/events/ev1?resourceVersion=${rv}`, { tls }));
    const cms = await mustOk(call(base, 'GET', '/api/v1/namespaces/default/configmaps', { tls }));
    assert.ok(Number(cms.json.metadata.resourceVersion) < Number(rv), 'ConfigMaps keep the main etcd\'s revisions');
    const watch = spawn('kubectl', ['--kubeconfig', capstan.kubeconfig, 'get', 'events', '--watch-only', '-o', 'name'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let watched = '';
    watch.stdout.on('data', (c: Buffer) => (watched += c.toString()));
    watch.stderr.on('data', (c: Buffer) => (watched += c.toString()));
    try {
      await sleep(1_000);
      await mustOk(call(base, 'POST', '/api/v1/namespaces/default/events', { tls, body: event('ev3') }), 201);
      await until(() => `the watch shows the new Event: ${watched}`, () => watched.includes('event/ev3'), 10_000, 50);
    } finally {
      watch.kill();
    }
    await ok(capstan.kubeconfig, ['get', 'events']);
  });

  it('refuses a value the reference refuses, with one line', () => {
    const r = spawnSync(process.execPath, [join(repoRoot, 'dist/src/cmd/capstan.js'), '--data-dir', join(dir, 'bad'), '--secure-port', '0', '--etcd-servers', main.url, '--etcd-servers-overrides', `events#${events.url}`], { encoding: 'utf8', timeout: 20_000 });
    assert.notEqual(r.status, 0);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /--etcd-servers-overrides: invalid, must be of format: group\/resource#servers, where servers are URLs, semicolon separated/);
  });
});
