// LimitRanger: container defaults (and the annotation saying so), min/max/ratio refusals for
// containers, pods and claims, through a real server.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/server.js';
import { call, fixture, memoryServer, mustOk, placeholders, withoutManagedFields } from '../helpers.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test convenience

function container(name: string, resources?: Json): Json {
  return { name, image: 'nginx', ...(resources ? { resources } : {}) };
}

describe('LimitRanger', () => {
  let server: RunningServer;
  let url: string;
  let n = 0;

  before(async () => {
    server = await memoryServer();
    url = server.url;
  });
  after(() => server.close());

  async function namespaceWith(limits: Json[]): Promise<string> {
    const ns = `limits-${++n}`;
    await mustOk(call(url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } }), 201);
    await mustOk(call(url, 'POST', `/api/v1/namespaces/${ns}/limitranges`, { body: { metadata: { name: 'lr' }, spec: { limits } } }), 201);
    return ns;
  }

  const createPod = (ns: string, name: string, spec: Json) => call(url, 'POST', `/api/v1/namespaces/${ns}/pods`, { body: { metadata: { name }, spec } });

  it('answers the create as the reference', async () => {
    const c = fixture('create/core-v1-limitranges');
    await mustOk(call(url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'ref-create-quota' } } }), 201);
    const created = await mustOk(call(url, 'POST', c.request.path, { body: c.request.body }), 201);
    assert.deepEqual(withoutManagedFields(placeholders(created.json)), withoutManagedFields(c.response.body));
  });

  it('gives containers the default requests and limits they lack, and says so in an annotation', async () => {
    const ns = await namespaceWith([{ type: 'Container', default: { cpu: '0.5', memory: '256Mi' }, defaultRequest: { cpu: '100m', memory: '128Mi' } }]);
    const bare = await mustOk(createPod(ns, 'bare', { containers: [container('web')], initContainers: [container('init', { requests: { cpu: '200m' } })] }), 201);
    assert.deepEqual(bare.json.spec.containers[0].resources, { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '128Mi' } });
    assert.deepEqual(bare.json.spec.initContainers[0].resources, { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '200m', memory: '128Mi' } });
    assert.equal(bare.json.metadata.annotations['kubernetes.io/limit-ranger'],
      'LimitRanger plugin set: cpu, memory request for container web; cpu, memory limit for container web; memory request for init container init; cpu, memory limit for init container init');
    // Stored as answered.
    const stored = await mustOk(call(url, 'GET', `/api/v1/namespaces/${ns}/pods/bare`));
    assert.deepEqual(stored.json.spec.containers[0].resources, bare.json.spec.containers[0].resources);
    // A container that states everything is left alone, with no annotation.
    const full = await mustOk(createPod(ns, 'full', { containers: [container('web', { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } })] }), 201);
    assert.equal(full.json.metadata.annotations, undefined);
  });

  it('takes the default limit from max and the default request from it or from min', async () => {
    const ns = await namespaceWith([{ type: 'Container', max: { cpu: '2' }, min: { memory: '64Mi' } }]);
    const p = await mustOk(createPod(ns, 'p', { containers: [container('c')] }), 201);
    assert.deepEqual(p.json.spec.containers[0].resources, { limits: { cpu: '2' }, requests: { cpu: '2', memory: '64Mi' } });
  });

  it('refuses containers outside min and max with the reference messages, each said once', async () => {
    const ns = await namespaceWith([{ type: 'Container', min: { cpu: '100m' }, max: { cpu: '1', memory: '1Gi' } }]);
    const low = await createPod(ns, 'low', { containers: [container('a', { requests: { cpu: '50m', memory: '10Mi' }, limits: { cpu: '50m', memory: '10Mi' } })] });
    assert.equal(low.status, 403);
    assert.deepEqual(low.json, {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: 'pods "low" is forbidden: minimum cpu usage per Container is 100m, but request is 50m',
      reason: 'Forbidden', details: { name: 'low', kind: 'pods' }, code: 403,
    });
    assert.equal((await call(url, 'GET', `/api/v1/namespaces/${ns}/pods/low`)).status, 404);
    const both = await createPod(ns, 'both', {
      containers: [
        container('a', { requests: { cpu: '50m', memory: '2Gi' }, limits: { cpu: '2', memory: '2Gi' } }),
        container('b', { requests: { cpu: '50m', memory: '2Gi' }, limits: { cpu: '2', memory: '2Gi' } }),
      ],
    });
    assert.equal(both.json.message, 'pods "both" is forbidden: [minimum cpu usage per Container is 100m, but request is 50m, maximum cpu usage per Container is 1, but limit is 2, maximum memory usage per Container is 1Gi, but limit is 2Gi]');
  });

  it('enforces the limit to request ratio', async () => {
    const ns = await namespaceWith([{ type: 'Container', maxLimitRequestRatio: { cpu: '2' } }]);
    const r = await createPod(ns, 'r', { containers: [container('c', { requests: { cpu: '100m' }, limits: { cpu: '250m' } })] });
    assert.equal(r.json.message, 'pods "r" is forbidden: cpu max limit to request ratio per Container is 2, but provided ratio is 2.500000');
    await mustOk(createPod(ns, 'ok', { containers: [container('c', { requests: { cpu: '100m' }, limits: { cpu: '200m' } })] }), 201);
  });

  it('sums a pod\'s containers against Pod limits', async () => {
    const ns = await namespaceWith([{ type: 'Pod', max: { cpu: '1', memory: '1Gi' } }]);
    const r = await createPod(ns, 'big', {
      containers: [
        container('a', { limits: { cpu: '600m', memory: '512Mi' }, requests: { cpu: '600m', memory: '512Mi' } }),
        container('b', { limits: { cpu: '600m', memory: '1Gi' }, requests: { cpu: '600m', memory: '1Gi' } }),
      ],
    });
    assert.equal(r.json.message, 'pods "big" is forbidden: [maximum cpu usage per Pod is 1, but limit is 1200m, maximum memory usage per Pod is 1Gi, but limit is 1610612736]');
  });

  it('bounds claims\' storage requests, on create and on update', async () => {
    const ns = await namespaceWith([{ type: 'PersistentVolumeClaim', min: { storage: '1Gi' }, max: { storage: '5Gi' } }]);
    // Growing needs a bound claim of a class that allows expansion (validation and the resize plugin come first).
    await call(url, 'POST', '/apis/storage.k8s.io/v1/storageclasses', { body: { metadata: { name: 'expandable' }, provisioner: 'example.com/disk', allowVolumeExpansion: true } });
    const claim = (name: string, storage: string) => ({ metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'expandable', resources: { requests: { storage } } } });
    const small = await call(url, 'POST', `/api/v1/namespaces/${ns}/persistentvolumeclaims`, { body: claim('small', '500Mi') });
    assert.equal(small.json.message, 'persistentvolumeclaims "small" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi');
    await mustOk(call(url, 'POST', `/api/v1/namespaces/${ns}/persistentvolumeclaims`, { body: claim('ok', '2Gi') }), 201);
    await mustOk(call(url, 'PATCH', `/api/v1/namespaces/${ns}/persistentvolumeclaims/ok/status`, { body: { status: { phase: 'Bound' } }, headers: { 'Content-Type': 'application/merge-patch+json' } }));
    const grow = await call(url, 'PATCH', `/api/v1/namespaces/${ns}/persistentvolumeclaims/ok`, {
      body: { spec: { resources: { requests: { storage: '10Gi' } } } }, headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    assert.equal(grow.status, 403);
    assert.equal(grow.json.message, 'persistentvolumeclaims "ok" is forbidden: maximum storage usage per PersistentVolumeClaim is 5Gi, but request is 10Gi');
  });

  it('leaves pods alone in a namespace without LimitRanges', async () => {
    await mustOk(call(url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'no-limits' } } }), 201);
    const p = await mustOk(createPod('no-limits', 'p', { containers: [container('c')] }), 201);
    assert.deepEqual(p.json.spec.containers[0].resources, {}, 'only the defaulted empty resources');
    assert.equal(p.json.metadata.annotations, undefined);
  });
});
