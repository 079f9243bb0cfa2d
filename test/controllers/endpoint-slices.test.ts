// The endpointslice and endpointslicemirroring controllers: a Service's EndpointSlices follow its
// pods (conditions, ports, 100 to a slice, an empty slice when none); user Endpoints of a Service
// without selector are mirrored.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/server.js';
import { call, memoryServer, mustOk, sleep, until } from '../helpers.js';
import { podBody, setPodStatus } from './endpoint-helpers.js';

interface Slice {
  metadata: { name: string; generateName?: string; labels?: Record<string, string>; annotations?: Record<string, string>; ownerReferences?: Array<Record<string, unknown>>; managedFields: Array<{ manager: string }> };
  addressType: string;
  endpoints?: Array<{ addresses: string[]; conditions: Record<string, boolean>; nodeName?: string; zone?: string; targetRef?: Record<string, string> }>;
  ports?: Array<Record<string, unknown>>;
}

describe('endpointslice controllers', () => {
  let server: RunningServer;
  const ns = 'eps';
  const base = `/api/v1/namespaces/${ns}`;
  const slicesOf = async (service: string): Promise<Slice[]> => {
    const r = await mustOk(call(server.url, 'GET', `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices?labelSelector=kubernetes.io/service-name=${service}`));
    return r.json.items;
  };
  before(async () => {
    server = await memoryServer();
    await mustOk(call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } }), 201);
  });
  after(() => server.close());

  it('a Service selecting no pod gets one empty slice, named, labelled and owned as the reference\'s', async () => {
    const svc = await mustOk(call(server.url, 'POST', `${base}/services`, { body: { metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] } } }), 201);
    const [slice] = await until('placeholder', async () => {
      const s = await slicesOf('web');
      return s.length > 0 && s;
    });
    assert.match(slice!.metadata.name, /^web-[a-z0-9]{5}$/);
    assert.equal(slice!.metadata.generateName, 'web-');
    assert.deepEqual(slice!.metadata.labels, { 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io', 'kubernetes.io/service-name': 'web' });
    assert.deepEqual(slice!.metadata.annotations, { 'endpoints.kubernetes.io/last-change-trigger-time': svc.json.metadata.creationTimestamp });
    assert.deepEqual(slice!.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Service', name: 'web', uid: svc.json.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    assert.equal(slice!.metadata.managedFields[0]!.manager, 'kube-controller-manager');
    assert.equal(slice!.addressType, 'IPv4');
    // The reference reads these back as null; the controller sends nothing for them (as its managedFields show).
    assert.equal(slice!.endpoints ?? null, null);
    assert.equal(slice!.ports ?? null, null);
    const table = await mustOk(call(server.url, 'GET', `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`, { headers: { Accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' } }));
    assert.deepEqual(table.json.rows[0].cells.slice(1, 4), ['IPv4', '<unset>', '<unset>']);
    await sleep(100);
    assert.equal((await slicesOf('web')).length, 1, 'the placeholder stays alone');
  });

  it('pods fill the slice (the placeholder reused) with ready, serving and terminating conditions, node and zone', async () => {
    await mustOk(call(server.url, 'POST', '/api/v1/nodes', { body: { metadata: { name: 'node-1', labels: { 'topology.kubernetes.io/zone': 'zone-a' } } } }), 201);
    const before = (await slicesOf('web'))[0]!.metadata.name;
    await mustOk(call(server.url, 'POST', `${base}/pods`, { body: podBody('w1', { app: 'web' }) }), 201);
    await mustOk(call(server.url, 'POST', `${base}/pods`, { body: podBody('w2', { app: 'web' }) }), 201);
    await setPodStatus(server.url, ns, 'w1', '10.3.0.1', true);
    await setPodStatus(server.url, ns, 'w2', '10.3.0.2', false);
    const [slice] = await until('two endpoints', async () => {
      const s = await slicesOf('web');
      return s.length === 1 && s[0]!.endpoints?.length === 2 && s;
    });
    assert.equal(slice!.metadata.name, before);
    assert.deepEqual(slice!.ports, [{ name: '', protocol: 'TCP', port: 8080 }]);
    const byName = Object.fromEntries(slice!.endpoints!.map((e) => [e.targetRef!['name'], e]));
    assert.deepEqual(byName['w1']!.addresses, ['10.3.0.1']);
    assert.deepEqual(byName['w1']!.conditions, { ready: true, serving: true, terminating: false });
    assert.deepEqual(byName['w2']!.conditions, { ready: false, serving: false, terminating: false });
    assert.equal(byName['w1']!.nodeName, 'node-1');
    assert.equal(byName['w1']!.zone, 'zone-a');
    // A pod that goes takes its endpoint with it; the last one leaves the empty slice.
    await mustOk(call(server.url, 'DELETE', `${base}/pods/w1?gracePeriodSeconds=0`));
    await mustOk(call(server.url, 'DELETE', `${base}/pods/w2?gracePeriodSeconds=0`));
    await until('empty again', async () => {
      const s = await slicesOf('web');
      return s.length === 1 && (s[0]!.endpoints ?? null) === null;
    });
  });

  it('a headless Service\'s slices carry the headless label; a named port no pod has gives endpoints without ports', async () => {
    await mustOk(call(server.url, 'POST', `${base}/services`, { body: { metadata: { name: 'hl' }, spec: { clusterIP: 'None', selector: { app: 'hl' }, ports: [{ port: 80, targetPort: 'missing' }] } } }), 201);
    await mustOk(call(server.url, 'POST', `${base}/pods`, { body: podBody('h1', { app: 'hl' }) }), 201);
    await setPodStatus(server.url, ns, 'h1', '10.3.1.1', true);
    const [slice] = await until('hl slice', async () => {
      const s = await slicesOf('hl');
      return s.length === 1 && s[0]!.endpoints?.length === 1 && s;
    });
    assert.equal(slice!.metadata.labels!['service.kubernetes.io/headless'], '');
    assert.equal(slice!.ports ?? null, null);
  });

  it('more than 100 endpoints take more slices', { timeout: 60_000 }, async () => {
    await mustOk(call(server.url, 'POST', `${base}/services`, { body: { metadata: { name: 'many' }, spec: { selector: { app: 'many' }, ports: [{ port: 80 }] } } }), 201);
    for (let start = 0; start < 150; start += 25) {
      await Promise.all(Array.from({ length: 25 }, async (_, k) => {
        const i = start + k;
        await mustOk(call(server.url, 'POST', `${base}/pods`, { body: podBody(`m-${i}`, { app: 'many' }, [{ containerPort: 80 }]) }), 201);
        await setPodStatus(server.url, ns, `m-${i}`, `10.4.0.${i}`, true);
      }));
    }
    const slices = await until('150 endpoints in 2 slices', async () => {
      const s = await slicesOf('many');
      const total = s.reduce((n, x) => n + (x.endpoints?.length ?? 0), 0);
      return total === 150 && s;
    }, 20_000);
    assert.deepEqual(slices.map((s) => s.endpoints!.length).sort((a, b) => a - b), [50, 100]);
    const addresses = new Set(slices.flatMap((s) => s.endpoints!.map((e) => e.addresses[0])));
    assert.equal(addresses.size, 150);
  });

  it('user Endpoints of a Service without selector are mirrored; the kubernetes Endpoints and those without a Service are not', async () => {
    await mustOk(call(server.url, 'POST', `${base}/services`, { body: { metadata: { name: 'ext' }, spec: { ports: [{ port: 5432 }] } } }), 201);
    const ep = await mustOk(call(server.url, 'POST', `${base}/endpoints`, {
      body: { metadata: { name: 'ext', labels: { team: 'a' } }, subsets: [{ addresses: [{ ip: '192.0.2.10' }], notReadyAddresses: [{ ip: '192.0.2.11' }], ports: [{ name: 'pg', port: 5432 }] }] },
    }), 201);
    await mustOk(call(server.url, 'POST', `${base}/endpoints`, { body: { metadata: { name: 'lonely' }, subsets: [{ addresses: [{ ip: '192.0.2.12' }], ports: [{ port: 1 }] }] } }), 201);
    const [slice] = await until('mirrored', async () => {
      const s = await slicesOf('ext');
      return s.length === 1 && s;
    });
    assert.match(slice!.metadata.name, /^ext-[a-z0-9]{5}$/);
    assert.deepEqual(slice!.metadata.labels, { team: 'a', 'kubernetes.io/service-name': 'ext', 'endpointslice.kubernetes.io/managed-by': 'endpointslicemirroring-controller.k8s.io' });
    assert.deepEqual(slice!.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Endpoints', name: 'ext', uid: ep.json.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    assert.deepEqual(slice!.endpoints, [
      { addresses: ['192.0.2.10'], conditions: { ready: true } },
      { addresses: ['192.0.2.11'], conditions: { ready: false } },
    ]);
    assert.deepEqual(slice!.ports, [{ name: 'pg', protocol: 'TCP', port: 5432 }]);
    assert.equal((await slicesOf('lonely')).length, 0);
    const kube = await mustOk(call(server.url, 'GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices'));
    assert.deepEqual(kube.json.items.map((s: Slice) => s.metadata.name), ['kubernetes']);
    // Giving the Service a selector hands its endpoints to the other controllers: the mirror goes.
    await mustOk(call(server.url, 'PATCH', `${base}/services/ext`, { body: { spec: { selector: { app: 'ext' } } }, headers: { 'Content-Type': 'application/merge-patch+json' } }));
    await until('mirror removed', async () => (await slicesOf('ext')).every((s) => s.metadata.labels!['endpointslice.kubernetes.io/managed-by'] === 'endpointslice-controller.k8s.io'));
  });
});
