// StatefulSets as kube-controller-manager runs them: claims then pods `<set>-<ordinal>`, one at a
// time while each turns Running and Ready (the test stands in for the kubelet), ControllerRevisions,
// rolling updates from the highest ordinal, scale down, and a pod refused by admission.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/server.js';
import { call, memoryServer, mustOk, sleep, until } from '../helpers.js';

const MERGE = { 'Content-Type': 'application/merge-patch+json' };
const NS = '/api/v1/namespaces/default';
const APPS = '/apis/apps/v1/namespaces/default';

function statefulSet(name: string, extra: Record<string, unknown> = {}) {
  return {
    apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name },
    spec: {
      serviceName: `${name}-headless`, replicas: 2, selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.25' }] } },
      volumeClaimTemplates: [{ metadata: { name: 'www' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
      ...extra,
    },
  };
}

describe('statefulset controller', { timeout: 60_000 }, () => {
  let server: RunningServer;
  const get = async (path: string) => call(server.url, 'GET', path);
  const exists = async (path: string) => (await get(path)).status === 200;
  const markReady = async (ns: string, pod: string) => mustOk(call(server.url, 'PATCH', `/api/v1/namespaces/${ns}/pods/${pod}/status`, {
    body: { status: { phase: 'Running', podIP: '10.0.0.9', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date().toISOString() }] } }, headers: MERGE,
  }));
  before(async () => {
    server = await memoryServer();
  });
  after(() => server.close());

  it('names the recorded StatefulSet\'s revision and pod as the reference did', async () => {
    const url = new URL('../../../test/fixtures/reference/create/apps-v1-statefulsets.json', import.meta.url);
    const body = JSON.parse(readFileSync(url, 'utf8')).request.body;
    await mustOk(call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'ref-create' } } }), 201);
    await mustOk(call(server.url, 'POST', '/apis/apps/v1/namespaces/ref-create/statefulsets', { body }), 201);
    const pod = await until('web-0', async () => { const r = await get('/api/v1/namespaces/ref-create/pods/web-0'); return r.status === 200 && r.json; });
    assert.deepEqual(pod.metadata.labels, { app: 'web', 'controller-revision-hash': 'web-85bcd66f99', 'statefulset.kubernetes.io/pod-name': 'web-0' });
    const revision = (await mustOk(get('/apis/apps/v1/namespaces/ref-create/controllerrevisions/web-85bcd66f99'))).json;
    assert.deepEqual(revision.metadata.labels, { app: 'web', 'controller.kubernetes.io/hash': '85bcd66f99' });
    assert.equal(revision.metadata.annotations, undefined);
    const status = await until('status', async () => { const s = (await get('/apis/apps/v1/namespaces/ref-create/statefulsets/web')).json.status; return s.updateRevision && s; });
    assert.deepEqual(status, {
      observedGeneration: 1, replicas: 1, currentReplicas: 1, updatedReplicas: 1, currentRevision: 'web-85bcd66f99',
      updateRevision: 'web-85bcd66f99', collisionCount: 0, availableReplicas: 0,
    });
  });

  it('makes claims and pods in order, one Running and Ready before the next', async () => {
    await mustOk(call(server.url, 'POST', `${APPS}/statefulsets`, { body: statefulSet('web') }), 201);
    const pod = await until('web-0', async () => { const r = await get(`${NS}/pods/web-0`); return r.status === 200 && r.json; });
    assert.equal(pod.metadata.generateName, 'web-');
    assert.equal(pod.metadata.labels['statefulset.kubernetes.io/pod-name'], 'web-0');
    assert.match(pod.metadata.labels['controller-revision-hash'], /^web-[bcdfghjklmnpqrstvwxz2456789]+$/);
    assert.equal(pod.spec.hostname, 'web-0');
    assert.equal(pod.spec.subdomain, 'web-headless');
    assert.deepEqual(pod.spec.volumes.find((v: { name: string }) => v.name === 'www').persistentVolumeClaim, { claimName: 'www-web-0' });
    assert.equal(pod.metadata.ownerReferences[0].kind, 'StatefulSet');
    const claim = (await mustOk(get(`${NS}/persistentvolumeclaims/www-web-0`))).json;
    assert.deepEqual(claim.metadata.labels, { app: 'web' });
    await sleep(300);
    assert.equal(await exists(`${NS}/pods/web-1`), false, 'web-1 waits for web-0');

    const revisions = (await mustOk(get(`/apis/apps/v1/namespaces/default/controllerrevisions`))).json.items;
    assert.equal(revisions.length, 1);
    assert.equal(revisions[0].metadata.name, pod.metadata.labels['controller-revision-hash']);
    assert.equal(revisions[0].revision, 1);
    assert.equal(revisions[0].data.spec.template.$patch, 'replace');

    await markReady('default', 'web-0');
    await until('web-1', () => exists(`${NS}/pods/web-1`));
    assert.equal(await exists(`${NS}/persistentvolumeclaims/www-web-1`), true);
    await markReady('default', 'web-1');
    const status = await until('status', async () => {
      const s = (await get(`${APPS}/statefulsets/web`)).json.status;
      return s.readyReplicas === 2 && s;
    });
    assert.equal(status.replicas, 2);
    assert.equal(status.currentReplicas, 2);
    assert.equal(status.updatedReplicas, 2);
    assert.equal(status.availableReplicas, 2);
    assert.equal(status.currentRevision, revisions[0].metadata.name);
    assert.equal(status.updateRevision, revisions[0].metadata.name);
    assert.equal(status.collisionCount, 0);
    assert.equal(status.observedGeneration, 1);

    const events = (await mustOk(get(`${NS}/events`))).json.items.filter((e: { involvedObject: { name: string } }) => e.involvedObject.name === 'web');
    const messages = events.map((e: { message: string }) => e.message);
    assert.ok(messages.includes('create Claim www-web-0 Pod web-0 in StatefulSet web success'), messages.join('\n'));
    assert.ok(messages.includes('create Pod web-0 in StatefulSet web successful'));
    assert.equal(events[0].source.component, 'statefulset-controller');
  });

  it('rolls an update from the highest ordinal down', async () => {
    const before = (await get(`${APPS}/statefulsets/web`)).json.status.currentRevision;
    await mustOk(call(server.url, 'PATCH', `${APPS}/statefulsets/web`, {
      body: { spec: { template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.26' }] } } } }, headers: MERGE,
    }));
    // web-1 goes first and comes back of the new revision; web-0 keeps the old one meanwhile.
    const web1 = await until('web-1 updated', async () => {
      const r = await get(`${NS}/pods/web-1`);
      return r.status === 200 && r.json.spec.containers[0].image === 'nginx:1.26' && r.json;
    });
    assert.equal((await get(`${NS}/pods/web-0`)).json.spec.containers[0].image, 'nginx:1.25');
    const update = web1.metadata.labels['controller-revision-hash'];
    assert.notEqual(update, before);
    await markReady('default', 'web-1');
    await until('web-0 updated', async () => {
      const r = await get(`${NS}/pods/web-0`);
      return r.status === 200 && r.json.spec.containers[0].image === 'nginx:1.26';
    });
    await markReady('default', 'web-0');
    const status = await until('rolled', async () => {
      const s = (await get(`${APPS}/statefulsets/web`)).json.status;
      return s.currentRevision === update && s.readyReplicas === 2 && s;
    });
    assert.equal(status.updateRevision, update);
    const revisions = (await get('/apis/apps/v1/namespaces/default/controllerrevisions')).json.items;
    assert.deepEqual(revisions.map((r: { revision: number }) => r.revision).sort(), [1, 2]);
  });

  it('scales down from the highest ordinal and keeps the claims', async () => {
    await mustOk(call(server.url, 'PATCH', `${APPS}/statefulsets/web`, { body: { spec: { replicas: 1 } }, headers: MERGE }));
    await until('web-1 gone', async () => !(await exists(`${NS}/pods/web-1`)));
    assert.equal(await exists(`${NS}/pods/web-0`), true);
    assert.equal(await exists(`${NS}/persistentvolumeclaims/www-web-1`), true);
  });

  it('Parallel makes every pod at once', async () => {
    await mustOk(call(server.url, 'POST', `${APPS}/statefulsets`, { body: statefulSet('par', { podManagementPolicy: 'Parallel', replicas: 3, volumeClaimTemplates: [] }) }), 201);
    await until('three pods', async () => (await Promise.all([0, 1, 2].map((i) => exists(`${NS}/pods/par-${i}`)))).every(Boolean));
  });

  it('records a pod refused by admission and does not loop', async () => {
    await mustOk(call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'full' } } }), 201);
    await mustOk(call(server.url, 'POST', '/api/v1/namespaces/full/resourcequotas', { body: { metadata: { name: 'none' }, spec: { hard: { pods: '0' } } } }), 201);
    await until('quota counted', async () => (await get('/api/v1/namespaces/full/resourcequotas/none')).json.status?.hard?.pods === '0');
    const body = statefulSet('refused', { volumeClaimTemplates: [] });
    await mustOk(call(server.url, 'POST', '/apis/apps/v1/namespaces/full/statefulsets', { body }), 201);
    const failed = await until('FailedCreate', async () => (await get('/api/v1/namespaces/full/events')).json.items.find((e: { reason: string }) => e.reason === 'FailedCreate'));
    assert.match(failed.message, /^create Pod refused-0 in StatefulSet refused failed error: .*exceeded quota/);
    assert.equal(failed.type, 'Warning');
    await sleep(1500);
    const again = (await get('/api/v1/namespaces/full/events')).json.items.find((e: { reason: string }) => e.reason === 'FailedCreate');
    // Retried with a growing delay: a handful of attempts in 1.5 s, not a spin.
    assert.ok(again.count < 15, `count ${again.count}`);
    assert.equal((await get('/api/v1/namespaces/full/pods')).json.items.length, 0);
    assert.equal((await get('/apis/apps/v1/namespaces/full/statefulsets/refused')).json.status.replicas, 0);
  });
});
