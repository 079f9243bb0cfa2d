// Claims and volumes in use are not removed under their users: the protection finalizers go once
// no running pod uses the claim, and once the volume is bound to no claim.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/server.js';
import { call, memoryServer, mustOk, sleep, until } from '../helpers.js';

const NS = '/api/v1/namespaces/default';
const MERGE = { 'Content-Type': 'application/merge-patch+json' };


describe('storage object in-use protection', () => {
  let server: RunningServer;
  const status = async (path: string) => (await call(server.url, 'GET', path)).status;
  before(async () => {
    // The phases are written by hand here; the binder would correct them.
    server = await memoryServer({ controllers: ['*', '-persistentvolume-binder'] });
  });
  after(() => server.close());

  it('a claim used by a pod stays Terminating until the pod goes', async () => {
    const claim = await mustOk(call(server.url, 'POST', `${NS}/persistentvolumeclaims`, {
      body: { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
    }), 201);
    assert.deepEqual(claim.json.metadata.finalizers, ['kubernetes.io/pvc-protection']);
    await mustOk(call(server.url, 'POST', `${NS}/pods`, {
      body: { metadata: { name: 'user' }, spec: { containers: [{ name: 'c', image: 'nginx' }], volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }] } },
    }), 201);
    await mustOk(call(server.url, 'DELETE', `${NS}/persistentvolumeclaims/data`));
    await sleep(200);
    const held = await mustOk(call(server.url, 'GET', `${NS}/persistentvolumeclaims/data`));
    assert.ok(held.json.metadata.deletionTimestamp);
    await mustOk(call(server.url, 'DELETE', `${NS}/pods/user`));
    await until('claim removed', async () => (await status(`${NS}/persistentvolumeclaims/data`)) === 404);
  });

  it('a bound volume stays until it is released', async () => {
    await mustOk(call(server.url, 'POST', '/api/v1/persistentvolumes', {
      body: { metadata: { name: 'vol' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/vol' } } },
    }), 201);
    await mustOk(call(server.url, 'PATCH', '/api/v1/persistentvolumes/vol/status', { body: { status: { phase: 'Bound' } }, headers: MERGE }));
    await mustOk(call(server.url, 'DELETE', '/api/v1/persistentvolumes/vol'));
    await sleep(200);
    assert.equal(await status('/api/v1/persistentvolumes/vol'), 200);
    await mustOk(call(server.url, 'PATCH', '/api/v1/persistentvolumes/vol/status', { body: { status: { phase: 'Released' } }, headers: MERGE }));
    await until('volume removed', async () => (await status('/api/v1/persistentvolumes/vol')) === 404);
  });
});
