// Custom resources under their CRD's schema, over HTTP on an in-process server (and kubectl for
// explain): invalid values are refused with the reference's 422 and nothing is stored, unknown
// fields are pruned and reported by field validation as for built-ins, defaults are applied (on
// write, and on read to objects stored under an earlier schema),
// server-side apply merges list maps by key; and the rest of the server covers custom resources:
// garbage collection both ways, namespace deletion, RBAC.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/server.js';
import { call, firstWatchEvent, memoryServer, until } from '../helpers.js';
import { kubectl } from './harness.js';

const GROUP = 'schema.example.com';
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const NS = 'widgets-ns';
const BASE = `/apis/${GROUP}/v1/namespaces/${NS}/widgets`;
const APPLY = { 'Content-Type': 'application/apply-patch+yaml' };

const WIDGETS = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
  metadata: { name: `widgets.${GROUP}` },
  spec: {
    group: GROUP, scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
    versions: [{
      name: 'v1', served: true, storage: true,
      schema: {
        openAPIV3Schema: {
          type: 'object',
          properties: {
            spec: {
              type: 'object',
              description: 'What the widget should be.',
              required: ['size'],
              properties: {
                size: { type: 'integer', minimum: 1, maximum: 10, description: 'How big the widget is.' },
                color: { type: 'string', enum: ['red', 'blue'], default: 'red', description: 'The color of the widget.' },
                ports: {
                  type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'],
                  items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } },
                },
              },
            },
            status: { type: 'object', properties: { ready: { type: 'boolean' } } },
          },
        },
      },
    }],
  },
};

const widget = (name: string, spec: Record<string, unknown>, metadata: Record<string, unknown> = {}) => ({ apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name, ...metadata }, spec });

