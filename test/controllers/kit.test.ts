// The pieces every workload controller shares: the work queue, the event recorder, the writer,
// --controllers, the hashes and the claiming of objects by selector.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseOptions } from '../../src/cmd/options.js';
import { prepareKubeApiserver } from '../../src/cmd/kube-apiserver-start.js';
import { EventRecorder } from '../../src/controllers/kit/events.js';
import { fnv32a, podTemplateHash, safeEncode } from '../../src/controllers/kit/hash.js';
import { claim, controllerOf, controllerReference, podFromTemplate } from '../../src/controllers/kit/owned.js';
import { controllerEnabled, parseControllers } from '../../src/controllers/kit/selection.js';
import { WorkQueue } from '../../src/controllers/kit/work-queue.js';
import { controllerWriter } from '../../src/controllers/kit/writer.js';
import { conflict } from '../../src/errors.js';
import { decodeJson, type JsonObject } from '../../src/json.js';
import { Registry } from '../../src/registry/store.js';
import type { RunningServer } from '../../src/server/server.js';
import { call, memoryServer, mustOk, sleep, until } from '../helpers.js';

describe('the work queue', { timeout: 10_000 }, () => {
  it('works a key queued many times once, and again when it was queued while worked', async () => {
    const worked: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const q = new WorkQueue(async (key) => {
      worked.push(key);
      if (worked.length === 1) await gate;
    }, { workers: 1 });
    q.add('a');
    q.add('a');
    await sleep(5);
    q.add('a'); // while worked
    q.add('b');
    q.add('b');
    release();
    await q.idle();
    assert.deepEqual(worked, ['a', 'b', 'a']);
    q.stop();
  });

  it('retries a failed key with a growing delay and reports only unexpected errors', async () => {
    let attempts = 0;
    const reported: unknown[] = [];
    const q = new WorkQueue(async () => {
      attempts++;
      if (attempts === 1) throw conflict({ group: '', resource: 'configmaps' }, 'a', 'changed');
      if (attempts === 2) throw new Error('boom');
    }, { baseDelayMs: 5, onError: (_key, err) => reported.push(err) });
    q.add('k');
    await until('worked three times', async () => attempts === 3, 2000);
    assert.equal(reported.length, 1);
    assert.equal((reported[0] as Error).message, 'boom');
    q.stop();
  });

  it('stops: nothing queued or delayed runs after', async () => {
    let worked = 0;
    const q = new WorkQueue(async () => void worked++);
    q.addAfter('later', 20);
    q.stop();
    q.add('now');
    await sleep(50);
    assert.equal(worked, 0);
  });
});

describe('--controllers', { timeout: 30_000 }, () => {
  it('reads the reference\'s syntax: *, name, -name; bootstrapsigner and tokencleaner only when named', () => {
    assert.deepEqual(parseOptions([]).options.controllers, ['*']);
    const words = parseOptions(['--controllers=*,-deployment,bootstrapsigner']).options.controllers;
    assert.equal(controllerEnabled('replicaset', words), true);
    assert.equal(controllerEnabled('deployment', words), false);
    assert.equal(controllerEnabled('bootstrapsigner', words), true);
    assert.equal(controllerEnabled('tokencleaner', words), false);
    assert.equal(controllerEnabled('namespace', ['deployment']), false);
    assert.deepEqual(parseControllers('job, -cronjob'), ['job', '-cronjob']);
  });

  it('refuses an unknown controller with the reference\'s message', () => {
    assert.throws(() => parseOptions(['--controllers=*,frobnicator']), /--controllers: "frobnicator" is not in the list of known controllers/);
  });

  it('a server without the namespace controller leaves a deleted namespace Terminating', async () => {
    const server = await memoryServer({ controllers: ['*', '-namespace'] });
    try {
      await mustOk(call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'stays' } } }), 201);
      await mustOk(call(server.url, 'DELETE', '/api/v1/namespaces/stays'));
      await sleep(300);
      const ns = await mustOk(call(server.url, 'GET', '/api/v1/namespaces/stays'));
      assert.equal(ns.json.status.phase, 'Terminating');
    } finally {
      await server.close();
    }
  });

  it('makes the service account of each selected controller in kube-system; a namespace gets no default account without the service account controller', async () => {
    const server = await memoryServer({ controllers: ['*', '-deployment', '-serviceaccount'] });
    try {
      const sa = (name: string) => call(server.url, 'GET', `/api/v1/namespaces/kube-system/serviceaccounts/${name}`);
      assert.equal((await sa('replicaset-controller')).status, 200);
      assert.equal((await sa('generic-garbage-collector')).status, 200);
      assert.equal((await sa('deployment-controller')).status, 404);
      await mustOk(call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'bare' } } }), 201);
      await sleep(300);
      assert.equal((await call(server.url, 'GET', '/api/v1/namespaces/bare/serviceaccounts/default')).status, 404);
    } finally {
      await server.close();
    }
  });

  it('the kube-apiserver launcher (envtest, no controller manager) leaves the workload controllers off', async () => {
    const prepared = await prepareKubeApiserver(['--secure-port=0'], process.cwd());
    assert.ok(prepared.options.controllers.includes('-deployment'));
    assert.ok(prepared.options.controllers.includes('-replicaset'));
    assert.equal(controllerEnabled('garbagecollector', prepared.options.controllers), true);
    const named = await prepareKubeApiserver(['--secure-port=0', '--controllers=*'], process.cwd());
    assert.deepEqual(named.options.controllers, ['*']);
  });
});

