// GET /: the reference's index of the paths served ({"paths": [...]}, sorted, indented); other
// unknown paths keep the plain-text 404.
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
});
