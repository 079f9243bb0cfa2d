// The persistentvolume-binder binds claims to volumes as kube-controller-manager does: the best
// matching Available volume, the reference's annotations, phases and events; release and reclaim
// by policy; claims of a class handed to its provisioner; odd objects left alone without a loop.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { findBestMatch } from '../../src/controllers/pv-binder/matching.js';
import type { RunningServer } from '../../src/server/server.js';
import { call, fixture, memoryServer, mustOk, sleep, until } from '../helpers.js';

const MERGE = { 'Content-Type': 'application/merge-patch+json' };

describe('persistentvolume-binder', { timeout: 120_000 }, () => {
  let server: RunningServer;
  let n = 0;
  /** A fresh namespace per test, so claims and events do not mix. */
  async function namespace(): Promise<string> {
    const name = `pvb-${++n}`;
    await mustOk(call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name } } }), 201);
    return name;
  }
  async function volume(name: string, spec: Record<string, unknown>, labels?: Record<string, string>): Promise<void> {
    await mustOk(call(server.url, 'POST', '/api/v1/persistentvolumes', {
      body: { metadata: { name, labels }, spec: { accessModes: ['ReadWriteOnce'], hostPath: { path: `/mnt/${name}` }, ...spec } },
    }), 201);
  }
  async function claim(ns: string, name: string, spec: Record<string, unknown> = {}): Promise<void> {
    await mustOk(call(server.url, 'POST', `/api/v1/namespaces/${ns}/persistentvolumeclaims`, {
      body: { metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec } },
    }), 201);
  }
  const getVolume = async (name: string) => (await mustOk(call(server.url, 'GET', `/api/v1/persistentvolumes/${name}`))).json;
  const getClaim = async (ns: string, name: string) => (await mustOk(call(server.url, 'GET', `/api/v1/namespaces/${ns}/persistentvolumeclaims/${name}`))).json;
  async function events(ns: string): Promise<Array<{ reason: string; type: string; message: string; count: number; kind: string; name: string }>> {
    const list = (await mustOk(call(server.url, 'GET', `/api/v1/namespaces/${ns}/events`))).json;
    return list.items.map((e: any) => ({ reason: e.reason, type: e.type, message: e.message, count: e.count, kind: e.involvedObject.kind, name: e.involvedObject.name })); // eslint-disable-line @typescript-eslint/no-explicit-any
  }
  const claimPhase = async (ns: string, name: string) => (await getClaim(ns, name)).status?.phase;
  const volumePhase = async (name: string) => (await getVolume(name)).status?.phase;

  before(async () => {
    server = await memoryServer();
  });
  after(() => server.close());

  it('binds a waiting claim to a volume made later, as the reference recorded (ref-pv-1 and ref-create/data)', async () => {
    const ns = await namespace();
    await claim(ns, 'data');
    await until('FailedBinding', async () => (await events(ns)).some((e) => e.reason === 'FailedBinding'));
    await volume('ref-pv-1', { capacity: { storage: '1Gi' } });
    await until('claim Bound', async () => (await claimPhase(ns, 'data')) === 'Bound');
    const pv = await getVolume('ref-pv-1');
    const pvc = await getClaim(ns, 'data');
    assert.equal(pv.status.phase, 'Bound');
    assert.deepEqual(pv.metadata.annotations, { 'pv.kubernetes.io/bound-by-controller': 'yes' });
    assert.deepEqual(Object.keys(pv.spec.claimRef), ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion']);
    assert.equal(pv.spec.claimRef.uid, pvc.metadata.uid);
    assert.equal(pv.spec.claimRef.kind, 'PersistentVolumeClaim');
    assert.deepEqual(pvc.metadata.annotations, { 'pv.kubernetes.io/bind-completed': 'yes', 'pv.kubernetes.io/bound-by-controller': 'yes' });
    assert.equal(pvc.spec.volumeName, 'ref-pv-1');
    assert.deepEqual(pvc.status, { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } });
    // The controller's writes, field by field, as the reference's (table fixtures' managedFields).
    const controllerFields = (obj: { metadata: { managedFields: Array<Record<string, unknown>> } }) => obj.metadata.managedFields
      .filter((m) => m['manager'] === 'kube-controller-manager')
      .map(({ operation, apiVersion, fieldsType, fieldsV1, subresource }) => ({ operation, apiVersion, fieldsType, fieldsV1, subresource }));
    const recorded = (name: string) => controllerFields((fixture(name).response.body as { rows: Array<{ object: never }> }).rows[0].object);
    assert.deepEqual(controllerFields(pv), recorded('table/core-v1-persistentvolumes'));
    assert.deepEqual(controllerFields(pvc), recorded('table/core-v1-persistentvolumeclaims'));
    const failed = (await events(ns)).filter((e) => e.reason === 'FailedBinding');
    assert.deepEqual(failed.map(({ type, message, kind, name, count }) => ({ type, message, kind, name, count })), [
      { type: 'Normal', message: 'no persistent volumes available for this claim and no storage class is set', kind: 'PersistentVolumeClaim', name: 'data', count: 1 },
    ]);
  });

  it('picks the smallest Available volume of the claim\'s class, modes and selector that holds the request', async () => {
    const ns = await namespace();
    await volume('pick-small', { capacity: { storage: '500Mi' } });
    await volume('pick-big', { capacity: { storage: '5Gi' } });
    await volume('pick-right', { capacity: { storage: '2Gi' } });
    await volume('pick-gold', { capacity: { storage: '1Gi' }, storageClassName: 'gold' });
    await volume('pick-block', { capacity: { storage: '1Gi' }, volumeMode: 'Block' });
    await volume('pick-rwx', { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteMany'] });
    await volume('pick-labelled', { capacity: { storage: '3Gi' } }, { tier: 'fast' });
    for (const v of ['pick-small', 'pick-big', 'pick-right', 'pick-gold', 'pick-block', 'pick-rwx', 'pick-labelled']) {
      await until(`${v} Available`, async () => (await volumePhase(v)) === 'Available');
    }
    await claim(ns, 'plain');
    await claim(ns, 'selective', { selector: { matchLabels: { tier: 'fast' } } });
    await until('both bound', async () => (await claimPhase(ns, 'plain')) === 'Bound' && (await claimPhase(ns, 'selective')) === 'Bound');
    assert.equal((await getClaim(ns, 'plain')).spec.volumeName, 'pick-right');
    assert.equal((await getClaim(ns, 'selective')).spec.volumeName, 'pick-labelled');
    assert.equal((await getClaim(ns, 'selective')).status.capacity.storage, '3Gi');
    for (const v of ['pick-small', 'pick-big', 'pick-gold', 'pick-block', 'pick-rwx']) assert.equal(await volumePhase(v), 'Available', v);
  });

  it('honours pre-binding by spec.volumeName and by claimRef, and says why a named volume does not fit', async () => {
    const ns = await namespace();
    await volume('named-vol', { capacity: { storage: '10Gi' } });
    await volume('reserved-vol', { capacity: { storage: '10Gi' }, claimRef: { namespace: ns, name: 'reserver' } });
    await volume('tiny-vol', { capacity: { storage: '100Mi' } });
    await until('reserved volume Available', async () => (await volumePhase('reserved-vol')) === 'Available');
    await claim(ns, 'namer', { volumeName: 'named-vol' });
    await claim(ns, 'reserver');
    await claim(ns, 'too-big', { volumeName: 'tiny-vol' });
    await until('pre-bound claims Bound', async () => (await claimPhase(ns, 'namer')) === 'Bound' && (await claimPhase(ns, 'reserver')) === 'Bound');
    assert.equal((await getClaim(ns, 'reserver')).spec.volumeName, 'reserved-vol');
    // A volume its author reserved is not marked as bound by the controller; the claim is.
    assert.equal((await getVolume('reserved-vol')).metadata.annotations, undefined);
    assert.equal((await getClaim(ns, 'reserver')).metadata.annotations['pv.kubernetes.io/bound-by-controller'], 'yes');
    // A claim that named its volume is not "bound by controller".
    assert.deepEqual((await getClaim(ns, 'namer')).metadata.annotations, { 'pv.kubernetes.io/bind-completed': 'yes' });
    const mismatch = await until('VolumeMismatch', async () => (await events(ns)).find((e) => e.reason === 'VolumeMismatch'));
    assert.deepEqual({ type: mismatch.type, message: mismatch.message, name: mismatch.name },
      { type: 'Warning', message: 'Cannot bind to requested volume "tiny-vol": requested PV is too small', name: 'too-big' });
    assert.equal(await claimPhase(ns, 'too-big'), 'Pending');
  });

  it('releases a Retain volume when its claim goes; a Delete one is deleted, or Failed with the deleter\'s reason', async () => {
    const ns = await namespace();
    await volume('keep-vol', { capacity: { storage: '1Gi' }, storageClassName: 'keep' });
    await volume('drop-vol', { capacity: { storage: '1Gi' }, storageClassName: 'drop', persistentVolumeReclaimPolicy: 'Delete', hostPath: { path: '/tmp/capstan-drop' } });
    await volume('fail-vol', { capacity: { storage: '1Gi' }, storageClassName: 'fail', persistentVolumeReclaimPolicy: 'Delete' });
    for (const cls of ['keep', 'drop', 'fail']) await claim(ns, cls, { storageClassName: cls });
    await until('all bound', async () => {
      for (const cls of ['keep', 'drop', 'fail']) if ((await claimPhase(ns, cls)) !== 'Bound') return false;
      return true;
    });
    for (const cls of ['keep', 'drop', 'fail']) await mustOk(call(server.url, 'DELETE', `/api/v1/namespaces/${ns}/persistentvolumeclaims/${cls}`));
    await until('keep-vol Released', async () => (await volumePhase('keep-vol')) === 'Released');
    assert.equal((await getVolume('keep-vol')).spec.claimRef.name, 'keep');
    await until('drop-vol deleted', async () => (await call(server.url, 'GET', '/api/v1/persistentvolumes/drop-vol')).status === 404);
    await until('fail-vol Failed', async () => (await volumePhase('fail-vol')) === 'Failed');
    const failed = await getVolume('fail-vol');
    assert.equal(failed.status.message, 'host_path deleter only supports /tmp/.+ but received provided /mnt/fail-vol');
    const event = await until('VolumeFailedDelete', async () => (await events('default')).find((e) => e.reason === 'VolumeFailedDelete' && e.name === 'fail-vol'));
    assert.deepEqual({ type: event.type, kind: event.kind, message: event.message },
      { type: 'Warning', kind: 'PersistentVolume', message: 'host_path deleter only supports /tmp/.+ but received provided /mnt/fail-vol' });
  });

  it('hands claims of a class to its provisioner, or waits for a consumer, as the reference tells', async () => {
    const ns = await namespace();
    await mustOk(call(server.url, 'POST', '/apis/storage.k8s.io/v1/storageclasses', { body: { metadata: { name: 'pvb-external' }, provisioner: 'example.com/fake-provisioner' } }), 201);
    await mustOk(call(server.url, 'POST', '/apis/storage.k8s.io/v1/storageclasses', { body: { metadata: { name: 'pvb-later' }, provisioner: 'kubernetes.io/no-provisioner', volumeBindingMode: 'WaitForFirstConsumer' } }), 201);
    await claim(ns, 'external', { storageClassName: 'pvb-external' });
    await claim(ns, 'later', { storageClassName: 'pvb-later' });
    await claim(ns, 'used-later', { storageClassName: 'pvb-later' });
    await claim(ns, 'classless', { storageClassName: 'pvb-missing' });
    await mustOk(call(server.url, 'POST', `/api/v1/namespaces/${ns}/pods`, {
      body: { metadata: { name: 'user' }, spec: { containers: [{ name: 'c', image: 'nginx' }], volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'used-later' } }] } },
    }), 201);
    const want = (reason: string, name: string) => until(`${reason} for ${name}`, async () => (await events(ns)).find((e) => e.reason === reason && e.name === name));
    assert.equal((await want('ExternalProvisioning', 'external')).message,
      'waiting for a volume to be created, either by external provisioner "example.com/fake-provisioner" or manually created by system administrator');
    assert.equal((await want('WaitForFirstConsumer', 'later')).message, 'waiting for first consumer to be created before binding');
    assert.equal((await want('ProvisioningFailed', 'classless')).message, 'storageclass.storage.k8s.io "pvb-missing" not found');
    // used-later was first seen before its pod existed; the pod shows at its next sync.
    await mustOk(call(server.url, 'PATCH', `/api/v1/namespaces/${ns}/persistentvolumeclaims/used-later`, { body: { metadata: { labels: { touched: 'yes' } } }, headers: MERGE }));
    assert.equal((await want('WaitForPodScheduled', 'used-later')).message, 'waiting for pod user to be scheduled');
    const external = await getClaim(ns, 'external');
    assert.equal(external.metadata.annotations['volume.kubernetes.io/storage-provisioner'], 'example.com/fake-provisioner');
    assert.equal(external.metadata.annotations['volume.beta.kubernetes.io/storage-provisioner'], 'example.com/fake-provisioner');
    for (const name of ['external', 'later', 'used-later', 'classless']) assert.equal(await claimPhase(ns, name), 'Pending');
  });

  it('marks a claim Lost when its volume goes', async () => {
    const ns = await namespace();
    await volume('lost-vol', { capacity: { storage: '1Gi' }, storageClassName: 'lost' });
    await claim(ns, 'lost', { storageClassName: 'lost' });
    await until('bound', async () => (await claimPhase(ns, 'lost')) === 'Bound');
    await mustOk(call(server.url, 'PATCH', '/api/v1/persistentvolumes/lost-vol', { body: { metadata: { finalizers: null } }, headers: MERGE }));
    await mustOk(call(server.url, 'DELETE', '/api/v1/persistentvolumes/lost-vol'));
    await until('claim Lost', async () => (await claimPhase(ns, 'lost')) === 'Lost');
    const event = await until('ClaimLost', async () => (await events(ns)).find((e) => e.reason === 'ClaimLost'));
    assert.equal(event.message, 'Bound claim has lost its PersistentVolume. Data on the volume is lost!');
  });

  it('leaves odd objects alone without writing in a loop: a claimRef to no claim, a selector nothing matches', async () => {
    const ns = await namespace();
    await volume('orphan-vol', { capacity: { storage: '1Gi' }, claimRef: { namespace: ns, name: 'nobody', uid: '00000000-0000-0000-0000-000000000001' } });
    await volume('waiting-vol', { capacity: { storage: '1Gi' }, claimRef: { namespace: ns, name: 'not-yet' } });
    await claim(ns, 'picky', { selector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['nowhere'] }] } });
    await until('orphan Released', async () => (await volumePhase('orphan-vol')) === 'Released');
    await until('reserved Available', async () => (await volumePhase('waiting-vol')) === 'Available');
    const versions = async () => [
      (await getVolume('orphan-vol')).metadata.resourceVersion,
      (await getVolume('waiting-vol')).metadata.resourceVersion,
      (await getClaim(ns, 'picky')).metadata.resourceVersion,
    ];
    const first = await versions();
    await sleep(1500);
    assert.deepEqual(await versions(), first);
    assert.equal(await claimPhase(ns, 'picky'), 'Pending');
    assert.equal((await getVolume('orphan-vol')).spec.claimRef.name, 'nobody');
  });

  it('never meets an unreadable selector from the API; handed one, finds no volume and says why', async () => {
    const ns = await namespace();
    const reply = await call(server.url, 'POST', `/api/v1/namespaces/${ns}/persistentvolumeclaims`, {
      body: { metadata: { name: 'bad' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, selector: { matchExpressions: [{ key: 'tier', operator: 'Near' }] } } },
    });
    assert.equal(reply.status, 422);
    const stored = { metadata: { name: 'bad', namespace: ns }, spec: { accessModes: ['ReadWriteOnce'], selector: { matchExpressions: [{ key: 'tier', operator: 'Near' }] } } };
    const found = findBestMatch(stored, [{ metadata: { name: 'v' }, spec: { accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } }, status: { phase: 'Available' } }], false);
    assert.deepEqual(found, { error: `error creating internal label selector for claim: ${ns}/bad: "Near" is not a valid pod selector operator` });
  });
});
