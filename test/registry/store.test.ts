// Object semantics of the generic registry, driven over HTTP against an in-memory server.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/server.js';
import { call, fixture, memoryServer, placeholders, sleep, until } from '../helpers.js';

const CM = '/api/v1/namespaces/default/configmaps';
const DEPLOY = '/apis/apps/v1/namespaces/default/deployments';

const deployment = (name: string, replicas = 1) => ({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
});

describe('registry object semantics', () => {
  let server: RunningServer;
  before(async () => {
    // Object semantics only: no workload controller writes the Deployments and ReplicaSets used here.
    server = await memoryServer({ controllers: ['*', '-deployment', '-replicaset', '-replicationcontroller'] });
  });
  after(() => server.close());

  it('generates names from generateName, and sets uid, creationTimestamp and resourceVersion', async () => {
    const a = await call(server.url, 'POST', CM, { body: { metadata: { generateName: 'gen-' } } });
    const b = await call(server.url, 'POST', CM, { body: { metadata: { generateName: 'gen-' } } });
    assert.equal(a.status, 201);
    assert.match(a.json.metadata.name, /^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.notEqual(a.json.metadata.name, b.json.metadata.name);
    assert.match(a.json.metadata.uid, /^[0-9a-f]{8}-[0-9a-f]{4}-/);
    assert.match(a.json.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.ok(Number(b.json.metadata.resourceVersion) > Number(a.json.metadata.resourceVersion));
    assert.equal(a.json.kind, 'ConfigMap');
    assert.equal(a.json.apiVersion, 'v1');
  });

  it('refuses a create without name or generateName with 422 Required', async () => {
    const r = await call(server.url, 'POST', CM, { body: { metadata: {} } });
    assert.equal(r.status, 422);
    assert.equal(r.json.details.causes[0].field, 'metadata.name');
    assert.equal(r.json.details.causes[0].reason, 'FieldValueRequired');
  });

  it('bumps generation only when the spec changes, and keeps the server fields on update', async () => {
    const created = await call(server.url, 'POST', DEPLOY, { body: deployment('gen') });
    assert.equal(created.json.metadata.generation, 1);
    const labeled = await call(server.url, 'PATCH', `${DEPLOY}/gen`, { body: { metadata: { labels: { x: 'y' } } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(labeled.json.metadata.generation, 1);
    const scaled = await call(server.url, 'PATCH', `${DEPLOY}/gen`, { body: { spec: { replicas: 3 } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(scaled.json.metadata.generation, 2);
    // (A uid in the body is a precondition, not ignored: see update-uid-mismatch in endpoints/errors.test.ts.)
    const replaced = await call(server.url, 'PUT', `${DEPLOY}/gen`, { body: { ...deployment('gen', 4), metadata: { name: 'gen', creationTimestamp: '2000-01-01T00:00:00Z' } } });
    assert.equal(replaced.status, 200);
    assert.equal(replaced.json.metadata.uid, created.json.metadata.uid);
    assert.equal(replaced.json.metadata.creationTimestamp, created.json.metadata.creationTimestamp);
    assert.equal(replaced.json.metadata.generation, 3);
  });

  it('an update that changes nothing keeps the resourceVersion', async () => {
    const created = await call(server.url, 'POST', CM, { body: { metadata: { name: 'same' }, data: { a: '1' } } });
    const again = await call(server.url, 'PUT', `${CM}/same`, { body: created.json });
    assert.equal(again.status, 200);
    assert.equal(again.json.metadata.resourceVersion, created.json.metadata.resourceVersion);
  });

  it('managedFields set to [] by a merge patch or a PUT are stripped, and later updates are not tracked', async () => {
    const merge = { 'Content-Type': 'application/merge-patch+json' };
    for (const [name, reset] of [['reset-by-patch', 'patch'], ['reset-by-put', 'put']] as const) {
      const created = await call(server.url, 'POST', CM, { body: { metadata: { name }, data: { a: '1' } } });
      assert.equal(created.json.metadata.managedFields.length, 1);
      const cleared = reset === 'patch'
        ? await call(server.url, 'PATCH', `${CM}/${name}`, { headers: merge, body: { metadata: { managedFields: [] }, data: { b: '2' } } })
        : await call(server.url, 'PUT', `${CM}/${name}`, { body: { ...created.json, metadata: { ...created.json.metadata, managedFields: [] }, data: { a: '1', b: '2' } } });
      assert.equal(cleared.status, 200);
      assert.equal(cleared.json.metadata.managedFields, undefined);
      assert.deepEqual(cleared.json.data, { a: '1', b: '2' });
      const labeled = await call(server.url, 'PATCH', `${CM}/${name}`, { headers: merge, body: { metadata: { labels: { x: 'y' } } } });
      assert.equal(labeled.json.metadata.managedFields, undefined);
      const got = await call(server.url, 'GET', `${CM}/${name}`);
      assert.equal(got.json.metadata.managedFields, undefined);
    }
    // Leaving managedFields out (or null) keeps them.
    const kept = await call(server.url, 'POST', CM, { body: { metadata: { name: 'kept-fields' }, data: { a: '1' } } });
    const patched = await call(server.url, 'PATCH', `${CM}/kept-fields`, { headers: merge, body: { metadata: { managedFields: null }, data: { b: '2' } } });
    assert.deepEqual(patched.json.metadata.managedFields.map((e: { manager: string }) => e.manager), [kept.json.metadata.managedFields[0].manager]);
  });

  it('ignores status on the main resource and changes only status through /status', async () => {
    await call(server.url, 'POST', DEPLOY, { body: deployment('st') });
    const main = await call(server.url, 'PATCH', `${DEPLOY}/st`, { body: { status: { replicas: 9 } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.deepEqual(main.json.status, {});
    const status = await call(server.url, 'PATCH', `${DEPLOY}/st/status`, { body: { status: { replicas: 9 }, spec: { replicas: 7 } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(status.status, 200);
    assert.equal(status.json.status.replicas, 9);
    assert.equal(status.json.spec.replicas, 1);
    assert.equal(status.json.metadata.generation, 1);
    const got = await call(server.url, 'GET', `${DEPLOY}/st/status`);
    assert.equal(got.json.status.replicas, 9);
  });

  it('needs an existing namespace for namespaced objects', async () => {
    const r = await call(server.url, 'POST', '/api/v1/namespaces/nowhere/configmaps', { body: { metadata: { name: 'x' } } });
    assert.equal(r.status, 404);
    assert.equal(r.json.message, 'namespaces "nowhere" not found');
  });

  it('creates on PUT where the reference allows it (leases), not elsewhere (configmaps)', async () => {
    const lease = await call(server.url, 'PUT', '/apis/coordination.k8s.io/v1/namespaces/default/leases/l1', { body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l1' }, spec: { holderIdentity: 'me' } } });
    assert.equal(lease.status, 201);
    const cm = await call(server.url, 'PUT', `${CM}/not-there`, { body: { metadata: { name: 'not-there' } } });
    assert.equal(cm.status, 404);
  });

  it('finalizers hold a deletion until they are removed', async () => {
    await call(server.url, 'POST', CM, { body: { metadata: { name: 'held', finalizers: ['example.com/hold'] } } });
    const del = await call(server.url, 'DELETE', `${CM}/held`);
    assert.equal(del.status, 200);
    assert.ok(del.json.metadata.deletionTimestamp);
    assert.equal((await call(server.url, 'GET', `${CM}/held`)).status, 200);
    // A terminating object gains no finalizer; its deletion mark cannot be written away.
    const added = await call(server.url, 'PATCH', `${CM}/held`, { body: { metadata: { finalizers: ['example.com/hold', 'example.com/more'] } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(added.status, 422);
    assert.equal(added.json.message, 'ConfigMap "held" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/more"}');
    const unmarked = await call(server.url, 'PATCH', `${CM}/held`, { body: { metadata: { deletionTimestamp: null }, data: { x: 'y' } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(unmarked.status, 200);
    assert.equal(unmarked.json.metadata.deletionTimestamp, del.json.metadata.deletionTimestamp);
    const released = await call(server.url, 'PATCH', `${CM}/held`, { body: { metadata: { finalizers: null } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(released.status, 200);
    assert.equal((await call(server.url, 'GET', `${CM}/held`)).status, 404);
  });

  it('answers a delete with a Status for configmaps and with the object for pods', async () => {
    await call(server.url, 'POST', CM, { body: { metadata: { name: 'gone' } } });
    const del = await call(server.url, 'DELETE', `${CM}/gone`);
    assert.equal(del.json.kind, 'Status');
    assert.equal(del.json.status, 'Success');
    assert.equal(del.json.details.name, 'gone');
    await call(server.url, 'POST', '/api/v1/namespaces/default/pods', { body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'x' }] } } });
    const pod = await call(server.url, 'DELETE', '/api/v1/namespaces/default/pods/p');
    assert.equal(pod.json.kind, 'Pod');
  });

  it('refuses to delete the system namespaces, and a deleted namespace takes its content along', async () => {
    const r = await call(server.url, 'DELETE', '/api/v1/namespaces/default');
    assert.equal(r.status, 403);
    assert.equal(r.json.reason, 'Forbidden');
    await call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'doomed' } } });
    await call(server.url, 'POST', '/api/v1/namespaces/doomed/configmaps', { body: { metadata: { name: 'c' } } });
    const del = await call(server.url, 'DELETE', '/api/v1/namespaces/doomed');
    assert.equal(del.status, 200);
    assert.equal(del.json.status.phase, 'Terminating');
    assert.ok(del.json.metadata.deletionTimestamp);
    assert.deepEqual(del.json.spec.finalizers, ['kubernetes']);
    // The namespace controller empties it (after the reference's 5 s grace period), then removes the "kubernetes" finalizer and it goes.
    await until('namespace doomed gone', async () => (await call(server.url, 'GET', '/api/v1/namespaces/doomed')).status === 404, 15_000, 50);
    assert.equal((await call(server.url, 'GET', '/api/v1/namespaces/doomed/configmaps/c')).status, 404);
  });

  it('a finalizer-held object keeps its namespace Terminating, with the reference conditions, until released', async () => {
    const ns = '/api/v1/namespaces/ref-terminating';
    await call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'ref-terminating' } } });
    await call(server.url, 'POST', `${ns}/configmaps`, { body: { metadata: { name: 'held', finalizers: ['example.com/hold'] } } });
    await call(server.url, 'POST', `${ns}/configmaps`, { body: { metadata: { name: 'free' } } });
    assert.equal((await call(server.url, 'DELETE', ns)).status, 200);
    const expected = fixture('errors/terminating-namespace-object').response.body as { status: { conditions: Array<Record<string, string>> } };
    let got: { status: { phase: string; conditions?: Array<Record<string, string>> } } | undefined;
    await until('five namespace conditions', async () => {
      got = (await call(server.url, 'GET', ns)).json;
      return (got?.status.conditions?.length ?? 0) === 5;
    }, 15_000, 50);
    assert.equal(got!.status.phase, 'Terminating');
    assert.deepEqual(placeholders(got!.status.conditions), expected.status.conditions);
    assert.equal((await call(server.url, 'GET', `${ns}/configmaps/free`)).status, 404);
    const late = fixture('errors/create-in-terminating-namespace');
    const refused = await call(server.url, 'POST', late.request.path, { body: late.request.body });
    assert.equal(refused.status, 403);
    assert.deepEqual(refused.json, late.response.body);
    await call(server.url, 'PATCH', `${ns}/configmaps/held`, { body: { metadata: { finalizers: null } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    await until('namespace ref-terminating gone', async () => (await call(server.url, 'GET', ns)).status === 404, 15_000, 50);
  });

  it('namespaces/{name}/finalize changes only spec.finalizers', async () => {
    await call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'fin', labels: { a: 'b' } } } });
    const ns = (await call(server.url, 'GET', '/api/v1/namespaces/fin')).json;
    const r = await call(server.url, 'PUT', '/api/v1/namespaces/fin/finalize', { body: { ...ns, metadata: { ...ns.metadata, labels: { a: 'changed' } }, spec: { finalizers: [] } } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.spec.finalizers, []);
    assert.equal(r.json.metadata.labels.a, 'b');
  });

  it('deletecollection honours the label selector', async () => {
    await call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'dc' } } });
    for (const [name, tier] of [['a', 'web'], ['b', 'web'], ['c', 'db']]) {
      await call(server.url, 'POST', '/api/v1/namespaces/dc/configmaps', { body: { metadata: { name, labels: { tier } } } });
    }
    const r = await call(server.url, 'DELETE', '/api/v1/namespaces/dc/configmaps?labelSelector=tier%3Dweb');
    assert.equal(r.status, 200);
    assert.deepEqual(r.json.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['a', 'b']);
    const left = await call(server.url, 'GET', '/api/v1/namespaces/dc/configmaps');
    assert.deepEqual(left.json.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['c']);
  });

  it('lists across namespaces, pages with limit and continue', async () => {
    const all = await call(server.url, 'GET', '/api/v1/configmaps');
    assert.equal(all.status, 200);
    assert.ok(all.json.items.length >= 3);
    const first = await call(server.url, 'GET', '/api/v1/configmaps?limit=2');
    assert.equal(first.json.items.length, 2);
    assert.ok(first.json.metadata.continue);
    const second = await call(server.url, 'GET', `/api/v1/configmaps?limit=100&continue=${encodeURIComponent(first.json.metadata.continue)}`);
    const names = [...first.json.items, ...second.json.items].map((i: { metadata: { namespace: string; name: string } }) => `${i.metadata.namespace}/${i.metadata.name}`);
    assert.deepEqual(names, all.json.items.map((i: { metadata: { namespace: string; name: string } }) => `${i.metadata.namespace}/${i.metadata.name}`));
    const garbage = await call(server.url, 'GET', '/api/v1/configmaps?limit=1&continue=garbage');
    assert.equal(garbage.status, 400);
  });

  it('serves an object stored in one version through another served version', async () => {
    const fs = { apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta2', kind: 'FlowSchema', metadata: { name: 'fs1' }, spec: { priorityLevelConfiguration: { name: 'global-default' } } };
    assert.equal((await call(server.url, 'POST', '/apis/flowcontrol.apiserver.k8s.io/v1beta2/flowschemas', { body: fs })).status, 201);
    const old = await call(server.url, 'GET', '/apis/flowcontrol.apiserver.k8s.io/v1beta1/flowschemas/fs1');
    assert.equal(old.status, 200);
    assert.equal(old.json.apiVersion, 'flowcontrol.apiserver.k8s.io/v1beta1');
    const list = await call(server.url, 'GET', '/apis/flowcontrol.apiserver.k8s.io/v1beta1/flowschemas');
    assert.equal(list.json.apiVersion, 'flowcontrol.apiserver.k8s.io/v1beta1');
    // Among the bootstrap FlowSchemas every server keeps.
    assert.ok(list.json.items.some((i: { metadata: { name: string } }) => i.metadata.name === 'fs1'));
  });

  it('watches a collection: initial ADDED, then changes, closed at timeoutSeconds', async () => {
    await call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'w' } } });
    await call(server.url, 'POST', '/api/v1/namespaces/w/configmaps', { body: { metadata: { name: 'one' } } });
    const watching = call(server.url, 'GET', '/api/v1/namespaces/w/configmaps?watch=1&timeoutSeconds=1');
    await sleep(100);
    await call(server.url, 'POST', '/api/v1/namespaces/w/configmaps', { body: { metadata: { name: 'two' } } });
    await call(server.url, 'DELETE', '/api/v1/namespaces/w/configmaps/one');
    const reply = await watching;
    const events = reply.text.trim().split('\n').map((l) => JSON.parse(l) as { type: string; object: { metadata: { name: string } } });
    assert.deepEqual(events.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED one', 'ADDED two', 'DELETED one']);
  });
});

describe('history window', () => {
  it('forgets changes older than the window: 410 for an old watch start, storage compacted', async () => {
    const { startServer } = await import('../../src/server/server.js');
    const server = await startServer({ bindAddress: '127.0.0.1', port: 0, storage: 'memory', dataDir: '', historyWindowMs: 300, insecure: true });
    try {
      const first = await call(server.url, 'POST', CM, { body: { metadata: { name: 'old' } } });
      const rv = Number(first.json.metadata.resourceVersion);
      await call(server.url, 'GET', CM); // starts the watch cache
      await call(server.url, 'PUT', `${CM}/old`, { body: { metadata: { name: 'old' }, data: { a: 'b' } } });
      await sleep(900);
      await call(server.url, 'POST', CM, { body: { metadata: { name: 'new' } } });
      const watch = await call(server.url, 'GET', `${CM}?watch=1&resourceVersion=${rv}`);
      assert.equal(watch.status, 200);
      const event = JSON.parse(watch.text.trim());
      assert.equal(event.type, 'ERROR');
      assert.equal(event.object.code, 410);
      assert.match(event.object.message, new RegExp(`^too old resource version: ${rv} \\(\\d+\\)$`));
      const exact = await call(server.url, 'GET', `${CM}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
      assert.equal(exact.status, 410);
      assert.ok(server.storage.compactedRevision() > rv);
    } finally {
      await server.close();
    }
  });
});