describe('custom resources under their schema', { timeout: 60_000 }, () => {
  let server: RunningServer;
  before(async () => {
    server = await memoryServer();
    assert.equal((await call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } })).status, 201);
    const created = await call(server.url, 'POST', CRDS, { body: WIDGETS });
    assert.equal(created.status, 201, created.text);
    await until('widgets served', async () => (await call(server.url, 'GET', BASE)).status === 200, 5_000);
  });
  after(() => server.close());

  it('refuses an invalid value with the reference\'s 422 and stores nothing', { timeout: 10_000 }, async () => {
    const r = await call(server.url, 'POST', BASE, { body: widget('bad', { size: 11, color: 'green' }) });
    assert.equal(r.status, 422, r.text);
    assert.equal(r.json.reason, 'Invalid');
    assert.equal(r.json.message, 'Widget.schema.example.com "bad" is invalid: [spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10, spec.color: Unsupported value: "green": supported values: "red", "blue"]');
    assert.deepEqual(r.json.details, {
      name: 'bad', group: GROUP, kind: 'Widget',
      causes: [
        { reason: 'FieldValueInvalid', message: 'Invalid value: 11: spec.size in body should be less than or equal to 10', field: 'spec.size' },
        { reason: 'FieldValueNotSupported', message: 'Unsupported value: "green": supported values: "red", "blue"', field: 'spec.color' },
      ],
    });
    const missing = await call(server.url, 'POST', BASE, { body: widget('bad', { color: 'red' }) });
    assert.equal(missing.status, 422, missing.text);
    assert.equal(missing.json.message, 'Widget.schema.example.com "bad" is invalid: spec.size: Required value');
    assert.equal((await call(server.url, 'GET', `${BASE}/bad`)).status, 404);
  });

  it('prunes unknown fields, reported by fieldValidation as for built-ins', { timeout: 10_000 }, async () => {
    const body = widget('pruned', { size: 1, extra: true }, { bogus: 1 });
    const warned = await call(server.url, 'POST', BASE, { body: { ...body, topLevel: 'x' } });
    assert.equal(warned.status, 201, warned.text);
    assert.equal(warned.headers['warning'], '299 - "unknown field \\"metadata.bogus\\"", 299 - "unknown field \\"spec.extra\\"", 299 - "unknown field \\"topLevel\\""');
    assert.equal(warned.json.spec.extra, undefined);
    assert.equal(warned.json.topLevel, undefined);
    const stored = await call(server.url, 'GET', `${BASE}/pruned`);
    assert.deepEqual(stored.json.spec, { size: 1, color: 'red' });

    const strict = await call(server.url, 'POST', `${BASE}?fieldValidation=Strict`, { body: widget('strict', { size: 1, extra: true }) });
    assert.equal(strict.status, 400, strict.text);
    assert.equal(strict.json.message, 'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.extra"');
    assert.equal((await call(server.url, 'GET', `${BASE}/strict`)).status, 404);

    const ignored = await call(server.url, 'POST', `${BASE}?fieldValidation=Ignore`, { body: widget('ignored', { size: 1, extra: true }) });
    assert.equal(ignored.status, 201, ignored.text);
    assert.equal(ignored.headers['warning'], undefined);
    assert.equal(ignored.json.spec.extra, undefined);

    const patched = await call(server.url, 'PATCH', `${BASE}/pruned?fieldValidation=Strict`, { body: { spec: { more: 1 } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(patched.status, 422, patched.text);
    assert.match(patched.json.message, /strict decoding error: unknown field "spec\.more"$/);
    const warnedPatch = await call(server.url, 'PATCH', `${BASE}/pruned`, { body: { spec: { more: 1 } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(warnedPatch.status, 200, warnedPatch.text);
    assert.equal(warnedPatch.headers['warning'], '299 - "unknown field \\"spec.more\\""');
    assert.equal(warnedPatch.json.spec.more, undefined);
  });

  it('applies the schema\'s defaults', { timeout: 10_000 }, async () => {
    const r = await call(server.url, 'POST', BASE, { body: widget('defaulted', { size: 2 }) });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.spec.color, 'red');
    // A null the schema does not allow is defaulted too.
    const n = await call(server.url, 'POST', BASE, { body: widget('null-color', { size: 2, color: null }) });
    assert.equal(n.status, 201, n.text);
    assert.equal(n.json.spec.color, 'red');
  });

  it('reads a stored object under its CRD\'s current schema: a default added since applies, a field dropped since is gone', { timeout: 15_000 }, async () => {
    const group = 'reads.example.com';
    const base = `/apis/${group}/v1/namespaces/${NS}/gadgets`;
    const gadgets = (spec: Record<string, unknown>) => ({
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `gadgets.${group}` },
      spec: {
        group, scope: 'Namespaced', names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: spec } } } } }],
      },
    });
    assert.equal((await call(server.url, 'POST', CRDS, { body: gadgets({ size: { type: 'integer' }, legacy: { type: 'string' } }) })).status, 201);
    await until('gadgets served', async () => (await call(server.url, 'GET', base)).status === 200, 5_000);
    const old = await call(server.url, 'POST', base, { body: { apiVersion: `${group}/v1`, kind: 'Gadget', metadata: { name: 'old' }, spec: { size: 1, legacy: 'x' } } });
    assert.equal(old.status, 201, old.text);
    assert.deepEqual(old.json.spec, { size: 1, legacy: 'x' });

    // The schema changes: `color` gets a default, `legacy` is no longer declared.
    const crd = await call(server.url, 'GET', `${CRDS}/gadgets.${group}`);
    const changed = gadgets({ size: { type: 'integer' }, color: { type: 'string', default: 'red' } });
    (changed.metadata as Record<string, unknown>)['resourceVersion'] = crd.json.metadata.resourceVersion;
    assert.equal((await call(server.url, 'PUT', `${CRDS}/gadgets.${group}`, { body: changed })).status, 200);
    const expected = { size: 1, color: 'red' };
    const read = await until('the new schema served', async () => {
      const r = await call(server.url, 'GET', `${base}/old`);
      return r.json?.spec?.color === 'red' ? r : undefined;
    }, 5_000);
    assert.deepEqual(read.json.spec, expected);
    assert.equal(read.json.metadata.resourceVersion, old.json.metadata.resourceVersion, 'reading writes nothing');
    const list = await call(server.url, 'GET', base);
    assert.deepEqual((list.json.items as Array<{ spec: unknown }>).map((i) => i.spec), [expected]);
    const yaml = await call(server.url, 'GET', `${base}/old`, { headers: { Accept: 'application/yaml' } });
    assert.match(yaml.text, /color: red/);
    assert.doesNotMatch(yaml.text, /legacy: x/);
    const table = await call(server.url, 'GET', `${base}?includeObject=Object`, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    assert.deepEqual(table.json.rows[0].object.spec, expected);

    // A watch from the start sends it so too.
    const event = await firstWatchEvent<{ type: string; object: { spec: unknown } }>(server.url, `${base}?watch=true`);
    assert.deepEqual([event.type, event.object.spec], ['ADDED', expected]);

    // An object written under the new schema reads back as written.
    const fresh = await call(server.url, 'POST', base, { body: { apiVersion: `${group}/v1`, kind: 'Gadget', metadata: { name: 'new' }, spec: { size: 2 } } });
    assert.equal(fresh.status, 201, fresh.text);
    assert.deepEqual((await call(server.url, 'GET', `${base}/new`)).json, fresh.json);
    assert.equal((await call(server.url, 'DELETE', `${CRDS}/gadgets.${group}`)).status, 200);
  });

  it('merges a list map by its keys on server-side apply', { timeout: 10_000 }, async () => {
    const first = await call(server.url, 'PATCH', `${BASE}/applied?fieldManager=one`, { body: widget('applied', { size: 3, ports: [{ name: 'http', port: 80 }] }), headers: APPLY });
    assert.equal(first.status, 201, first.text);
    const second = await call(server.url, 'PATCH', `${BASE}/applied?fieldManager=two`, { body: widget('applied', { ports: [{ name: 'https', port: 443 }] }), headers: APPLY });
    assert.equal(second.status, 200, second.text);
    assert.deepEqual(second.json.spec.ports, [{ name: 'http', port: 80 }, { name: 'https', port: 443 }]);
    const managers = (second.json.metadata.managedFields as Array<{ manager: string; fieldsV1: Record<string, unknown> }>);
    const two = managers.find((m) => m.manager === 'two')!;
    assert.deepEqual(Object.keys((two.fieldsV1['f:spec'] as Record<string, Record<string, unknown>>)['f:ports']!), ['k:{"name":"https"}']);
  });

  it('explains the kind\'s fields with kubectl', { timeout: 30_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'capstan-explain-'));
    try {
      const kubeconfig = join(dir, 'kubeconfig');
      writeFileSync(kubeconfig, `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "${server.url}"}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\nusers: [{name: u, user: {}}]\n`);
      const r = await kubectl(kubeconfig, ['explain', 'widget.spec', '--cache-dir', join(dir, 'cache')]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /KIND:\s+Widget/);
      assert.match(r.stdout, /What the widget should be\./);
      assert.match(r.stdout, /size\s+<integer> -required-\n\s+How big the widget is\./);
      assert.match(r.stdout, /color\s+<string>\n\s+enum: red, blue\n\s+The color of the widget\./);
      assert.match(r.stdout, /ports\s+<\[\]Object>/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('collects garbage both ways: a widget owned by a ConfigMap, a ConfigMap owned by a widget', { timeout: 20_000 }, async () => {
    const owner = await call(server.url, 'POST', `/api/v1/namespaces/${NS}/configmaps`, { body: { metadata: { name: 'owner' } } });
    assert.equal(owner.status, 201);
    const ownedWidget = await call(server.url, 'POST', BASE, { body: widget('owned', { size: 1 }, { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.json.metadata.uid }] }) });
    assert.equal(ownedWidget.status, 201, ownedWidget.text);
    const ownerWidget = await call(server.url, 'POST', BASE, { body: widget('owner', { size: 1 }) });
    assert.equal(ownerWidget.status, 201, ownerWidget.text);
    const ownedMap = await call(server.url, 'POST', `/api/v1/namespaces/${NS}/configmaps`, { body: { metadata: { name: 'owned', ownerReferences: [{ apiVersion: `${GROUP}/v1`, kind: 'Widget', name: 'owner', uid: ownerWidget.json.metadata.uid }] } } });
    assert.equal(ownedMap.status, 201, ownedMap.text);

    assert.equal((await call(server.url, 'DELETE', `/api/v1/namespaces/${NS}/configmaps/owner`)).status, 200);
    await until('the owned widget is collected', async () => (await call(server.url, 'GET', `${BASE}/owned`)).status === 404, 10_000);
    assert.equal((await call(server.url, 'DELETE', `${BASE}/owner`)).status, 200);
    await until('the owned ConfigMap is collected', async () => (await call(server.url, 'GET', `/api/v1/namespaces/${NS}/configmaps/owned`)).status === 404, 10_000);
  });

  it('gives a user with a Role on widgets access to them, and one without a 403', { timeout: 10_000 }, async () => {
    const rbac = '/apis/rbac.authorization.k8s.io/v1';
    assert.equal((await call(server.url, 'POST', `${rbac}/namespaces/${NS}/roles`, { body: { metadata: { name: 'widget-reader' }, rules: [{ apiGroups: [GROUP], resources: ['widgets'], verbs: ['get', 'list'] }] } })).status, 201);
    assert.equal((await call(server.url, 'POST', `${rbac}/namespaces/${NS}/rolebindings`, { body: { metadata: { name: 'erin-reads' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'widget-reader' }, subjects: [{ kind: 'User', name: 'erin', apiGroup: 'rbac.authorization.k8s.io' }] } })).status, 201);
    const allowed = await until('the binding is in force', async () => {
      const r = await call(server.url, 'GET', `${BASE}/defaulted`, { headers: { 'Impersonate-User': 'erin' } });
      return r.status === 200 ? r : undefined;
    }, 5_000);
    assert.equal(allowed.json.metadata.name, 'defaulted');
    const denied = await call(server.url, 'GET', `${BASE}/defaulted`, { headers: { 'Impersonate-User': 'frank' } });
    assert.equal(denied.status, 403, denied.text);
    assert.equal(denied.json.message, `widgets.${GROUP} "defaulted" is forbidden: User "frank" cannot get resource "widgets" in API group "${GROUP}" in the namespace "${NS}"`);
    const write = await call(server.url, 'DELETE', `${BASE}/defaulted`, { headers: { 'Impersonate-User': 'erin' } });
    assert.equal(write.status, 403, write.text);
  });

  it('removes a namespace\'s widgets when the namespace is deleted', { timeout: 20_000 }, async () => {
    const list = await call(server.url, 'GET', BASE);
    assert.ok((list.json.items as unknown[]).length > 0);
    assert.equal((await call(server.url, 'DELETE', `/api/v1/namespaces/${NS}`)).status, 200);
    await until('the namespace is gone', async () => (await call(server.url, 'GET', `/api/v1/namespaces/${NS}`)).status === 404, 15_000);
    const after = await call(server.url, 'GET', `/apis/${GROUP}/v1/widgets`);
    assert.equal(after.status, 200, after.text);
    assert.deepEqual(after.json.items, []);
  });
});
