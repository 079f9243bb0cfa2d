// The small plugins, off by default: AlwaysAdmit, AlwaysDeny, AlwaysPullImages, DenyServiceExternalIPs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { alwaysAdmit } from '../../src/admission/plugins/always-admit.js';
import { alwaysDeny } from '../../src/admission/plugins/always-deny.js';
import { alwaysPullImages } from '../../src/admission/plugins/always-pull-images.js';
import { denyServiceExternalIPs } from '../../src/admission/plugins/deny-service-external-ips.js';
import { admit, attributes, pod, refused, testServices } from './support.js';
import { type JsonObject } from '../../src/json.js';

describe('AlwaysAdmit and AlwaysDeny', () => {
  it('admit everything, and refuse every write (deletes too)', async () => {
    const services = await testServices();
    const cm = { metadata: { name: 'cm' } };
    await admit(alwaysAdmit, services, attributes(services, { gvr: '/v1/configmaps', object: cm }));
    await refused(admit(alwaysDeny, services, attributes(services, { gvr: '/v1/configmaps', object: cm })), 403,
      'configmaps "cm" is forbidden: admission control is denying all modifications');
    await refused(admit(alwaysDeny, services, attributes(services, { operation: 'DELETE', gvr: '/v1/configmaps', name: 'cm', oldObject: cm })), 403,
      'configmaps "cm" is forbidden: admission control is denying all modifications');
  });
});

describe('AlwaysPullImages admission', () => {
  it('sets imagePullPolicy Always on every container', async () => {
    const services = await testServices();
    const p = pod('p', {
      initContainers: [{ name: 'i', image: 'busybox', imagePullPolicy: 'Never' }],
      containers: [{ name: 'c', image: 'nginx', imagePullPolicy: 'IfNotPresent', securityContext: {} }],
      ephemeralContainers: [{ name: 'e', image: 'debug' }],
    });
    await admit(alwaysPullImages, services, attributes(services, { gvr: '/v1/pods', object: p }));
    const spec = p['spec'] as JsonObject;
    for (const kind of ['initContainers', 'containers', 'ephemeralContainers']) assert.equal((spec[kind] as JsonObject[])[0]!['imagePullPolicy'], 'Always');
    // In the reference's field place: before securityContext.
    assert.deepEqual(Object.keys((spec['containers'] as JsonObject[])[0]!), ['name', 'image', 'imagePullPolicy', 'securityContext']);
  });

  it('leaves updates that bring no new image alone, and holds validation to Always', async () => {
    const services = await testServices();
    const old = pod('p', { containers: [{ name: 'c', image: 'nginx', imagePullPolicy: 'IfNotPresent' }] });
    const same = structuredClone(old);
    await admit(alwaysPullImages, services, attributes(services, { operation: 'UPDATE', gvr: '/v1/pods', object: same, oldObject: old }));
    assert.deepEqual(same, old);
    const a = attributes(services, { gvr: '/v1/pods', object: pod('p', { containers: [{ name: 'c', image: 'nginx', imagePullPolicy: 'Never' }] }) });
    await refused(() => alwaysPullImages.validate!(a, services), 500,
      'pods "p" is forbidden: spec.containers[0].imagePullPolicy: Unsupported value: "Never": supported values: "Always"');
  });
});

describe('DenyServiceExternalIPs admission', () => {
  const service = (externalIPs?: string[]): JsonObject => ({ metadata: { name: 'svc' }, spec: { ports: [{ port: 80 }], ...(externalIPs ? { externalIPs } : {}) } });

  it('refuses new external IPs and keeps existing ones', async () => {
    const services = await testServices();
    await admit(denyServiceExternalIPs, services, attributes(services, { gvr: '/v1/services', object: service() }));
    await refused(admit(denyServiceExternalIPs, services, attributes(services, { gvr: '/v1/services', object: service(['1.2.3.4']) })), 403,
      'services "svc" is forbidden: Use of external IPs is denied by admission control');
    await admit(denyServiceExternalIPs, services, attributes(services, { operation: 'UPDATE', gvr: '/v1/services', object: service(['1.2.3.4']), oldObject: service(['1.2.3.4', '5.6.7.8']) }));
    await refused(admit(denyServiceExternalIPs, services, attributes(services, { operation: 'UPDATE', gvr: '/v1/services', object: service(['9.9.9.9']), oldObject: service(['1.2.3.4']) })), 403,
      /Use of external IPs is denied by admission control/);
  });
});
