// Discovery and OpenAPI answers compared with the reference's recorded ones.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/server.js';
import { call, fixture, memoryServer, referenceDir } from '../helpers.js';

describe('discovery', () => {
  let server: RunningServer;
  before(async () => {
    server = await memoryServer();
  });
  after(() => server.close());

  const names = readdirSync(join(referenceDir, 'discovery')).filter((f) => f !== 'version.json').map((f) => f.replace(/\.json$/, ''));
  for (const name of names) {
    it(`matches the reference: ${name}`, async () => {
      const f = fixture(`discovery/${name}`);
      const reply = await call(server.url, 'GET', f.request.path);
      assert.equal(reply.status, f.response.status);
      assert.equal(reply.headers['content-type'], f.response.headers['content-type']);
      let expected = f.response.body as Record<string, unknown>;
      if (name === 'api') expected = { ...expected, serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: `127.0.0.1:${server.port}` }] };
      assert.deepEqual(reply.json, expected);
    });
  }

  it('serves /version as the 1.25 release, indented', async () => {
    const reply = await call(server.url, 'GET', '/version');
    assert.equal(reply.status, 200);
    assert.equal(reply.json.major, '1');
    assert.equal(reply.json.minor, '25');
    assert.match(reply.json.gitVersion, /^v1\.25\.0/);
    assert.match(reply.text, /^\{\n {2}"major": "1",/);
  });

  it('answers an unknown group with the plain 404 page', async () => {
    for (const name of ['errors/unknown-group', 'errors/unknown-group-object']) {
      const f = fixture(name);
      const reply = await call(server.url, 'GET', f.request.path);
      assert.equal(reply.status, 404);
      assert.equal(reply.headers['content-type'], 'text/plain; charset=utf-8');
      assert.equal(reply.text, f.response.rawBody ?? f.response.body);
    }
  });

  it('serves OpenAPI v2 without the alpha group-versions', async () => {
    const reply = await call(server.url, 'GET', '/openapi/v2');
    assert.equal(reply.status, 200);
    assert.equal(reply.json.swagger, '2.0');
    assert.ok(reply.json.paths['/api/v1/namespaces/{namespace}/pods']);
    assert.ok(!Object.keys(reply.json.paths).some((p: string) => p.includes('v1alpha1')));
    const again = await call(server.url, 'GET', '/openapi/v2', { headers: { 'If-None-Match': String(reply.headers['etag']) } });
    assert.equal(again.status, 304);
  });

  it('gives the OpenAPI documents the server version /version reports as info.version', async () => {
    const version = (await call(server.url, 'GET', '/version')).json.gitVersion as string;
    const expected = version.split('-')[0];
    const v2 = await call(server.url, 'GET', '/openapi/v2');
    assert.deepEqual(v2.json.info, { title: 'Kubernetes', version: expected });
    const root = await call(server.url, 'GET', '/openapi/v3');
    const core = await call(server.url, 'GET', root.json.paths['api/v1'].serverRelativeURL);
    assert.deepEqual(core.json.info, { title: 'Kubernetes', version: expected });
    // A document the server makes itself (no vendored one for apiregistration.k8s.io/v1) says the same.
    const made = await call(server.url, 'GET', root.json.paths['apis/apiregistration.k8s.io/v1'].serverRelativeURL);
    assert.deepEqual(made.json.info, { title: 'Kubernetes', version: expected });
  });

  it('serves the OpenAPI v3 root and each group-version document by its hash', async () => {
    const root = await call(server.url, 'GET', '/openapi/v3');
    assert.equal(root.status, 200);
    const apps = root.json.paths['apis/apps/v1'];
    assert.match(apps.serverRelativeURL, /^\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]+$/);
    assert.equal(root.json.paths['apis/networking.k8s.io/v1alpha1'], undefined);
    const doc = await call(server.url, 'GET', apps.serverRelativeURL);
    assert.equal(doc.status, 200);
    assert.ok(doc.json.components.schemas['io.k8s.api.apps.v1.Deployment']);
    assert.equal(doc.headers['cache-control'], 'public, immutable');
  });
});
