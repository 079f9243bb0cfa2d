// Validation rules (x-kubernetes-validations, CEL) on a served custom resource, over HTTP on an
// in-process server: a rule on an object, a transition rule (self == oldSelf) that only updates
// run, and a CRD whose rule does not compile, refused with the reference's words. Nothing refused
// is stored.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/server.js';
import { call, memoryServer, until } from '../helpers.js';

const GROUP = 'cel.example.com';
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const BASE = `/apis/${GROUP}/v1/namespaces/default/gizmos`;

const crd = (name: string, plural: string, kind: string, spec: Record<string, unknown>) => ({
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.${GROUP}` },
  spec: {
    group: GROUP, scope: 'Namespaced',
    names: { plural, singular: name, kind },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec } } } }],
  },
});

const GIZMOS = crd('gizmo', 'gizmos', 'Gizmo', {
  type: 'object',
  'x-kubernetes-validations': [{ rule: 'self.minReplicas <= self.replicas', message: 'replicas must be at least minReplicas' }],
  properties: {
    replicas: { type: 'integer' },
    minReplicas: { type: 'integer' },
    mode: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'mode is immutable' }] },
  },
});

const gizmo = (name: string, spec: Record<string, unknown>) => ({ apiVersion: `${GROUP}/v1`, kind: 'Gizmo', metadata: { name }, spec });

describe('validation rules (CEL) on custom resources', { timeout: 60_000 }, () => {
  let server: RunningServer;
  before(async () => {
    server = await memoryServer();
    const created = await call(server.url, 'POST', CRDS, { body: GIZMOS });
    assert.equal(created.status, 201, created.text);
    await until('gizmos served', async () => (await call(server.url, 'GET', BASE)).status === 200, 5_000);
  });
  after(() => server.close());

  it('refuses an object that breaks a rule, with the rule\'s message, and stores nothing', { timeout: 10_000 }, async () => {
    const r = await call(server.url, 'POST', BASE, { body: gizmo('low', { replicas: 1, minReplicas: 3, mode: 'a' }) });
    assert.equal(r.status, 422, r.text);
    assert.equal(r.json.message, 'Gizmo.cel.example.com "low" is invalid: spec: Invalid value: "object": replicas must be at least minReplicas');
    assert.equal((await call(server.url, 'GET', `${BASE}/low`)).status, 404);
    assert.equal((await call(server.url, 'POST', BASE, { body: gizmo('ok', { replicas: 3, minReplicas: 3, mode: 'a' }) })).status, 201);
  });

  it('runs a transition rule on updates only: an immutable field cannot change', { timeout: 10_000 }, async () => {
    const created = await call(server.url, 'POST', BASE, { body: gizmo('fixed', { replicas: 2, minReplicas: 1, mode: 'a' }) });
    assert.equal(created.status, 201, created.text);
    const changed = await call(server.url, 'PATCH', `${BASE}/fixed`, { body: { spec: { mode: 'b' } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(changed.status, 422, changed.text);
    assert.equal(changed.json.message, 'Gizmo.cel.example.com "fixed" is invalid: spec.mode: Invalid value: "string": mode is immutable');
    const stored = await call(server.url, 'GET', `${BASE}/fixed`);
    assert.equal(stored.json.spec.mode, 'a');
    assert.equal(stored.json.metadata.resourceVersion, created.json.metadata.resourceVersion);
    const scaled = await call(server.url, 'PATCH', `${BASE}/fixed`, { body: { spec: { replicas: 5 } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(scaled.status, 200, scaled.text);
  });

  it('refuses a CRD whose rule does not compile', { timeout: 10_000 }, async () => {
    const broken = crd('broken', 'brokens', 'Broken', {
      type: 'object',
      'x-kubernetes-validations': [{ rule: 'self.replicass > 0' }],
      properties: { replicas: { type: 'integer' } },
    });
    const r = await call(server.url, 'POST', CRDS, { body: broken });
    assert.equal(r.status, 422, r.text);
    assert.match(r.json.message, /^CustomResourceDefinition\.apiextensions\.k8s\.io "brokens\.cel\.example\.com" is invalid: spec\.validation\.openAPIV3Schema\.properties\[spec\]\.x-kubernetes-validations\[0\]\.rule: Invalid value: apiextensions\.ValidationRule\{Rule:"self\.replicass > 0", Message:""\}: compilation failed: ERROR: <input>:1:5: undefined field 'replicass'\n \| self\.replicass > 0\n \| \.\.\.\.\^$/);
    assert.equal((await call(server.url, 'GET', `${CRDS}/brokens.${GROUP}`)).status, 404);
  });
});
