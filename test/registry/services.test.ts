// Service allocation through a real server: the reference's allocated fields, addresses and node
// ports asked for or refused, release on delete and type change, concurrency, dry run, restart,
// exhaustion, dual-stack, and the `kubernetes` Service with its Endpoints and EndpointSlice.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServer, type RunningServer, type ServerOptions } from '../../src/server/server.js';
import { call, fixture, memoryServer, mustOk, until, type Reply } from '../helpers.js';

const SERVICES = '/api/v1/namespaces/default/services';

interface Port {
  name?: string;
  port: number;
  nodePort?: number;
  protocol?: string;
}

function service(name: string, spec: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ port: 80 }], ...spec } };
}

async function create(base: string, body: Record<string, unknown>, query = ''): Promise<Reply> {
  return call(base, 'POST', `${SERVICES}${query}`, { body });
}

/** The allocated fields of a Service, with the fixtures' placeholders for what is random. */
function allocated(spec: Record<string, unknown>, range: RegExp): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const ip = (v: unknown) => (typeof v === 'string' && range.test(v) ? '<cluster-ip>' : v);
  if ('clusterIP' in spec) out['clusterIP'] = ip(spec['clusterIP']);
  if ('clusterIPs' in spec) out['clusterIPs'] = (spec['clusterIPs'] as unknown[]).map(ip);
  for (const k of ['ipFamilies', 'ipFamilyPolicy']) if (k in spec) out[k] = spec[k];
  out['nodePorts'] = ((spec['ports'] as Port[] | undefined) ?? []).map((p) => (p.nodePort === undefined ? null : typeof p.nodePort === 'number' ? '<node-port>' : p.nodePort));
  return out;
}

/** Node ports no Service holds now (random picks elsewhere in the suite could take a fixed one). */
async function freeNodePorts(base: string, count: number): Promise<number[]> {
  const list = (await mustOk(call(base, 'GET', '/api/v1/services'))).json as { items: Array<{ spec: { ports?: Port[]; healthCheckNodePort?: number } }> };
  const used = new Set(list.items.flatMap((s) => [...(s.spec.ports ?? []).map((p) => p.nodePort), s.spec.healthCheckNodePort]));
  const free: number[] = [];
  for (let port = 30050; free.length < count; port++) if (!used.has(port)) free.push(port);
  return free;
}

function statusMessage(r: Reply): string {
  return String((r.json as { message?: string }).message);
}

