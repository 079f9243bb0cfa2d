// GET /: the reference's index of the paths served ({"paths": [...]}, sorted, indented); unknown
// paths: a NotFound Status under /api/ and the built-in groups (its API container's answer), else
// the plain-text 404.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { call, memoryServer, mustOk } from '../helpers.js';

describe('GET /', { timeout: 30_000 }, () => {
  it('lists every discovery, health, OpenAPI and version path, sorted, as the reference', async () => {
    const server = await memoryServer();
    try {
      const root = await mustOk(call(server.url, 'GET', '/'));
      assert.equal(root.headers['content-type'], 'application/json');
      assert.equal(root.text, JSON.stringify(root.json, null, 2));
      const paths = root.json.paths as string[];
      assert.deepEqual(paths, [...paths].sort());
      for (const p of [
        '/api', '/api/v1', '/apis', '/apis/', '/apis/apps', '/apis/apps/v1', '/apis/autoscaling/v2', '/apis/autoscaling/v2beta2',
        '/apis/storage.k8s.io/v1beta1', '/healthz', '/healthz/etcd', '/healthz/ping', '/healthz/poststarthook/rbac/bootstrap-roles',
        '/livez', '/readyz', '/readyz/shutdown', '/openapi/v2', '/openapi/v3', '/openapi/v3/', '/version',
      ]) assert.ok(paths.includes(p), p);
      // Plain HTTP signs no tokens: no issuer discovery.
      assert.ok(!paths.includes('/.well-known/openid-configuration'));
      // Every listed path answers.
      for (const p of paths.filter((x) => !x.endsWith('/'))) assert.equal((await call(server.url, 'GET', p)).status, 200, p);
      assert.deepEqual((await mustOk(call(server.url, 'GET', '/index.html'))).json, root.json);
      const unknown = await call(server.url, 'GET', '/no-such-path');
      assert.equal(unknown.status, 404);
      assert.equal(unknown.text, '404 page not found\n');
    } finally {
      await server.close();
    }
  });

  it('answers a NotFound Status for a version a served group lacks, plain text for an unknown group', async () => {
    const server = await memoryServer();
    try {
      for (const p of ['/apis/batch/v1beta1/cronjobs', '/apis/batch/v1beta1/namespaces/default/cronjobs/x', '/apis/batch/v1beta1', '/apis/apps/v1/nothings', '/api/v2/pods', '/api/v1/widgets']) {
        const r = await call(server.url, 'GET', p);
        assert.equal(r.status, 404, p);
        assert.equal(r.headers['content-type'], 'application/json', p);
        assert.deepEqual(r.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server could not find the requested resource', reason: 'NotFound', details: {}, code: 404 }, p);
      }
      const create = await call(server.url, 'POST', '/apis/batch/v1beta1/namespaces/default/cronjobs', { body: { apiVersion: 'batch/v1beta1', kind: 'CronJob', metadata: { name: 'c' } } });
      assert.equal(create.json.reason, 'NotFound');
      for (const p of ['/apis/nope.example.com/v1', '/apis/nope.example.com/v1/namespaces/x/things/y', '/apis/nope.example.com']) {
        const r = await call(server.url, 'GET', p);
        assert.equal(r.status, 404, p);
        assert.equal(r.text, '404 page not found\n', p);
      }
    } finally {
      await server.close();
    }
  });
});
