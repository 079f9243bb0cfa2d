// Server-rendered Tables compared with the reference's (test/fixtures/reference/table) for kinds whose
// stored object needs no defaulting yet; plus includeObject and Table watches.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/server.js';
import { call, fixture, memoryServer, placeholders, withoutManagedFields } from '../helpers.js';

const TABLE = 'application/json;as=Table;g=meta.k8s.io;v=v1';
const AGE = /^(\d+[smhdy])+$/;

// table fixture → create fixture of the object it lists
const CASES: Record<string, string> = {
  'rbac.authorization.k8s.io-v1-clusterroles': 'rbac.authorization.k8s.io-v1-clusterroles',
  'rbac.authorization.k8s.io-v1-clusterrolebindings': 'rbac.authorization.k8s.io-v1-clusterrolebindings',
  'networking.k8s.io-v1-ingressclasses': 'networking.k8s.io-v1-ingressclasses',
  'node.k8s.io-v1-runtimeclasses': 'node.k8s.io-v1-runtimeclasses',
  'storage.k8s.io-v1-csinodes': 'storage.k8s.io-v1-csinodes',
};

/** Our cells with ages turned into the fixtures' <age>, where the fixture has one. */
function ageless(rows: Array<{ cells: unknown[] }>, expected: Array<{ cells: unknown[] }>): unknown[] {
  return rows.map((row, i) => ({
    ...row,
    cells: row.cells.map((c, j) => (expected[i]?.cells[j] === '<age>' && typeof c === 'string' && AGE.test(c) ? '<age>' : c)),
  }));
}

describe('Table', () => {
  let server: RunningServer;
  before(async () => {
    server = await memoryServer();
  });
  after(() => server.close());

  for (const [table, create] of Object.entries(CASES)) {
    it(`matches the reference: ${table}`, async () => {
      const c = fixture(`create/${create}`);
      assert.equal((await call(server.url, 'POST', c.request.path, { body: c.request.body })).status, 201);
      const t = fixture(`table/${table}`);
      const reply = await call(server.url, 'GET', t.request.path, { headers: { Accept: t.request.headers['Accept']! } });
      assert.equal(reply.status, 200);
      assert.equal(reply.headers['content-type'], t.response.headers['content-type']);
      const expected = t.response.body as { rows: Array<{ cells: unknown[]; object: unknown }> };
      const actual = placeholders(reply.json) as { rows: Array<{ cells: unknown[]; object: unknown }> };
      assert.deepEqual(actual.rows.map((r) => ageless([r], [expected.rows[0]!])[0]).map((r) => (r as { cells: unknown[] }).cells), expected.rows.map((r) => r.cells));
      assert.deepEqual({ ...actual, rows: [] }, { ...expected, rows: [] });
      assert.deepEqual(withoutManagedFields(actual.rows[0]!.object), withoutManagedFields(expected.rows[0]!.object));
    });
  }

  it('a DaemonSet\'s metadata as the reference\'s internal object has it: its template-generation annotation only in the full object', async () => {
    const body = { metadata: { name: 'agent', annotations: { team: 'a' } }, spec: { selector: { matchLabels: { app: 'agent' } }, template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'c', image: 'fluentd' }] } } } };
    assert.equal((await call(server.url, 'POST', '/apis/apps/v1/namespaces/default/daemonsets', { body })).status, 201);
    const full = await call(server.url, 'GET', '/apis/apps/v1/namespaces/default/daemonsets/agent');
    assert.deepEqual(full.json.metadata.annotations, { 'deprecated.daemonset.template.generation': '1', team: 'a' });
    const partial = await call(server.url, 'GET', '/apis/apps/v1/namespaces/default/daemonsets/agent', { headers: { Accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1' } });
    assert.deepEqual(partial.json.metadata.annotations, { team: 'a' });
    const table = await call(server.url, 'GET', '/apis/apps/v1/namespaces/default/daemonsets', { headers: { Accept: TABLE } });
    assert.deepEqual(table.json.rows[0].object.metadata.annotations, { team: 'a' });
  });

  it('an empty Table: rows null from the default columns, [] from a resource\'s own printer', async () => {
    await call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'empty-tables' } } });
    // LimitRanges print with the default columns (Name, Created At), as in the reference.
    const plain = await call(server.url, 'GET', '/api/v1/namespaces/empty-tables/limitranges', { headers: { Accept: TABLE } });
    assert.equal(plain.status, 200);
    assert.deepEqual(plain.json.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Created At']);
    assert.equal(plain.json.rows, null);
    assert.match(plain.text, /"rows":null\}$/);
    const printed = await call(server.url, 'GET', '/api/v1/namespaces/empty-tables/configmaps?fieldSelector=metadata.name%3Dnone', { headers: { Accept: TABLE } });
    assert.deepEqual(printed.json.rows, []);
    // One object: one row, whichever printer.
    await call(server.url, 'POST', '/api/v1/namespaces/empty-tables/limitranges', { body: { metadata: { name: 'lr' }, spec: { limits: [{ type: 'Container', max: { cpu: '1' } }] } } });
    const one = await call(server.url, 'GET', '/api/v1/namespaces/empty-tables/limitranges', { headers: { Accept: TABLE } });
    assert.equal(one.json.rows.length, 1);
    assert.equal(one.json.rows[0].cells[0], 'lr');
  });

  it('includeObject=None and Object, and a single object as a one-row Table', async () => {
    await call(server.url, 'POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 't' }, data: { a: '1', b: '2' } } });
    const none = await call(server.url, 'GET', '/api/v1/namespaces/default/configmaps?includeObject=None', { headers: { Accept: TABLE } });
    assert.equal(none.json.rows[0].object, null);
    assert.deepEqual(none.json.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Data', 'Age']);
    assert.equal(none.json.rows[0].cells[1], 2);
    const object = await call(server.url, 'GET', '/api/v1/namespaces/default/configmaps?includeObject=Object', { headers: { Accept: TABLE } });
    assert.equal(object.json.rows[0].object.kind, 'ConfigMap');
    const one = await call(server.url, 'GET', '/api/v1/namespaces/default/configmaps/t', { headers: { Accept: TABLE } });
    assert.equal(one.json.kind, 'Table');
    assert.equal(one.json.rows.length, 1);
    assert.equal(one.json.rows[0].object.kind, 'PartialObjectMetadata');
    const bad = await call(server.url, 'GET', '/api/v1/namespaces/default/configmaps?includeObject=All', { headers: { Accept: TABLE } });
    assert.equal(bad.status, 400);
  });

  it('watches as Table: each event carries a one-row Table', async () => {
    const reply = await call(server.url, 'GET', '/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1', { headers: { Accept: TABLE } });
    const event = JSON.parse(reply.text.trim().split('\n')[0]!);
    assert.equal(event.type, 'ADDED');
    assert.equal(event.object.kind, 'Table');
    assert.equal(event.object.rows.length, 1);
  });
});