describe('service allocation', () => {
  let server: RunningServer;
  before(async () => {
    // The reference fixtures were recorded with this range.
    server = await memoryServer({ serviceClusterIpRange: '10.96.0.0/16' });
    await mustOk(call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'ref-create' } } }), 201);
  });
  after(() => server.close());

  for (const name of ['clusterip', 'headless', 'nodeport', 'externalname']) {
    it(`fills in what the reference allocates: ${name}`, async () => {
      const f = fixture(`create/core-v1-services-${name}`);
      const reply = await mustOk(call(server.url, f.request.method, f.request.path, { body: f.request.body }), 201);
      const want = (f.response.body as { spec: Record<string, unknown> }).spec;
      assert.deepEqual(allocated(reply.json.spec, /^10\.96\.\d+\.\d+$/), allocated(want, /^<cluster-ip>$/));
    });
  }

  it('gives a requested address when free, refuses it when taken or out of range (422 as the reference)', async () => {
    const first = await mustOk(create(server.url, service('ask-50', { clusterIP: '10.96.0.50' })), 201);
    assert.equal(first.json.spec.clusterIP, '10.96.0.50');
    assert.deepEqual(first.json.spec.clusterIPs, ['10.96.0.50']);
    const taken = await create(server.url, service('ask-50-again', { clusterIP: '10.96.0.50' }));
    assert.equal(taken.status, 422);
    assert.equal(statusMessage(taken), 'Service "ask-50-again" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.50"}: failed to allocate IP 10.96.0.50: provided IP is already allocated');
    assert.deepEqual(taken.json.details, {
      name: 'ask-50-again', kind: 'Service',
      causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: []string{"10.96.0.50"}: failed to allocate IP 10.96.0.50: provided IP is already allocated', field: 'spec.clusterIPs' }],
    });
    const outside = await create(server.url, service('ask-outside', { clusterIP: '10.200.0.5', clusterIPs: ['10.200.0.5'] }));
    assert.equal(outside.status, 422);
    assert.equal(statusMessage(outside), 'Service "ask-outside" is invalid: spec.clusterIPs: Invalid value: []string{"10.200.0.5"}: failed to allocate IP 10.200.0.5: the provided IP (10.200.0.5) is not in the valid range. The range of valid IPs is 10.96.0.0/16');
    const broadcast = await create(server.url, service('ask-broadcast', { clusterIP: '10.96.255.255' }));
    assert.match(statusMessage(broadcast), /the provided IP \(10\.96\.255\.255\) is not in the valid range/);
    // The first address is the kubernetes Service's.
    const kubernetes = await create(server.url, service('ask-first', { clusterIP: '10.96.0.1' }));
    assert.match(statusMessage(kubernetes), /failed to allocate IP 10\.96\.0\.1: provided IP is already allocated/);
  });

  it('gives a requested node port when free, refuses it when taken or out of range', async () => {
    const [wanted] = await freeNodePorts(server.url, 1);
    const ok = await mustOk(create(server.url, service('np-asked', { type: 'NodePort', ports: [{ port: 80, nodePort: wanted }] })), 201);
    assert.equal(ok.json.spec.ports[0].nodePort, wanted);
    const taken = await create(server.url, service('np-asked-again', { type: 'NodePort', ports: [{ port: 80, nodePort: wanted }] }));
    assert.equal(taken.status, 422);
    assert.equal(statusMessage(taken), `Service "np-asked-again" is invalid: spec.ports[0].nodePort: Invalid value: ${wanted}: provided port is already allocated`);
    const outside = await create(server.url, service('np-8080', { type: 'NodePort', ports: [{ name: 'a', port: 81 }, { name: 'b', port: 80, nodePort: 8080 }] }));
    assert.equal(statusMessage(outside), 'Service "np-8080" is invalid: spec.ports[1].nodePort: Invalid value: 8080: provided port is not in the valid range. The range of valid ports is 30000-32767');
    // Ports of one number share a node port; others get their own.
    const shared = await mustOk(create(server.url, service('np-shared', {
      type: 'NodePort', ports: [{ name: 'tcp', port: 53, protocol: 'TCP' }, { name: 'udp', port: 53, protocol: 'UDP' }, { name: 'web', port: 80 }],
    })), 201);
    const [tcp, udp, web] = (shared.json.spec.ports as Port[]).map((p) => p.nodePort!);
    assert.equal(tcp, udp);
    assert.notEqual(web, tcp);
    for (const p of [tcp!, web!]) assert.ok(p >= 30000 && p <= 32767);
  });

  it('LoadBalancer: node ports unless allocateLoadBalancerNodePorts is false, a health check port with Local traffic', async () => {
    const local = await mustOk(create(server.url, service('lb-local', { type: 'LoadBalancer', externalTrafficPolicy: 'Local' })), 201);
    assert.equal(typeof local.json.spec.ports[0].nodePort, 'number');
    assert.equal(typeof local.json.spec.healthCheckNodePort, 'number');
    assert.notEqual(local.json.spec.healthCheckNodePort, local.json.spec.ports[0].nodePort);
    const none = await mustOk(create(server.url, service('lb-none', { type: 'LoadBalancer', allocateLoadBalancerNodePorts: false })), 201);
    assert.equal(none.json.spec.ports[0].nodePort, undefined);
    assert.equal(none.json.spec.healthCheckNodePort, undefined);
    assert.match(none.json.spec.clusterIP, /^10\.96\./);
  });

  it('PUT of a missing Service creates it (201), allocating as a POST does', async () => {
    const [port] = await freeNodePorts(server.url, 1);
    const asked = await call(server.url, 'PUT', `${SERVICES}/put-made`, { body: service('put-made', { type: 'NodePort', clusterIP: '10.96.0.71', ports: [{ port: 80, nodePort: port }] }) });
    assert.equal(asked.status, 201);
    assert.equal(asked.json.spec.clusterIP, '10.96.0.71');
    assert.deepEqual(asked.json.spec.clusterIPs, ['10.96.0.71']);
    assert.equal(asked.json.spec.ports[0].nodePort, port);
    assert.equal((await call(server.url, 'GET', `${SERVICES}/put-made`)).status, 200);
    // What it took is held: a POST asking for the same address or node port is refused.
    const sameIp = await create(server.url, service('put-made-ip', { clusterIP: '10.96.0.71' }));
    assert.match(statusMessage(sameIp), /failed to allocate IP 10\.96\.0\.71: provided IP is already allocated/);
    const samePort = await create(server.url, service('put-made-port', { type: 'NodePort', ports: [{ port: 80, nodePort: port }] }));
    assert.equal(statusMessage(samePort), `Service "put-made-port" is invalid: spec.ports[0].nodePort: Invalid value: ${port}: provided port is already allocated`);
    // Nothing asked: an address and a node port are picked.
    const picked = await call(server.url, 'PUT', `${SERVICES}/put-picked`, { body: service('put-picked', { type: 'NodePort' }) });
    assert.equal(picked.status, 201);
    assert.match(picked.json.spec.clusterIP, /^10\.96\.\d+\.\d+$/);
    assert.ok(picked.json.spec.ports[0].nodePort >= 30000 && picked.json.spec.ports[0].nodePort <= 32767);
    // A second PUT is an update of what the first made.
    const again = await call(server.url, 'PUT', `${SERVICES}/put-made`, { body: { ...asked.json, metadata: { ...asked.json.metadata, labels: { a: 'b' } } } });
    assert.equal(again.status, 200);
    assert.equal(again.json.spec.clusterIP, '10.96.0.71');
  });

  it('releases the address and node ports on delete: they can be taken again', async () => {
    const [port] = await freeNodePorts(server.url, 1);
    await mustOk(create(server.url, service('freed', { type: 'NodePort', clusterIP: '10.96.0.60', ports: [{ port: 80, nodePort: port }] })), 201);
    await mustOk(call(server.url, 'DELETE', `${SERVICES}/freed`));
    const again = await mustOk(create(server.url, service('freed-again', { type: 'NodePort', clusterIP: '10.96.0.60', ports: [{ port: 80, nodePort: port }] })), 201);
    assert.equal(again.json.spec.clusterIP, '10.96.0.60');
  });

  it('releases the address on a change to ExternalName, the node ports on a change to ClusterIP', async () => {
    const [port] = await freeNodePorts(server.url, 1);
    await mustOk(create(server.url, service('retyped', { type: 'NodePort', clusterIP: '10.96.0.61', ports: [{ port: 80, nodePort: port }] })), 201);
    const merge = { 'Content-Type': 'application/merge-patch+json' };
    const clusterIp = await mustOk(call(server.url, 'PATCH', `${SERVICES}/retyped`, { headers: merge, body: JSON.stringify({ spec: { type: 'ClusterIP' } }) }));
    assert.equal(clusterIp.json.spec.ports[0].nodePort, undefined);
    assert.equal(clusterIp.json.spec.clusterIP, '10.96.0.61');
    await mustOk(create(server.url, service('takes-its-port', { type: 'NodePort', ports: [{ port: 80, nodePort: port }] })), 201);
    const external = await mustOk(call(server.url, 'PATCH', `${SERVICES}/retyped`, { headers: merge, body: JSON.stringify({ spec: { type: 'ExternalName', externalName: 'db.example.com' } }) }));
    for (const k of ['clusterIP', 'clusterIPs', 'ipFamilies', 'ipFamilyPolicy']) assert.equal(external.json.spec[k], undefined, k);
    await mustOk(create(server.url, service('takes-61', { clusterIP: '10.96.0.61' })), 201);
    // And back: an ExternalName that becomes ClusterIP gets an address again.
    const back = await mustOk(call(server.url, 'PATCH', `${SERVICES}/retyped`, { headers: merge, body: JSON.stringify({ spec: { type: 'ClusterIP', externalName: null } }) }));
    assert.match(back.json.spec.clusterIP, /^10\.96\./);
    assert.notEqual(back.json.spec.clusterIP, '10.96.0.61');
  });

  it('an update that leaves the allocated fields out keeps them; a refused one keeps nothing it took', async () => {
    const made = await mustOk(create(server.url, service('resubmitted', { type: 'NodePort' })), 201);
    const { clusterIP } = made.json.spec;
    const nodePort = made.json.spec.ports[0].nodePort;
    const body = { ...service('resubmitted', { type: 'NodePort' }), metadata: { name: 'resubmitted', resourceVersion: made.json.metadata.resourceVersion } };
    const put = await mustOk(call(server.url, 'PUT', `${SERVICES}/resubmitted`, { body }));
    assert.equal(put.json.spec.clusterIP, clusterIP);
    assert.equal(put.json.spec.ports[0].nodePort, nodePort);
    // A second port whose node port is taken: refused, and its other new port is not kept.
    const [held, added] = await freeNodePorts(server.url, 2);
    await mustOk(create(server.url, service('holds-port', { type: 'NodePort', ports: [{ port: 80, nodePort: held }] })), 201);
    const merge = { 'Content-Type': 'application/merge-patch+json' };
    const refused = await call(server.url, 'PATCH', `${SERVICES}/resubmitted`, {
      headers: merge, body: JSON.stringify({ spec: { ports: [{ name: 'a', port: 80, nodePort }, { name: 'b', port: 81, nodePort: added }, { name: 'c', port: 82, nodePort: held }] } }),
    });
    assert.equal(refused.status, 422, refused.text);
    assert.match(statusMessage(refused), new RegExp(`spec\\.ports\\[2\\]\\.nodePort: Invalid value: ${held}: provided port is already allocated`));
    await mustOk(create(server.url, service('takes-added', { type: 'NodePort', ports: [{ port: 80, nodePort: added }] })), 201);
  });

  it('a dry run shows what it would allocate and keeps nothing', async () => {
    const [port] = await freeNodePorts(server.url, 1);
    const dry = await mustOk(create(server.url, service('dry', { clusterIP: '10.96.0.70', type: 'NodePort', ports: [{ port: 80, nodePort: port }] }), '?dryRun=All'), 201);
    assert.equal(dry.json.spec.clusterIP, '10.96.0.70');
    await mustOk(create(server.url, service('not-dry', { clusterIP: '10.96.0.70', type: 'NodePort', ports: [{ port: 80, nodePort: port }] })), 201);
    // Picked ones: the reference's dry run answers the network address and made-up node ports.
    const picked = await mustOk(create(server.url, service('dry-picked', { type: 'LoadBalancer', externalTrafficPolicy: 'Local' }), '?dryRun=All'), 201);
    assert.equal(picked.json.spec.clusterIP, '10.96.0.0');
    assert.equal(picked.json.spec.ports[0].nodePort, 32769);
    assert.equal(picked.json.spec.healthCheckNodePort, 32770);
    assert.equal((await call(server.url, 'GET', `${SERVICES}/dry-picked`)).status, 404);
  });

  it('IP family fields are checked against the cluster', async () => {
    const dual = await create(server.url, service('wants-dual', { ipFamilyPolicy: 'RequireDualStack' }));
    assert.equal(statusMessage(dual), 'Service "wants-dual" is invalid: spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services');
    const v6 = await create(server.url, service('wants-v6', { ipFamilies: ['IPv6'] }));
    assert.equal(statusMessage(v6), 'Service "wants-v6" is invalid: spec.ipFamilies[0]: Invalid value: "IPv6": not configured on this cluster');
    const v6ip = await create(server.url, service('wants-v6-ip', { clusterIP: 'fd00::5' }));
    assert.equal(statusMessage(v6ip), 'Service "wants-v6-ip" is invalid: spec.clusterIPs[0]: Invalid value: []string{"fd00::5"}: IPv6 is not configured on this cluster');
    const prefer = await mustOk(create(server.url, service('prefers-dual', { ipFamilyPolicy: 'PreferDualStack' })), 201);
    assert.deepEqual(prefer.json.spec.ipFamilies, ['IPv4']);
    assert.equal(prefer.json.spec.clusterIPs.length, 1);
  });
});

