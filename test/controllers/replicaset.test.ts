// ReplicaSets and ReplicationControllers keep their pods as kube-controller-manager's controllers
// do: pods from the template with generated names and controller references, adoption and release
// by selector, scale down by the reference's ranking, status and events, a quota refusal recorded
// as FailedCreate and ReplicaFailure, and two owners over the same pods not fighting.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/server.js';
import { call, memoryServer, mustOk, sleep, until } from '../helpers.js';

const APPS = '/apis/apps/v1/namespaces/default';
const CORE = '/api/v1/namespaces/default';
const MERGE = { 'Content-Type': 'application/merge-patch+json' };

function replicaSet(name: string, replicas: number, labels: Record<string, string>): unknown {
  return {
    metadata: { name },
    spec: { replicas, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  };
}

describe('replicaset and replicationcontroller controllers', { timeout: 60_000 }, () => {
  let server: RunningServer;
  const get = async (path: string) => (await mustOk(call(server.url, 'GET', path))).json;
  const podsOf = async (selector: string) => (await get(`${CORE}/pods?labelSelector=${encodeURIComponent(selector)}`)).items as any[];
  const eventsOf = async (name: string) => ((await get(`${CORE}/events?fieldSelector=involvedObject.name=${name}`)).items as any[]);
  const markReady = async (pod: any) => mustOk(call(server.url, 'PATCH', `${CORE}/pods/${pod.metadata.name}/status`, {
    headers: MERGE, body: { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date().toISOString() }] } },
  }));

  before(async () => {
    server = await memoryServer();
  });
  after(() => server.close());

  it('creates the pods of a ReplicaSet, records events and status, and scales down the unready first', async () => {
    await mustOk(call(server.url, 'POST', `${APPS}/replicasets`, { body: replicaSet('web', 3, { app: 'web' }) }), 201);
    const pods = await until('3 pods', async () => {
      const p = await podsOf('app=web');
      return p.length === 3 && p;
    });
    for (const p of pods) {
      assert.match(p.metadata.name, /^web-[a-z0-9]{5}$/);
      assert.equal(p.metadata.generateName, 'web-');
      assert.deepEqual(p.metadata.ownerReferences.map((r: any) => [r.kind, r.name, r.controller, r.blockOwnerDeletion]), [['ReplicaSet', 'web', true, true]]);
      assert.equal(p.metadata.managedFields[0].manager, 'kube-controller-manager');
    }
    const rs = await until('status of 3', async () => {
      const r = await get(`${APPS}/replicasets/web`);
      return r.status?.replicas === 3 && r.status.observedGeneration === 1 && r;
    });
    assert.deepEqual(rs.status, { replicas: 3, fullyLabeledReplicas: 3, observedGeneration: 1 });
    const created = (await eventsOf('web')).filter((e) => e.reason === 'SuccessfulCreate');
    assert.equal(created.length, 3);
    assert.equal(created[0].source.component, 'replicaset-controller');
    assert.match(created[0].message, /^Created pod: web-[a-z0-9]{5}$/);

    // Two ready, one not: scaling to 2 deletes the one not ready.
    await markReady(pods[0]);
    await markReady(pods[1]);
    await until('ready 2', async () => (await get(`${APPS}/replicasets/web`)).status?.readyReplicas === 2);
    const ready = await get(`${APPS}/replicasets/web`);
    assert.equal(ready.status.availableReplicas, 2);
    await mustOk(call(server.url, 'PATCH', `${APPS}/replicasets/web`, { headers: MERGE, body: { spec: { replicas: 2 } } }));
    await until('2 pods', async () => (await podsOf('app=web')).filter((p) => !p.metadata.deletionTimestamp).length === 2);
    const left = (await podsOf('app=web')).filter((p) => !p.metadata.deletionTimestamp).map((p) => p.metadata.name).sort();
    assert.deepEqual(left, [pods[0].metadata.name, pods[1].metadata.name].sort());
    await until('SuccessfulDelete', async () => (await eventsOf('web')).some((e) => e.reason === 'SuccessfulDelete' && e.message === `Deleted pod: ${pods[2].metadata.name}`));
  });

  it('adopts a matching orphan, releases a pod relabelled away, and replaces it', async () => {
    await mustOk(call(server.url, 'POST', `${CORE}/pods`, { body: { metadata: { name: 'stray', labels: { app: 'adopt' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } }), 201);
    await mustOk(call(server.url, 'POST', `${APPS}/replicasets`, { body: replicaSet('adopter', 2, { app: 'adopt' }) }), 201);
    await until('2 pods, stray adopted', async () => {
      const p = await podsOf('app=adopt');
      const stray = p.find((x) => x.metadata.name === 'stray');
      return p.length === 2 && stray?.metadata.ownerReferences?.[0]?.name === 'adopter';
    });
    await mustOk(call(server.url, 'PATCH', `${CORE}/pods/stray`, { headers: MERGE, body: { metadata: { labels: { app: 'gone' } } } }));
    await until('stray released and replaced', async () => {
      const stray = await get(`${CORE}/pods/stray`);
      return !stray.metadata.ownerReferences && (await podsOf('app=adopt')).length === 2;
    });
  });

  it('counts a ready pod available once minReadySeconds have passed, with no other event', async () => {
    const body = replicaSet('slow', 1, { app: 'slow' }) as any;
    body.spec.minReadySeconds = 1;
    await mustOk(call(server.url, 'POST', `${APPS}/replicasets`, { body }), 201);
    const [pod] = await until('1 pod', async () => {
      const p = await podsOf('app=slow');
      return p.length === 1 && p;
    });
    await markReady(pod);
    const ready = await until('ready', async () => {
      const r = await get(`${APPS}/replicasets/slow`);
      return r.status?.readyReplicas === 1 && r;
    });
    assert.equal(ready.status.availableReplicas, undefined, 'not available before minReadySeconds');
    await until('available', async () => (await get(`${APPS}/replicasets/slow`)).status?.availableReplicas === 1, 5000);
  });

  it('runs ReplicationControllers with their own component', async () => {
    await mustOk(call(server.url, 'POST', `${CORE}/replicationcontrollers`, {
      body: { metadata: { name: 'rc' }, spec: { replicas: 2, selector: { app: 'rc' }, template: { metadata: { labels: { app: 'rc' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } },
    }), 201);
    const pods = await until('2 pods', async () => {
      const p = await podsOf('app=rc');
      return p.length === 2 && p;
    });
    assert.equal(pods[0].metadata.ownerReferences[0].kind, 'ReplicationController');
    assert.equal(pods[0].metadata.ownerReferences[0].apiVersion, 'v1');
    await until('status', async () => (await get(`${CORE}/replicationcontrollers/rc`)).status?.replicas === 2);
    const events = await eventsOf('rc');
    assert.ok(events.some((e) => e.reason === 'SuccessfulCreate' && e.source.component === 'replication-controller'));
  });

  it('records a quota refusal as FailedCreate and the ReplicaFailure condition', async () => {
    await mustOk(call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'quota' } } }), 201);
    await mustOk(call(server.url, 'POST', '/api/v1/namespaces/quota/resourcequotas', { body: { metadata: { name: 'q' }, spec: { hard: { pods: '1' } } } }), 201);
    await until('quota status', async () => (await get('/api/v1/namespaces/quota/resourcequotas/q')).status?.hard?.pods === '1');
    await mustOk(call(server.url, 'POST', '/apis/apps/v1/namespaces/quota/replicasets', { body: replicaSet('capped', 3, { app: 'capped' }) }), 201);
    const rs = await until('ReplicaFailure', async () => {
      const r = await get('/apis/apps/v1/namespaces/quota/replicasets/capped');
      return r.status?.conditions?.some((c: any) => c.type === 'ReplicaFailure') && r;
    });
    const cond = rs.status.conditions.find((c: any) => c.type === 'ReplicaFailure');
    assert.equal(cond.reason, 'FailedCreate');
    assert.match(cond.message, /exceeded quota: q/);
    const events = (await get('/api/v1/namespaces/quota/events')).items as any[];
    const failed = events.find((e) => e.reason === 'FailedCreate');
    assert.equal(failed.type, 'Warning');
    assert.match(failed.message, /^Error creating: .*exceeded quota: q/);
    assert.equal((await get('/api/v1/namespaces/quota/pods')).items.length, 1);
  });

  it('two ReplicaSets with overlapping selectors do not fight over the same pods', async () => {
    await mustOk(call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'overlap' } } }), 201);
    const base = '/apis/apps/v1/namespaces/overlap/replicasets';
    await mustOk(call(server.url, 'POST', base, { body: replicaSet('one', 2, { app: 'same' }) }), 201);
    await mustOk(call(server.url, 'POST', base, { body: replicaSet('two', 2, { app: 'same' }) }), 201);
    await until('4 pods', async () => ((await get('/api/v1/namespaces/overlap/pods')).items as any[]).length === 4);
    await sleep(500);
    const before = await get('/api/v1/namespaces/overlap/pods');
    const rsBefore = await get(base);
    await sleep(3000);
    const afterPods = await get('/api/v1/namespaces/overlap/pods');
    const rsAfter = await get(base);
    // Nothing written for three seconds: every pod has one owner and stays as it was.
    const versions = (list: any) => (list.items as any[]).map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`);
    assert.deepEqual(versions(afterPods), versions(before));
    assert.deepEqual(versions(rsAfter), versions(rsBefore));
    const owners = (afterPods.items as any[]).map((p) => p.metadata.ownerReferences.length);
    assert.deepEqual(owners, [1, 1, 1, 1]);
  });
});
