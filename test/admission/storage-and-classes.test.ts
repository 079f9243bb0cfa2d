// DefaultStorageClass, DefaultIngressClass, StorageObjectInUseProtection, PersistentVolumeClaimResize.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Quantity } from '../../src/api/quantity.js';
import { defaultIngressClass } from '../../src/admission/plugins/default-ingress-class.js';
import { defaultStorageClass } from '../../src/admission/plugins/default-storage-class.js';
import { persistentVolumeClaimResize } from '../../src/admission/plugins/persistent-volume-claim-resize.js';
import { storageObjectInUseProtection } from '../../src/admission/plugins/storage-object-in-use-protection.js';
import { fixture } from '../helpers.js';
import { admit, attributes, put, refused, testServices } from './support.js';
import { type JsonObject } from '../../src/json.js';

const claim = (spec: JsonObject = {}, metadata: JsonObject = {}): JsonObject => ({
  apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data', ...metadata },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec },
});
const defaultSC = (name: string) => ({ metadata: { name, annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } }, provisioner: 'p' });

describe('DefaultStorageClass admission', () => {
  it('gives claims without a class the default StorageClass, in the reference\'s field place', async () => {
    const services = await testServices();
    await put(services, 'storage.k8s.io/v1/storageclasses', defaultSC('standard'));
    await put(services, 'storage.k8s.io/v1/storageclasses', { metadata: { name: 'other' }, provisioner: 'p' });
    const c = claim({ volumeMode: 'Filesystem' });
    await admit(defaultStorageClass, services, attributes(services, { gvr: '/v1/persistentvolumeclaims', object: c }));
    assert.deepEqual(Object.entries(c['spec'] as JsonObject).map(([k, v]) => (k === 'storageClassName' ? v : k)), ['accessModes', 'resources', 'standard', 'volumeMode']);
  });

  it('keeps an explicit class (even "") or the beta annotation, and does nothing without a default', async () => {
    const services = await testServices();
    const none = claim();
    await admit(defaultStorageClass, services, attributes(services, { gvr: '/v1/persistentvolumeclaims', object: none }));
    assert.equal((none['spec'] as JsonObject)['storageClassName'], undefined);
    await put(services, 'storage.k8s.io/v1/storageclasses', defaultSC('standard'));
    for (const c of [claim({ storageClassName: '' }), claim({}, { annotations: { 'volume.beta.kubernetes.io/storage-class': 'slow' } })]) {
      const before = structuredClone(c);
      await admit(defaultStorageClass, services, attributes(services, { gvr: '/v1/persistentvolumeclaims', object: c }));
      assert.deepEqual(c, before);
    }
  });

  it('refuses claims while two StorageClasses are marked default', async () => {
    const services = await testServices();
    await put(services, 'storage.k8s.io/v1/storageclasses', defaultSC('a'));
    await put(services, 'storage.k8s.io/v1/storageclasses', defaultSC('b'));
    await refused(admit(defaultStorageClass, services, attributes(services, { gvr: '/v1/persistentvolumeclaims', object: claim() })), 403,
      'persistentvolumeclaims "data" is forbidden: Internal error occurred: 2 default StorageClasses were found');
  });
});

describe('DefaultIngressClass admission', () => {
  const ingress = (spec: JsonObject = {}, metadata: JsonObject = {}): JsonObject => ({
    apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'web', ...metadata }, spec: { rules: [{ host: 'a' }], ...spec },
  });
  const defaultIC = (name: string) => ({ metadata: { name, annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } }, spec: { controller: 'x/y' } });

  it('gives Ingresses without a class the default IngressClass', async () => {
    const services = await testServices();
    await put(services, 'networking.k8s.io/v1/ingressclasses', defaultIC('nginx'));
    const i = ingress();
    await admit(defaultIngressClass, services, attributes(services, { gvr: 'networking.k8s.io/v1/ingresses', object: i }));
    assert.deepEqual(i['spec'], { ingressClassName: 'nginx', rules: [{ host: 'a' }] });
    const annotated = ingress({}, { annotations: { 'kubernetes.io/ingress.class': 'traefik' } });
    await admit(defaultIngressClass, services, attributes(services, { gvr: 'networking.k8s.io/v1/ingresses', object: annotated }));
    assert.equal((annotated['spec'] as JsonObject)['ingressClassName'], undefined);
  });

  it('refuses Ingresses without a class while two IngressClasses are marked default', async () => {
    const services = await testServices();
    await put(services, 'networking.k8s.io/v1/ingressclasses', defaultIC('a'));
    await put(services, 'networking.k8s.io/v1/ingressclasses', defaultIC('b'));
    await refused(admit(defaultIngressClass, services, attributes(services, { gvr: 'networking.k8s.io/v1/ingresses', object: ingress() })), 403,
      'ingresses.networking.k8s.io "web" is forbidden: Internal error occurred: 2 default IngressClasses were found, only 1 allowed');
    await admit(defaultIngressClass, services, attributes(services, { gvr: 'networking.k8s.io/v1/ingresses', object: ingress({ ingressClassName: 'a' }) }));
  });
});

