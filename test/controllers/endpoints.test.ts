// The endpoints controller: a Service's Endpoints follow the pods it selects, as the reference's
// (subsets, readiness, named ports, headless label, trigger-time annotation, removal with the Service).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/server.js';
import { call, fixture, memoryServer, mustOk, placeholders, until } from '../helpers.js';
import { podBody, setPodStatus } from './endpoint-helpers.js';

describe('endpoints controller', () => {
  let server: RunningServer;
  const ns = 'ep';
  const base = `/api/v1/namespaces/${ns}`;
  const endpoints = async (name: string) => (await call(server.url, 'GET', `${base}/endpoints/${name}`)).json;
  before(async () => {
    server = await memoryServer();
    await mustOk(call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } }), 201);
  });
  after(() => server.close());

  it('a Service selecting no pod gets an Endpoints without subsets, written as the reference writes it', async () => {
    const svc = await mustOk(call(server.url, 'POST', `${base}/services`, { body: { metadata: { name: 'web' }, spec: { selector: { app: 'nginx' }, ports: [{ port: 80, targetPort: 8080 }] } } }), 201);
    const ep = await until('endpoints web', async () => {
      const r = await call(server.url, 'GET', `${base}/endpoints/web`);
      return r.status === 200 && r.json;
    });
    assert.equal(ep.subsets, undefined);
    assert.equal(ep.metadata.labels, undefined);
    assert.deepEqual(ep.metadata.annotations, { 'endpoints.kubernetes.io/last-change-trigger-time': svc.json.metadata.creationTimestamp });
    assert.equal(ep.metadata.managedFields[0].manager, 'kube-controller-manager');
    const table = await mustOk(call(server.url, 'GET', `${base}/endpoints`, { headers: { Accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' } }));
    assert.deepEqual(table.json.rows.map((r: { cells: string[] }) => r.cells.slice(0, 2)), [['web', '<none>']]);
  });

  it('pods with an IP are listed, not ready then ready, with node, reference and resolved port', async () => {
    for (const name of ['a', 'b']) await mustOk(call(server.url, 'POST', `${base}/pods`, { body: podBody(name, { app: 'nginx' }) }), 201);
    await mustOk(call(server.url, 'POST', `${base}/pods`, { body: podBody('other', { app: 'other' }) }), 201);
    await setPodStatus(server.url, ns, 'a', '10.1.0.2', false);
    await setPodStatus(server.url, ns, 'other', '10.1.0.9', true);
    const first = await until('a not ready', async () => ((await endpoints('web')).subsets ? await endpoints('web') : false));
    const podA = (await mustOk(call(server.url, 'GET', `${base}/pods/a`))).json;
    assert.deepEqual(first.subsets, [{
      notReadyAddresses: [{ ip: '10.1.0.2', nodeName: 'node-1', targetRef: { kind: 'Pod', namespace: ns, name: 'a', uid: podA.metadata.uid } }],
      ports: [{ port: 8080, protocol: 'TCP' }],
    }]);
    await setPodStatus(server.url, ns, 'a', '10.1.0.2', true);
    await setPodStatus(server.url, ns, 'b', '10.1.0.1', true);
    const ready = await until('both ready', async () => {
      const ep = await endpoints('web');
      return ep.subsets?.[0]?.addresses?.length === 2 && ep;
    });
    assert.deepEqual(ready.subsets[0].addresses.map((a: { ip: string }) => a.ip), ['10.1.0.1', '10.1.0.2']);
    assert.equal(ready.subsets[0].notReadyAddresses, undefined);
    await mustOk(call(server.url, 'DELETE', `${base}/pods/b?gracePeriodSeconds=0`));
    await until('b gone', async () => (await endpoints('web')).subsets?.[0]?.addresses?.length === 1);
  });

  it('a headless Service is labelled; publishNotReadyAddresses lists pods not ready as ready', async () => {
    await mustOk(call(server.url, 'POST', `${base}/services`, {
      body: { metadata: { name: 'hl', labels: { tier: 'db' } }, spec: { clusterIP: 'None', publishNotReadyAddresses: true, selector: { app: 'db' }, ports: [{ name: 'sql', port: 5432 }] } },
    }), 201);
    await mustOk(call(server.url, 'POST', `${base}/pods`, { body: podBody('db-0', { app: 'db' }, [{ containerPort: 5432 }]) }), 201);
    await setPodStatus(server.url, ns, 'db-0', '10.1.1.1', false);
    const ep = await until('hl endpoints', async () => ((await endpoints('hl')).subsets ? await endpoints('hl') : false));
    assert.deepEqual(ep.metadata.labels, { tier: 'db', 'service.kubernetes.io/headless': '' });
    assert.deepEqual(ep.subsets[0].addresses.map((a: { ip: string }) => a.ip), ['10.1.1.1']);
    assert.deepEqual(ep.subsets[0].ports, [{ name: 'sql', port: 5432, protocol: 'TCP' }]);
  });

  it('a named targetPort is the pod\'s port of that name; pods without it (or a name nobody has) give no address', async () => {
    await mustOk(call(server.url, 'POST', `${base}/services`, { body: { metadata: { name: 'named' }, spec: { selector: { app: 'n' }, ports: [{ port: 80, targetPort: 'http' }] } } }), 201);
    await mustOk(call(server.url, 'POST', `${base}/services`, { body: { metadata: { name: 'nobody' }, spec: { selector: { app: 'n' }, ports: [{ port: 80, targetPort: 'missing' }] } } }), 201);
    await mustOk(call(server.url, 'POST', `${base}/pods`, { body: podBody('n1', { app: 'n' }, [{ name: 'http', containerPort: 9376 }]) }), 201);
    await mustOk(call(server.url, 'POST', `${base}/pods`, { body: podBody('n2', { app: 'n' }, [{ containerPort: 80 }]) }), 201);
    await setPodStatus(server.url, ns, 'n1', '10.1.2.1', true);
    await setPodStatus(server.url, ns, 'n2', '10.1.2.2', true);
    const ep = await until('named endpoints', async () => ((await endpoints('named')).subsets ? await endpoints('named') : false));
    assert.deepEqual(ep.subsets, [{
      addresses: [{ ip: '10.1.2.1', nodeName: 'node-1', targetRef: { kind: 'Pod', namespace: ns, name: 'n1', uid: ep.subsets[0].addresses[0].targetRef.uid } }],
      ports: [{ port: 9376, protocol: 'TCP' }],
    }]);
    const nobody = await endpoints('nobody');
    assert.equal(nobody.kind, 'Endpoints');
    assert.equal(nobody.subsets, undefined);
  });

  it('the Endpoints goes with its Service; a Service without selector keeps its user\'s Endpoints', async () => {
    await mustOk(call(server.url, 'DELETE', `${base}/services/named`));
    await until('named endpoints removed', async () => (await call(server.url, 'GET', `${base}/endpoints/named`)).status === 404);
    await mustOk(call(server.url, 'POST', `${base}/services`, { body: { metadata: { name: 'ext' }, spec: { ports: [{ port: 5432 }] } } }), 201);
    await mustOk(call(server.url, 'POST', `${base}/endpoints`, { body: { metadata: { name: 'ext' }, subsets: [{ addresses: [{ ip: '192.0.2.10' }], ports: [{ port: 5432 }] }] } }), 201);
    await new Promise((r) => setTimeout(r, 200));
    const ep = await endpoints('ext');
    assert.deepEqual(ep.subsets, [{ addresses: [{ ip: '192.0.2.10' }], ports: [{ port: 5432, protocol: 'TCP' }] }]);
    assert.equal(ep.metadata.managedFields.length, 1);
    // An empty selector is no selector (the reference reads it back from storage as nil).
    await mustOk(call(server.url, 'POST', `${base}/services`, { body: { metadata: { name: 'empty-sel' }, spec: { selector: {}, ports: [{ port: 80 }] } } }), 201);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal((await call(server.url, 'GET', `${base}/endpoints/empty-sel`)).status, 404);
  });

  it('more than 1000 addresses are cut to 1000 with the over-capacity annotation', { timeout: 60_000 }, async () => {
    await mustOk(call(server.url, 'POST', `${base}/services`, { body: { metadata: { name: 'big' }, spec: { selector: { app: 'big' }, publishNotReadyAddresses: true, ports: [{ port: 80 }] } } }), 201);
    const writes: Array<Promise<unknown>> = [];
    for (let i = 0; i < 1005; i++) {
      writes.push((async () => {
        await mustOk(call(server.url, 'POST', `${base}/pods`, { body: podBody(`big-${i}`, { app: 'big' }, [{ containerPort: 80 }]) }), 201);
        await setPodStatus(server.url, ns, `big-${i}`, `10.2.${i >> 8}.${i & 255}`, false);
      })());
      if (writes.length >= 20) await Promise.all(writes.splice(0));
    }
    await Promise.all(writes);
    const ep = await until('big truncated', async () => {
      const e = await endpoints('big');
      return e.metadata.annotations?.['endpoints.kubernetes.io/over-capacity'] === 'truncated' && e;
    }, 30_000);
    assert.equal(ep.subsets[0].addresses.length, 1000);
  });
});

describe('endpoint controllers against the recorded tables', () => {
  let server: RunningServer;
  before(async () => {
    server = await memoryServer();
  });
  after(() => server.close());

  /** The Table rows of ours as the fixture writes them: placeholders for uids, times, versions, ages and generated suffixes. */
  const normalized = (rows: Array<{ cells: unknown[]; object: { metadata: Record<string, unknown> } }>) => rows.map((row) => {
    const meta = row.object.metadata;
    const cells = [...row.cells];
    cells[cells.length - 1] = '<age>';
    let text = JSON.stringify({ cells, object: row.object });
    if (typeof meta['generateName'] === 'string') text = text.split(String(meta['name'])).join(`${meta['generateName']}<suffix>`);
    text = text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uid>');
    return placeholders(JSON.parse(text));
  });

  it('the Endpoints and EndpointSlices of the recorded Services are those of the reference', async () => {
    await mustOk(call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'ref-create' } } }), 201);
    for (const name of ['core-v1-services-clusterip', 'core-v1-services-headless', 'core-v1-services-nodeport', 'core-v1-services-externalname', 'core-v1-endpoints', 'discovery.k8s.io-v1-endpointslices', 'core-v1-pods']) {
      const f = fixture(`create/${name}`);
      await mustOk(call(server.url, 'POST', f.request.path, { body: f.request.body, headers: f.request.headers }), 201);
    }
    for (const name of ['core-v1-endpoints', 'discovery.k8s.io-v1-endpointslices']) {
      const f = fixture(`table/${name}`);
      const want = (f.response.body as { rows: unknown[] }).rows;
      const path = f.request.path;
      const table = await until(`${path} as recorded`, async () => {
        const r = await mustOk(call(server.url, 'GET', path, { headers: f.request.headers }));
        return r.json.rows.length === want.length && r.json;
      });
      // Generated names sort by their random suffix: rows are compared in name order without it.
      const byName = (rows: unknown[]) => [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
      assert.deepEqual(byName(normalized(table.rows)), byName(want), path);
    }
  });
});
