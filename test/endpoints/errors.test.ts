// Raw HTTP requests that must fail as the reference fails (test/fixtures/reference/errors), and leave
// stored data untouched.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/server.js';
import { call, fixture, memoryServer, placeholders, withoutManagedFields, type Fixture, type Reply } from '../helpers.js';

const NS = '/api/v1/namespaces/ref-errors';

async function replay(server: RunningServer, f: Fixture, body: unknown = f.request.body): Promise<Reply> {
  const headers = { ...f.request.headers };
  return call(server.url, f.request.method, f.request.path, { body: body === null ? undefined : body, headers });
}


describe('errors as the reference answers them', () => {
  let server: RunningServer;
  let existingRv: string;
  before(async () => {
    server = await memoryServer();
    assert.equal((await call(server.url, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ref-errors' } } })).status, 201);
    const created = await call(server.url, 'POST', `${NS}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'existing' }, data: { key: 'value' } } });
    assert.equal(created.status, 201);
    existingRv = created.json.metadata.resourceVersion;
  });
  after(() => server.close());

  const exact = [
    'create-malformed-json', 'create-namespace-mismatch', 'create-wrong-kind', 'create-wrong-apiversion',
    'get-missing-pod', 'get-missing-namespace-object', 'delete-missing-configmap', 'patch-missing-object-merge',
    'update-missing-object', 'unknown-resource', 'put-on-collection', 'post-on-object-path',
    'unsupported-accept', 'unsupported-accept-table-version', 'create-existing-configmap',
    'create-unsupported-content-type', 'patch-json-content-type', 'patch-unknown-content-type',
    'create-invalid-name-uppercase', 'field-validation-invalid-value', 'patch-invalid-json-patch',
    'apply-without-field-manager', 'delete-uid-precondition-mismatch',
  ];
  for (const name of exact) {
    it(`${name}: same status, content type and Status body; nothing changes`, async () => {
      const f = fixture(`errors/${name}`);
      const before = await call(server.url, 'GET', `${NS}/configmaps`);
      const reply = await replay(server, f);
      assert.equal(reply.status, f.response.status, `${reply.status} ${reply.text}`);
      assert.equal(reply.headers['content-type'], f.response.headers['content-type']);
      assert.deepEqual(placeholders(reply.json), f.response.body);
      const afterList = await call(server.url, 'GET', `${NS}/configmaps`);
      assert.deepEqual(afterList.json.items, before.json.items);
    });
  }

  it('update-name-mismatch: 400 naming both names', async () => {
    const f = fixture('errors/update-name-mismatch');
    const body = structuredClone(f.request.body) as { metadata: { resourceVersion: string } };
    body.metadata.resourceVersion = existingRv;
    const reply = await replay(server, f, body);
    assert.equal(reply.status, 400);
    assert.deepEqual(reply.json, f.response.body);
  });

  it('update-stale-resourceversion: 409 Conflict and the newer write stays', async () => {
    const f = fixture('errors/update-stale-resourceversion');
    const created = await call(server.url, 'POST', `${NS}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'stale' }, data: { key: 'v1' } } });
    const oldRv = created.json.metadata.resourceVersion;
    const updated = await call(server.url, 'PUT', `${NS}/configmaps/stale`, { body: { ...created.json, data: { key: 'v2' } } });
    assert.equal(updated.status, 200);
    assert.notEqual(updated.json.metadata.resourceVersion, oldRv);
    const body = structuredClone(f.request.body) as { metadata: Record<string, unknown> };
    body.metadata['resourceVersion'] = oldRv;
    body.metadata['uid'] = created.json.metadata.uid;
    body.metadata['creationTimestamp'] = created.json.metadata.creationTimestamp;
    // The fixture's "<time>" placeholder is no time: it would be refused when decoded.
    body.metadata['managedFields'] = created.json.metadata.managedFields;
    const reply = await replay(server, f, body);
    assert.equal(reply.status, 409);
    assert.deepEqual(reply.json, f.response.body);
    const now = await call(server.url, 'GET', `${NS}/configmaps/stale`);
    assert.equal(now.json.data.key, 'v2');
  });

  it('delete-resourceversion-precondition-mismatch: 409 naming both versions', async () => {
    const f = fixture('errors/delete-resourceversion-precondition-mismatch');
    const stale = String(Number(existingRv) - 1);
    const reply = await replay(server, f, { ...(f.request.body as object), preconditions: { resourceVersion: stale } });
    assert.equal(reply.status, 409);
    const expected = f.response.body as { message: string };
    assert.equal(reply.json.message, expected.message.replace(/\(\d+\) does not match the ResourceVersion in record \(\d+\)/, `(${stale}) does not match the ResourceVersion in record (${existingRv})`));
    assert.deepEqual({ ...reply.json, message: '' }, { ...expected, message: '' });
    assert.equal((await call(server.url, 'GET', `${NS}/configmaps/existing`)).status, 200);
  });

  it('update-uid-mismatch: 409 Conflict with the reference storage\'s precondition error; nothing changes', async () => {
    const other = '11111111-2222-3333-4444-555555555555';
    const current = (await call(server.url, 'GET', `${NS}/configmaps/existing`)).json;
    const conflictOf = (resource: string, name: string, key: string, stored: string, group?: string) => ({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: `Operation cannot be fulfilled on ${group ? `${resource}.${group}` : resource} "${name}": StorageError: invalid object, Code: 4, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ${other}, UID in object meta: ${stored}`,
      reason: 'Conflict', details: { name, ...(group ? { group } : {}), kind: resource }, code: 409,
    });
    const put = (path: string, body: unknown) => call(server.url, 'PUT', path, { body });
    const changed = { ...current, metadata: { ...current.metadata, uid: other }, data: { key: 'changed' } };
    const reply = await put(`${NS}/configmaps/existing`, changed);
    assert.equal(reply.status, 409);
    assert.deepEqual(reply.json, conflictOf('configmaps', 'existing', '/registry/configmaps/ref-errors/existing', current.metadata.uid));
    // A dry run checks before storage: the key without the etcd prefix.
    const dry = await put(`${NS}/configmaps/existing?dryRun=All`, changed);
    assert.deepEqual(dry.json, conflictOf('configmaps', 'existing', '/configmaps/ref-errors/existing', current.metadata.uid));
    assert.equal((await call(server.url, 'GET', `${NS}/configmaps/existing`)).json.data.key, 'value');
    // A missing object has the empty uid, even where PUT would create it.
    const missing = await put(`${NS}/services/no-such`, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'no-such', uid: other }, spec: { ports: [{ port: 80 }] } });
    assert.deepEqual(missing.json, conflictOf('services', 'no-such', '/registry/services/specs/ref-errors/no-such', ''));
    assert.equal((await call(server.url, 'GET', `${NS}/services/no-such`)).status, 404);
    // A group's resource; its status and scale subresources check the same way.
    const deployment = {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'uid-checked' },
      spec: { replicas: 1, selector: { matchLabels: { app: 'u' } }, template: { metadata: { labels: { app: 'u' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    };
    const made = (await call(server.url, 'POST', '/apis/apps/v1/namespaces/ref-errors/deployments', { body: deployment })).json;
    const key = '/registry/deployments/ref-errors/uid-checked';
    const base = '/apis/apps/v1/namespaces/ref-errors/deployments/uid-checked';
    const wrong = { ...made, metadata: { ...made.metadata, uid: other } };
    assert.deepEqual((await put(base, wrong)).json, conflictOf('deployments', 'uid-checked', key, made.metadata.uid, 'apps'));
    assert.deepEqual((await put(`${base}/status`, wrong)).json, conflictOf('deployments', 'uid-checked', key, made.metadata.uid, 'apps'));
    const scale = (await call(server.url, 'GET', `${base}/scale`)).json;
    const scaled = await put(`${base}/scale`, { ...scale, metadata: { ...scale.metadata, uid: other }, spec: { replicas: 3 } });
    assert.deepEqual(scaled.json, conflictOf('deployments', 'uid-checked', key, made.metadata.uid, 'apps'));
    // The right uid is no obstacle.
    assert.equal((await put(`${base}/scale`, { ...scale, spec: { replicas: 2 } })).status, 200);
  });

  it('force on a patch that is not an apply: 422 naming PatchOptions; nothing changes', async () => {
    for (const type of ['application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/json-patch+json']) {
      const body = type === 'application/json-patch+json' ? [{ op: 'replace', path: '/data/key', value: 'forced' }] : { data: { key: 'forced' } };
      const reply = await call(server.url, 'PATCH', `${NS}/configmaps/existing?force=true`, { headers: { 'Content-Type': type }, body });
      assert.equal(reply.status, 422, type);
      assert.deepEqual(reply.json, {
        kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
        message: 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
        reason: 'Invalid',
        details: { group: 'meta.k8s.io', kind: 'PatchOptions', causes: [{ reason: 'FieldValueForbidden', message: 'Forbidden: may not be specified for non-apply patch', field: 'force' }] },
        code: 422,
      });
    }
    assert.equal((await call(server.url, 'GET', `${NS}/configmaps/existing`)).json.data.key, 'value');
  });

  it('create-body-over-3mib: 413 and nothing stored', async () => {
    const f = fixture('errors/create-body-over-3mib');
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'huge' }, data: { big: 'x'.repeat(3 * 1024 * 1024) } });
    const reply = await call(server.url, 'POST', f.request.path, { body });
    assert.equal(reply.status, 413);
    assert.deepEqual(reply.json, f.response.body);
    assert.equal((await call(server.url, 'GET', `${NS}/configmaps/huge`)).status, 404);
  });

  it('patch-json-patch-missing-path: a replace of a missing key adds it', async () => {
    const f = fixture('errors/patch-json-patch-missing-path');
    const reply = await replay(server, f);
    assert.equal(reply.status, 200);
    assert.deepEqual(withoutManagedFields(placeholders(reply.json)), withoutManagedFields(f.response.body));
  });

  it('an integer query parameter that is no integer: 400 BadRequest with strconv\'s message; nothing changes', async () => {
    const badRequest = (message: string) => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'BadRequest', code: 400 });
    const cases: Array<[string, string, string]> = [
      ['GET', `${NS}/configmaps?limit=abc`, 'strconv.ParseInt: parsing "abc": invalid syntax'],
      ['GET', `${NS}/configmaps?limit=`, 'strconv.ParseInt: parsing "": invalid syntax'],
      ['GET', `${NS}/configmaps?watch=true&timeoutSeconds=1s`, 'strconv.ParseInt: parsing "1s": invalid syntax'],
      ['GET', `/api/v1/configmaps?timeoutSeconds=x&limit=y`, 'strconv.ParseInt: parsing "x": invalid syntax'],
      ['DELETE', `${NS}/configmaps/existing?gracePeriodSeconds=soon`, 'strconv.ParseInt: parsing "soon": invalid syntax'],
      ['DELETE', `${NS}/configmaps?limit=99999999999999999999`, 'strconv.ParseInt: parsing "99999999999999999999": value out of range'],
      ['GET', `${NS}/pods/no-such-pod/log?tailLines=ten`, 'strconv.ParseInt: parsing "ten": invalid syntax'],
      ['GET', `${NS}/pods/no-such-pod/portforward?ports=http`, 'cannot convert to []int32: strconv.ParseUint: parsing "http": invalid syntax'],
    ];
    for (const [method, path, message] of cases) {
      const reply = await call(server.url, method, path);
      assert.equal(reply.status, 400, `${method} ${path}: ${reply.text}`);
      assert.deepEqual(reply.json, badRequest(message), `${method} ${path}`);
    }
    assert.equal((await call(server.url, 'GET', `${NS}/configmaps/existing`)).status, 200);
  });

  it('list-invalid-limit: limit=-1 lists everything', async () => {
    const reply = await call(server.url, 'GET', `${NS}/configmaps?limit=-1`);
    assert.equal(reply.status, 200);
    assert.equal(reply.json.kind, 'ConfigMapList');
    assert.equal(reply.json.metadata.continue, undefined);
    assert.ok(reply.json.items.length >= 2);
    assert.equal(reply.json.items[0].kind, undefined, 'list items carry no kind, as the reference serves them');
  });
});