describe('StorageObjectInUseProtection admission', () => {
  it('puts the protection finalizers on new claims and volumes, as the reference shows', async () => {
    const services = await testServices();
    const c = claim();
    await admit(storageObjectInUseProtection, services, attributes(services, { gvr: '/v1/persistentvolumeclaims', object: c }));
    const pv: JsonObject = { metadata: { name: 'pv', finalizers: ['x'] }, spec: {} };
    await admit(storageObjectInUseProtection, services, attributes(services, { gvr: '/v1/persistentvolumes', object: pv }));
    const expected = (name: string) => (fixture(`create/${name}`).response.body as { metadata: JsonObject }).metadata['finalizers'];
    assert.deepEqual((c['metadata'] as JsonObject)['finalizers'], expected('core-v1-persistentvolumeclaims'));
    assert.deepEqual((pv['metadata'] as JsonObject)['finalizers'], ['x', ...(expected('core-v1-persistentvolumes') as string[])]);
    // Once is enough, and updates are left alone.
    await admit(storageObjectInUseProtection, services, attributes(services, { gvr: '/v1/persistentvolumeclaims', object: c }));
    assert.deepEqual((c['metadata'] as JsonObject)['finalizers'], ['kubernetes.io/pvc-protection']);
    const updated = claim();
    await admit(storageObjectInUseProtection, services, attributes(services, { operation: 'UPDATE', gvr: '/v1/persistentvolumeclaims', object: updated, oldObject: updated }));
    assert.equal((updated['metadata'] as JsonObject)['finalizers'], undefined);
  });
});

describe('PersistentVolumeClaimResize admission', () => {
  const sized = (storage: string, phase: string, storageClassName = 'expandable'): JsonObject => ({
    ...claim({ storageClassName, resources: { requests: { storage } } }), status: { phase },
  });

  it('lets bound claims of an expandable class grow', async () => {
    const services = await testServices();
    await put(services, 'storage.k8s.io/v1/storageclasses', { metadata: { name: 'expandable' }, provisioner: 'p', allowVolumeExpansion: true });
    await put(services, 'storage.k8s.io/v1/storageclasses', { metadata: { name: 'fixed' }, provisioner: 'p' });
    const resize = (from: JsonObject, to: JsonObject) => admit(persistentVolumeClaimResize, services,
      attributes(services, { operation: 'UPDATE', gvr: '/v1/persistentvolumeclaims', object: to, oldObject: from }));
    await resize(sized('1Gi', 'Bound'), sized('2Gi', 'Bound'));
    // Not growing (1024Mi is 1Gi) needs nothing.
    await resize(sized('1Gi', 'Pending', 'fixed'), sized('1024Mi', 'Pending', 'fixed'));
    await refused(resize(sized('1Gi', 'Pending'), sized('2Gi', 'Pending')), 403,
      'persistentvolumeclaims "data" is forbidden: Only bound persistent volume claims can be expanded');
    await refused(resize(sized('1Gi', 'Bound', 'fixed'), sized('2Gi', 'Bound', 'fixed')), 403,
      'persistentvolumeclaims "data" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');
  });

  it('compares quantities exactly', () => {
    const compareQuantities = (a: string, b: string) => Quantity.parse(a).cmp(Quantity.parse(b));
    assert.equal(compareQuantities('1Gi', '1073741824'), 0);
    assert.equal(compareQuantities('1G', '1Gi'), -1);
    assert.equal(compareQuantities('1500m', '1.5'), 0);
    assert.equal(compareQuantities('2e3', '1Ki'), 1);
  });
});
