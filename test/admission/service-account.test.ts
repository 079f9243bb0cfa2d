// ServiceAccount plugin: default account, token volume, mirror pods, mountable secrets.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { serviceAccount } from '../../src/admission/plugins/service-account.js';
import { fixture } from '../helpers.js';
import { admit, attributes, pod, put, refused, testServices } from './support.js';
import { type JsonObject } from '../../src/json.js';

const MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';

async function withAccount(account: JsonObject = {}) {
  const services = await testServices();
  await put(services, '/v1/serviceaccounts', { metadata: { name: 'default' }, ...account }, 'default');
  return services;
}

describe('ServiceAccount admission', () => {
  it('gives a pod the default account and the token volume the reference shows', async () => {
    const services = await withAccount();
    const p = pod('p', { initContainers: [{ name: 'init', image: 'busybox' }] });
    await admit(serviceAccount, services, attributes(services, { gvr: '/v1/pods', object: p }));
    const spec = p['spec'] as JsonObject;
    assert.equal(spec['serviceAccountName'], 'default');
    assert.equal(spec['serviceAccount'], 'default');
    const [volume] = spec['volumes'] as JsonObject[];
    assert.match(String(volume!['name']), /^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    const expected = (fixture('create/core-v1-pods').response.body as { spec: { volumes: JsonObject[] } }).spec.volumes[0]!;
    assert.deepEqual({ ...volume, name: 'kube-api-access-<suffix>' }, expected);
    for (const kind of ['initContainers', 'containers']) {
      const [container] = spec[kind] as JsonObject[];
      assert.deepEqual(container!['volumeMounts'], [{ name: volume!['name'], readOnly: true, mountPath: MOUNT_PATH }]);
    }
    // Added fields take the reference's places: volumes first, the account after the containers.
    assert.deepEqual(Object.keys(spec), ['volumes', 'containers', 'initContainers', 'serviceAccountName', 'serviceAccount']);
  });

  it('does not mount the token where the pod or its account opts out, and the pod decides first', async () => {
    for (const [podSetting, accountSetting, mounted] of [[false, undefined, false], [undefined, false, false], [true, false, true]] as const) {
      const services = await withAccount(accountSetting === undefined ? {} : { automountServiceAccountToken: accountSetting });
      const p = pod('p', podSetting === undefined ? {} : { automountServiceAccountToken: podSetting });
      await admit(serviceAccount, services, attributes(services, { gvr: '/v1/pods', object: p }));
      assert.equal((p['spec'] as JsonObject)['volumes'] !== undefined, mounted, `pod ${podSetting}, account ${accountSetting}`);
    }
  });

  it('leaves containers that mount something at the token path alone, and reuses an existing token volume', async () => {
    const services = await withAccount();
    const p = pod('p', {
      volumes: [{ name: 'kube-api-access-mine', emptyDir: {} }],
      containers: [{ name: 'a', image: 'x', volumeMounts: [{ name: 'other', mountPath: MOUNT_PATH }] }, { name: 'b', image: 'x' }],
    });
    await admit(serviceAccount, services, attributes(services, { gvr: '/v1/pods', object: p }));
    const spec = p['spec'] as JsonObject;
    assert.deepEqual(spec['volumes'], [{ name: 'kube-api-access-mine', emptyDir: {} }]);
    const [a, b] = spec['containers'] as JsonObject[];
    assert.deepEqual(a!['volumeMounts'], [{ name: 'other', mountPath: MOUNT_PATH }]);
    assert.deepEqual(b!['volumeMounts'], [{ name: 'kube-api-access-mine', readOnly: true, mountPath: MOUNT_PATH }]);
  });

  it('reads the deprecated serviceAccount field and copies the account\'s image pull secrets', async () => {
    const services = await withAccount();
    await put(services, '/v1/serviceaccounts', { metadata: { name: 'robot' }, imagePullSecrets: [{ name: 'registry' }] }, 'default');
    const p = pod('p', { serviceAccount: 'robot' });
    await admit(serviceAccount, services, attributes(services, { gvr: '/v1/pods', object: p }));
    const spec = p['spec'] as JsonObject;
    assert.equal(spec['serviceAccountName'], 'robot');
    assert.deepEqual(spec['imagePullSecrets'], [{ name: 'registry' }]);
  });

  it('refuses a pod whose account does not exist', async () => {
    const services = await withAccount();
    const a = attributes(services, { gvr: '/v1/pods', object: pod('p', { serviceAccountName: 'ghost' }) });
    const err = await refused(admit(serviceAccount, services, a), 403,
      'pods "p" is forbidden: error looking up service account default/ghost: serviceaccount "ghost" not found');
    assert.deepEqual(JSON.parse(JSON.stringify(err.toStatus().details)), { name: 'p', kind: 'pods' });
  });

  it('waits for the default account, which its controller creates shortly after the namespace', async () => {
    const services = await testServices();
    setTimeout(() => void put(services, '/v1/serviceaccounts', { metadata: { name: 'default' } }, 'default'), 250);
    const p = pod('p');
    await admit(serviceAccount, services, attributes(services, { gvr: '/v1/pods', object: p }));
    assert.equal((p['spec'] as JsonObject)['serviceAccountName'], 'default');
  });

  it('names the generateName prefix when refusing a generated pod while mutating', async () => {
    const services = await withAccount();
    const p = pod('web-x2b4z', { serviceAccountName: 'ghost' }, { generateName: 'web-' });
    // The registry names the request's name ("") and generates the pod's only after mutating admission.
    delete (p['metadata'] as Record<string, unknown>)['name'];
    await refused(admit(serviceAccount, services, attributes(services, { gvr: '/v1/pods', name: '', object: p })), 403,
      'pods "web-" is forbidden: error looking up service account default/ghost: serviceaccount "ghost" not found');
  });

  it('leaves mirror pods unchanged and refuses those that reference an account, secrets or tokens', async () => {
    const services = await withAccount();
    const mirror = { annotations: { 'kubernetes.io/config.mirror': 'abc' } };
    const plain = pod('m', {}, mirror);
    await admit(serviceAccount, services, attributes(services, { gvr: '/v1/pods', object: plain }));
    assert.deepEqual(plain['spec'], { containers: [{ name: 'c', image: 'nginx' }] });
    const cases: Array<[JsonObject, string]> = [
      [{ serviceAccountName: 'default' }, 'a mirror pod may not reference service accounts'],
      [{ volumes: [{ name: 's', secret: { secretName: 'x' } }] }, 'a mirror pod may not reference secrets'],
      [{ containers: [{ name: 'c', image: 'x', envFrom: [{ secretRef: { name: 'x' } }] }] }, 'a mirror pod may not reference secrets'],
      [{ volumes: [{ name: 't', projected: { sources: [{ serviceAccountToken: { path: 't' } }] } }] }, 'a mirror pod may not use ServiceAccountToken volume projections'],
    ];
    for (const [spec, why] of cases) {
      await refused(admit(serviceAccount, services, attributes(services, { gvr: '/v1/pods', object: pod('m', spec, mirror) })), 403, `pods "m" is forbidden: ${why}`);
    }
  });

  it('holds pods to the account\'s secrets when the account enforces mountable secrets', async () => {
    const services = await withAccount({ metadata: { name: 'default', annotations: { 'kubernetes.io/enforce-mountable-secrets': 'true' } }, secrets: [{ name: 'ok' }] });
    const allowed = pod('p', { volumes: [{ name: 'v', secret: { secretName: 'ok' } }] });
    await admit(serviceAccount, services, attributes(services, { gvr: '/v1/pods', object: allowed }));
    const cases: Array<[JsonObject, string]> = [
      [{ volumes: [{ name: 'v', secret: { secretName: 'nope' } }] }, 'volume with secret.secretName="nope" is not allowed because service account default does not reference that secret'],
      [{ containers: [{ name: 'c', image: 'x', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 'nope', key: 'k' } } }] }] },
        'container c with envVar E referencing secret.secretName="nope" is not allowed because service account default does not reference that secret'],
      [{ initContainers: [{ name: 'i', image: 'x', envFrom: [{ secretRef: { name: 'nope' } }] }] },
        'init container i with envFrom referencing secret.secretName="nope" is not allowed because service account default does not reference that secret'],
      [{ imagePullSecrets: [{ name: 'pull' }] }, 'imagePullSecrets[0].name="pull" is not allowed because service account default does not reference that imagePullSecret'],
    ];
    for (const [spec, why] of cases) {
      await refused(admit(serviceAccount, services, attributes(services, { gvr: '/v1/pods', object: pod('p', spec) })), 403, `pods "p" is forbidden: ${why}`);
    }
  });

  it('does not touch updates or other resources', async () => {
    const services = await withAccount();
    const p = pod('p');
    await admit(serviceAccount, services, attributes(services, { operation: 'UPDATE', gvr: '/v1/pods', object: p, oldObject: pod('p') }));
    assert.deepEqual(p['spec'], { containers: [{ name: 'c', image: 'nginx' }] });
    const template = { metadata: { name: 't' }, template: { spec: { containers: [{ name: 'c', image: 'x' }] } } };
    await admit(serviceAccount, services, attributes(services, { gvr: '/v1/podtemplates', object: template }));
    assert.equal(JSON.stringify(template).includes('serviceAccountName'), false);
  });
});