describe('concurrent creates', () => {
  let server: RunningServer;
  before(async () => {
    // A server of its own: random node ports here would collide with the ports other tests ask for.
    server = await memoryServer();
  });
  after(() => server.close());

  it('1,000 concurrent creates get 1,000 distinct addresses and node ports', async (t) => {
    const started = performance.now();
    const replies = await Promise.all(Array.from({ length: 1000 }, (_, i) => call(server.url, 'POST', SERVICES, { body: service(`svc-${i}`, { type: 'NodePort' }) })));
    t.diagnostic(`1,000 concurrent creates in ${Math.round(performance.now() - started)} ms`);
    for (const r of replies) assert.equal(r.status, 201, r.text);
    assert.equal(new Set(replies.map((r) => r.json.spec.clusterIP)).size, 1000);
    assert.equal(new Set(replies.map((r) => r.json.spec.ports[0].nodePort)).size, 1000);
  });

});

describe('dual-stack service ranges', () => {
  let server: RunningServer;
  before(async () => {
    server = await memoryServer({ serviceClusterIpRange: '10.96.0.0/16,fd00:10:96::/112', kubernetesService: false });
  });
  after(() => server.close());

  it('single-stack by default, both families when preferred or required, in the order asked', async () => {
    const single = await mustOk(create(server.url, service('single')), 201);
    assert.deepEqual([single.json.spec.ipFamilyPolicy, single.json.spec.ipFamilies], ['SingleStack', ['IPv4']]);
    const prefer = await mustOk(create(server.url, service('prefer', { ipFamilyPolicy: 'PreferDualStack' })), 201);
    assert.deepEqual(prefer.json.spec.ipFamilies, ['IPv4', 'IPv6']);
    assert.match(prefer.json.spec.clusterIPs[0], /^10\.96\./);
    assert.match(prefer.json.spec.clusterIPs[1], /^fd00:10:96::/);
    const v6first = await mustOk(create(server.url, service('v6-first', { ipFamilyPolicy: 'RequireDualStack', ipFamilies: ['IPv6', 'IPv4'] })), 201);
    assert.match(v6first.json.spec.clusterIP, /^fd00:10:96::/);
    assert.match(v6first.json.spec.clusterIPs[1], /^10\.96\./);
    const asked = await mustOk(create(server.url, service('asked', { clusterIPs: ['fd00:10:96::a', '10.96.0.10'], clusterIP: 'fd00:10:96::a', ipFamilyPolicy: 'RequireDualStack' })), 201);
    assert.deepEqual(asked.json.spec.ipFamilies, ['IPv6', 'IPv4']);
    const taken = await create(server.url, service('asked-again', { clusterIPs: ['fd00:10:96::b', '10.96.0.10'], clusterIP: 'fd00:10:96::b', ipFamilyPolicy: 'RequireDualStack' }));
    assert.equal(statusMessage(taken), 'Service "asked-again" is invalid: spec.clusterIPs: Invalid value: []string{"fd00:10:96::b", "10.96.0.10"}: failed to allocate IP 10.96.0.10: provided IP is already allocated');
    // The refused create gave its IPv6 address back.
    await mustOk(create(server.url, service('takes-b', { clusterIP: 'fd00:10:96::b' })), 201);
  });

  it('upgrade to dual-stack adds a secondary address', async () => {
    await mustOk(create(server.url, service('upgraded')), 201);
    const merge = { 'Content-Type': 'application/merge-patch+json' };
    const dual = await mustOk(call(server.url, 'PATCH', `${SERVICES}/upgraded`, { headers: merge, body: JSON.stringify({ spec: { ipFamilyPolicy: 'PreferDualStack' } }) }));
    assert.deepEqual(dual.json.spec.ipFamilies, ['IPv4', 'IPv6']);
    assert.equal(dual.json.spec.clusterIPs.length, 2);
    assert.match(dual.json.spec.clusterIPs[1], /^fd00:10:96::/);
  });

  it('downgrade to single-stack releases the secondary address on commit', async () => {
    const made = await mustOk(create(server.url, service('downgraded', { ipFamilyPolicy: 'RequireDualStack', clusterIPs: ['10.96.0.20', 'fd00:10:96::20'], clusterIP: '10.96.0.20' })), 201);
    assert.deepEqual(made.json.spec.clusterIPs, ['10.96.0.20', 'fd00:10:96::20']);
    const merge = { 'Content-Type': 'application/merge-patch+json' };
    const single = await mustOk(call(server.url, 'PATCH', `${SERVICES}/downgraded`, { headers: merge, body: JSON.stringify({ spec: { ipFamilyPolicy: 'SingleStack' } }) }));
    assert.deepEqual(single.json.spec.clusterIPs, ['10.96.0.20']);
    assert.deepEqual(single.json.spec.ipFamilies, ['IPv4']);
    await mustOk(create(server.url, service('takes-20', { clusterIP: 'fd00:10:96::20' })), 201);
  });
});

