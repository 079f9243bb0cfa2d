// Answers the reference gives without managedFields: a SelfSubjectRulesReview (its answer is built
// anew) and a CertificateSigningRequest (spec and status are reset on the main resource, so its
// creator owns nothing, and an object nobody owns anything of stays untracked).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/server.js';
import { call, fixture, memoryServer, placeholders } from '../helpers.js';

const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';

describe('answers without managedFields', { timeout: 30_000 }, () => {
  let server: RunningServer;
  before(async () => {
    server = await memoryServer();
    await call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'ref-create' } } });
  });
  after(() => server.close());

  it('a SelfSubjectRulesReview answers with a new object: empty spec, no managedFields', async () => {
    const f = fixture('create/authorization.k8s.io-v1-selfsubjectrulesreviews');
    const reply = await call(server.url, 'POST', f.request.path, { body: f.request.body });
    assert.equal(reply.status, 201);
    const expected = f.response.body as { status: unknown };
    assert.deepEqual({ ...reply.json, status: undefined }, { ...expected, status: undefined });
    assert.equal(reply.json.metadata.managedFields, undefined);
    assert.equal(typeof reply.json.status.incomplete, 'boolean');
  });

  it('a SelfSubjectRulesReview without a namespace: 400 "no namespace on request"', async () => {
    for (const body of [{ spec: {} }, {}]) {
      const reply = await call(server.url, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', ...body } });
      assert.equal(reply.status, 400);
      assert.deepEqual(reply.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'no namespace on request', reason: 'BadRequest', code: 400 });
    }
  });

  it('a CertificateSigningRequest gets none on create, on a label, on approval, nor from an apply of spec', async () => {
    const f = fixture('create/certificates.k8s.io-v1-certificatesigningrequests');
    const created = await call(server.url, 'POST', f.request.path, { body: f.request.body });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.metadata.managedFields, undefined);
    assert.deepEqual(Object.keys((placeholders(created.json) as { metadata: object }).metadata), Object.keys((f.response.body as { metadata: object }).metadata));
    const name = created.json.metadata.name as string;
    const merge = { 'Content-Type': 'application/merge-patch+json' };
    const labeled = await call(server.url, 'PATCH', `${CSRS}/${name}`, { headers: merge, body: { metadata: { labels: { team: 'a' } } } });
    assert.equal(labeled.status, 200);
    assert.equal(labeled.json.metadata.labels.team, 'a');
    assert.equal(labeled.json.metadata.managedFields, undefined);
    const approved = await call(server.url, 'PUT', `${CSRS}/${name}/approval`, {
      body: { ...labeled.json, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Test', message: 'approved by the test' }] } },
    });
    assert.equal(approved.status, 200, approved.text);
    assert.equal(approved.json.metadata.managedFields, undefined);
    const apply = { 'Content-Type': 'application/apply-patch+yaml' };
    const spec = (f.request.body as { spec: unknown }).spec;
    const applied = await call(server.url, 'PATCH', `${CSRS}/${name}?fieldManager=applier`, {
      headers: apply, body: JSON.stringify({ apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name }, spec }),
    });
    assert.equal(applied.status, 200, applied.text);
    assert.equal(applied.json.metadata.managedFields, undefined);
    // What is not reset is owned: an applied label.
    const labels = await call(server.url, 'PATCH', `${CSRS}/${name}?fieldManager=applier`, {
      headers: apply, body: JSON.stringify({ apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name, labels: { team: 'a' } }, spec }),
    });
    assert.deepEqual(labels.json.metadata.managedFields.map((e: { manager: string; operation: string; fieldsV1: unknown }) => [e.manager, e.operation, e.fieldsV1]),
      [['applier', 'Apply', { 'f:metadata': { 'f:labels': { 'f:team': {} } } }]]);
  });
});