describe('hashes', { timeout: 5_000 }, () => {
  it('FNV-32a and the reference\'s safe alphabet', () => {
    assert.equal(fnv32a(new Uint8Array()), 0x811c9dc5);
    assert.equal(fnv32a(Buffer.from('a')), 0xe40c292c);
    assert.equal(fnv32a(Buffer.from('foobar')), 0xbf9cf968);
    assert.equal(safeEncode('0123456789'), 'bcdfghjklm'.split('').map((_, i) => 'bcdfghjklmnpqrstvwxz2456789'[(48 + i) % 27]).join(''));
    assert.doesNotMatch(podTemplateHash({ metadata: { labels: { app: 'anything' } } }, 3), /[aeiou013]/);
    assert.notEqual(podTemplateHash({ metadata: { labels: { app: 'x' } } }, 0), podTemplateHash({ metadata: { labels: { app: 'x' } } }, 1));
  });
});

describe('events and claims', { timeout: 20_000 }, () => {
  let server: RunningServer;
  let registry: Registry;
  before(async () => {
    // No workload controller runs: the claims below are the test's alone (pods need the default account).
    server = await memoryServer({ controllers: ['serviceaccount'] });
    registry = new Registry(server.definitions, server.storage);
  });
  after(() => server.close());

  const podsInfo = () => registry.definitions.lookup('', 'v1', 'pods')!;

  it('records an Event as kube-controller-manager does, counting repeats on the first one', async () => {
    const cm = await mustOk(call(server.url, 'POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'about' } } }), 201);
    const recorder = new EventRecorder(registry, 'test-controller', controllerWriter('test-controller'));
    recorder.record(cm.json, 'Normal', 'Tested', 'Tested once');
    await until('one event', async () => (await call(server.url, 'GET', '/api/v1/namespaces/default/events?fieldSelector=reason%3DTested')).json.items.length === 1);
    recorder.record(cm.json, 'Normal', 'Tested', 'Tested once');
    await until('count 2', async () => (await call(server.url, 'GET', '/api/v1/namespaces/default/events?fieldSelector=reason%3DTested')).json.items[0].count === 2);
    const [event] = (await call(server.url, 'GET', '/api/v1/namespaces/default/events?fieldSelector=reason%3DTested')).json.items;
    assert.match(event.metadata.name, /^about\.[0-9a-f]{12,}$/);
    assert.deepEqual(event.source, { component: 'test-controller' });
    assert.deepEqual(event.involvedObject, { kind: 'ConfigMap', namespace: 'default', name: 'about', uid: cm.json.metadata.uid, apiVersion: 'v1', resourceVersion: cm.json.metadata.resourceVersion });
    assert.equal(event.type, 'Normal');
    assert.equal(event.metadata.managedFields[0].manager, 'kube-controller-manager');
  });

  it('lets one object raise a burst of 25 events, then holds the rest', async () => {
    const cm = await mustOk(call(server.url, 'POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'noisy' } } }), 201);
    const recorder = new EventRecorder(registry, 'test-controller', controllerWriter('test-controller'));
    for (let i = 0; i < 40; i++) recorder.record(cm.json, 'Warning', 'Noisy', `attempt ${i}`);
    await until('25 events', async () => (await call(server.url, 'GET', '/api/v1/namespaces/default/events?fieldSelector=reason%3DNoisy')).json.items.length === 25);
    await sleep(200);
    assert.equal((await call(server.url, 'GET', '/api/v1/namespaces/default/events?fieldSelector=reason%3DNoisy')).json.items.length, 25);
  });

  it('claims by selector: adopts matching orphans, releases owned pods that no longer match, leaves others\' pods', async () => {
    const owner = (await mustOk(call(server.url, 'POST', '/apis/apps/v1/namespaces/default/replicasets', {
      body: { metadata: { name: 'owner' }, spec: { replicas: 0, selector: { matchLabels: { app: 'x' } }, template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } },
    }), 201)).json as JsonObject;
    const other = { ...owner, metadata: { name: 'other', uid: '00000000-0000-0000-0000-00000000beef' } };
    const make = async (name: string, labels: Record<string, string>, ownerRefs?: JsonObject[]) => (await mustOk(call(server.url, 'POST', '/api/v1/namespaces/default/pods', {
      body: { metadata: { name, labels, ...(ownerRefs ? { ownerReferences: ownerRefs } : {}) }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    }), 201)).json as JsonObject;
    const fromTemplate = podFromTemplate((owner['spec'] as JsonObject)['template'], owner, { generateName: 'owner-' });
    assert.deepEqual(controllerOf(fromTemplate), { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'owner', uid: (owner['metadata'] as JsonObject)['uid'], controller: true, blockOwnerDeletion: true });
    const orphan = await make('orphan', { app: 'x' });
    const strayed = await make('strayed', { app: 'y' }, [controllerReference(owner)]);
    const foreign = await make('foreign', { app: 'x' }, [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'other', uid: (other.metadata as JsonObject)['uid'], controller: true }]);
    const claimed = await claim(registry, podsInfo(), controllerWriter('replicaset-controller'), owner, { matchLabels: { app: 'x' } }, [orphan, strayed, foreign]);
    assert.deepEqual(claimed.map((p) => (p['metadata'] as JsonObject)['name']), ['orphan']);
    const read = async (name: string) => decodeJson(await registry.get(podsInfo(), 'default', name));
    assert.equal(controllerOf(await read('orphan'))?.['name'], 'owner');
    assert.equal(controllerOf(await read('strayed')), undefined);
    assert.equal(controllerOf(await read('foreign'))?.['name'], 'other');
  });
});