describe('exhaustion of small ranges', () => {
  let server: RunningServer;
  before(async () => {
    server = await memoryServer({ serviceClusterIpRange: '10.96.0.0/29', serviceNodePortRange: '30000-30001' });
  });
  after(() => server.close());

  it('500 "range is full" for addresses and node ports; a failed create gives back what it took', async () => {
    await mustOk(create(server.url, service('np-a', { type: 'NodePort' })), 201);
    await mustOk(create(server.url, service('np-b', { type: 'NodePort' })), 201);
    const noPort = await create(server.url, service('np-c', { type: 'NodePort' }));
    assert.equal(noPort.status, 500);
    assert.deepEqual(noPort.json, {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Internal error occurred: failed to allocate a nodePort: range is full',
      reason: 'InternalError', details: { causes: [{ message: 'failed to allocate a nodePort: range is full' }] }, code: 500,
    });
    // /29: 6 usable addresses, one the kubernetes Service's, two taken above; np-c's went back.
    for (const name of ['c-1', 'c-2', 'c-3']) await mustOk(create(server.url, service(name)), 201);
    const full = await create(server.url, service('c-4'));
    assert.equal(full.status, 500);
    assert.equal(statusMessage(full), 'Internal error occurred: failed to allocate a serviceIP: range is full');
    // Headless and ExternalName Services need no address.
    await mustOk(create(server.url, service('headless', { clusterIP: 'None' })), 201);
    await mustOk(create(server.url, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'external' }, spec: { type: 'ExternalName', externalName: 'x.example.com' } }), 201);
  });
});

describe('allocations across a restart', () => {
  let dir: string;
  const options = (): ServerOptions => ({ bindAddress: '127.0.0.1', port: 0, storage: 'sqlite', dataDir: dir, insecure: true, serviceClusterIpRange: '10.96.0.0/16' });
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'capstan-services-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('what stored Services hold stays taken; the kubernetes Service is kept, not made twice', async () => {
    let server = await startServer(options());
    try {
      await mustOk(create(server.url, service('kept', { type: 'NodePort', clusterIP: '10.96.0.90', ports: [{ port: 80, nodePort: 30090 }] })), 201);
    } finally {
      await server.close();
    }
    server = await startServer(options());
    try {
      const ip = await create(server.url, service('same-ip', { clusterIP: '10.96.0.90' }));
      assert.equal(ip.status, 422);
      assert.match(statusMessage(ip), /provided IP is already allocated/);
      const port = await create(server.url, service('same-port', { type: 'NodePort', ports: [{ port: 80, nodePort: 30090 }] }));
      assert.match(statusMessage(port), /spec\.ports\[0\]\.nodePort: Invalid value: 30090: provided port is already allocated/);
      const kubernetes = await mustOk(call(server.url, 'GET', `${SERVICES}/kubernetes`));
      assert.equal(kubernetes.json.spec.clusterIP, '10.96.0.1');
      // It follows the port served now.
      assert.equal(kubernetes.json.spec.ports[0].targetPort, server.port);
      // Freed by a delete, it can be had again.
      await mustOk(call(server.url, 'DELETE', `${SERVICES}/kept`));
      await mustOk(create(server.url, service('same-ip-now', { clusterIP: '10.96.0.90' })), 201);
    } finally {
      await server.close();
    }
  });
});

describe('the kubernetes Service', () => {
  let server: RunningServer;
  before(async () => {
    server = await memoryServer({ serviceClusterIpRange: '10.96.0.0/16', advertiseAddress: '192.0.2.7' });
  });
  after(() => server.close());

  const paths = {
    service: `${SERVICES}/kubernetes`,
    endpoints: '/api/v1/namespaces/default/endpoints/kubernetes',
    endpointslice: '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes',
  };

  /** The object at `path` once it is there again (the controller makes it again within 2 s). */
  const eventually = (path: string): Promise<Reply> =>
    until(`${path} made again`, async () => {
      const r = await call(server.url, 'GET', path);
      return r.status === 200 ? r : undefined;
    }, 2000, 20);

  it('exists with the first address, port 443 to the served port, and the reference\'s labels', async () => {
    const svc = (await mustOk(call(server.url, 'GET', paths.service))).json;
    assert.deepEqual(svc.metadata.labels, { component: 'apiserver', provider: 'kubernetes' });
    assert.deepEqual(svc.spec.ports, [{ name: 'https', protocol: 'TCP', port: 443, targetPort: server.port }]);
    assert.equal(svc.spec.clusterIP, '10.96.0.1');
    assert.deepEqual(svc.spec.clusterIPs, ['10.96.0.1']);
    assert.equal(svc.spec.type, 'ClusterIP');
    assert.equal(svc.spec.sessionAffinity, 'None');
    assert.equal(svc.spec.selector, undefined);
    assert.deepEqual([svc.spec.ipFamilies, svc.spec.ipFamilyPolicy], [['IPv4'], 'SingleStack']);
    assert.equal(svc.metadata.managedFields[0].manager, 'kube-apiserver');
  });

  it('has Endpoints and an EndpointSlice naming the advertise address and the served port', async () => {
    const eps = (await mustOk(call(server.url, 'GET', paths.endpoints))).json;
    assert.deepEqual(eps.metadata.labels, { 'endpointslice.kubernetes.io/skip-mirror': 'true' });
    assert.deepEqual(eps.subsets, [{ addresses: [{ ip: '192.0.2.7' }], ports: [{ name: 'https', port: server.port, protocol: 'TCP' }] }]);
    const slice = (await mustOk(call(server.url, 'GET', paths.endpointslice))).json;
    assert.deepEqual(slice.metadata.labels, { 'kubernetes.io/service-name': 'kubernetes' });
    assert.equal(slice.addressType, 'IPv4');
    assert.deepEqual(slice.endpoints, [{ addresses: ['192.0.2.7'], conditions: { ready: true } }]);
    assert.deepEqual(slice.ports, [{ name: 'https', protocol: 'TCP', port: server.port }]);
  });

  for (const [what, path] of Object.entries(paths)) {
    it(`is made again when its ${what} is deleted`, async () => {
      await mustOk(call(server.url, 'DELETE', path));
      const again = await eventually(path);
      if (what === 'service') assert.equal(again.json.spec.clusterIP, '10.96.0.1');
    });
  }

  it('has its ports put back when they are changed', async () => {
    const merge = { 'Content-Type': 'application/merge-patch+json' };
    await mustOk(call(server.url, 'PATCH', paths.endpoints, { headers: merge, body: JSON.stringify({ subsets: [{ addresses: [{ ip: '192.0.2.99' }], ports: [{ port: 1 }] }] }) }));
    await until('the Endpoints put back', async () => (await call(server.url, 'GET', paths.endpoints)).json.subsets[0].addresses[0].ip === '192.0.2.7', 2000, 20);
  });
});
