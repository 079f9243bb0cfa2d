// /openapi/v2 in both forms a client asks for, and /openapi/v3 listing every served group-version.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openApiV2Types } from '../../src/encoding/openapi-v2-protobuf.js';
import { genericDefinition } from '../../src/registry/definitions.js';
import type { RunningServer } from '../../src/server/server.js';
import { call, memoryServer } from '../helpers.js';

const PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

describe('OpenAPI for every client', () => {
  let server: RunningServer;
  before(async () => {
    server = await memoryServer();
  });
  after(() => server.close());

  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(new URL(path, server.url), { headers });
    return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
  };

  it('serves /openapi/v2 as gnostic Protobuf when asked, with the JSON ETag and 304', { timeout: 60_000 }, async () => {
    const json = await get('/openapi/v2', { Accept: 'application/json' });
    assert.equal(json.status, 200);
    assert.equal(json.headers.get('content-type'), 'application/json');
    const pb = await get('/openapi/v2', { Accept: PROTOBUF });
    assert.equal(pb.status, 200);
    assert.equal(pb.headers.get('content-type'), 'application/octet-stream');
    assert.equal(pb.headers.get('vary'), 'Accept');
    assert.equal(pb.headers.get('etag'), json.headers.get('etag'));
    assert.equal(Number(pb.headers.get('content-length')), pb.body.length);
    const documentType = openApiV2Types().lookupType('openapi.v2.Document');
    const doc = documentType.toObject(documentType.decode(pb.body)) as { swagger: string; paths: { path: Array<{ name: string }> }; definitions: { additional_properties: Array<{ name: string }> } };
    assert.equal(doc.swagger, '2.0');
    const served = JSON.parse(json.body.toString('utf8')) as { paths: Record<string, unknown>; definitions: Record<string, unknown> };
    assert.deepEqual(doc.paths.path.map((p) => p.name), Object.keys(served.paths));
    assert.deepEqual(doc.definitions.additional_properties.map((d) => d.name), Object.keys(served.definitions));
    const again = await get('/openapi/v2', { Accept: PROTOBUF, 'If-None-Match': String(pb.headers.get('etag')) });
    assert.equal(again.status, 304);
    assert.equal(again.body.length, 0);
  });

  it('chooses the form as the reference: by quality, the specific before wildcards, JSON for none; 406 otherwise', { timeout: 60_000 }, async () => {
    const isProtobuf = (b: Buffer) => b[0] === 0x0a;
    assert.ok(!isProtobuf((await get('/openapi/v2')).body));
    assert.ok(!isProtobuf((await get('/openapi/v2', { Accept: '*/*' })).body));
    assert.ok(isProtobuf((await get('/openapi/v2', { Accept: `*/*, ${PROTOBUF}` })).body));
    assert.ok(!isProtobuf((await get('/openapi/v2', { Accept: `${PROTOBUF};q=0.5, application/json` })).body));
    const refused = await get('/openapi/v2', { Accept: 'text/html' });
    assert.equal(refused.status, 406);
    assert.equal(refused.body.length, 0);
  });

  it('makes the Protobuf again once a resource is defined at run time, and it is there', { timeout: 60_000 }, async () => {
    const documentType = openApiV2Types().lookupType('openapi.v2.Document');
    const pathsOf = (body: Buffer) => (documentType.toObject(documentType.decode(body)) as { paths: { path: Array<{ name: string }> } }).paths.path.map((p) => p.name);
    const before = await get('/openapi/v2', { Accept: PROTOBUF });
    server.definitions.add(genericDefinition({
      group: 'gadgets.example.com', resource: 'gadgets', kind: 'Gadget', namespaced: true, versions: ['v1'],
      schema: () => ({ type: 'object', properties: { spec: { type: 'object', nullable: true, properties: { size: { type: 'integer' } } } } }),
    }));
    const after = await get('/openapi/v2', { Accept: PROTOBUF });
    assert.notEqual(after.headers.get('etag'), before.headers.get('etag'));
    assert.ok(!pathsOf(before.body).includes('/apis/gadgets.example.com/v1/namespaces/{namespace}/gadgets'));
    assert.ok(pathsOf(after.body).includes('/apis/gadgets.example.com/v1/namespaces/{namespace}/gadgets'));
    const stale = await get('/openapi/v2', { Accept: PROTOBUF, 'If-None-Match': String(before.headers.get('etag')) });
    assert.equal(stale.status, 200);
  });

  it('lists every served group-version in /openapi/v3, apiregistration.k8s.io/v1 made from the v2 document', { timeout: 60_000 }, async () => {
    const root = (await call(server.url, 'GET', '/openapi/v3')).json as { paths: Record<string, { serverRelativeURL: string }> };
    const groups = (await call(server.url, 'GET', '/apis')).json as { groups: Array<{ versions: Array<{ groupVersion: string }> }> };
    const served = ['api/v1', ...groups.groups.flatMap((g) => g.versions.map((v) => `apis/${v.groupVersion}`))];
    assert.deepEqual(served.filter((gv) => !root.paths[gv]), []);
    assert.ok(root.paths['apis/apiregistration.k8s.io']);

    const url = root.paths['apis/apiregistration.k8s.io/v1']!.serverRelativeURL;
    assert.match(url, /^\/openapi\/v3\/apis\/apiregistration\.k8s\.io\/v1\?hash=[0-9A-F]+$/);
    const reply = await call(server.url, 'GET', url);
    assert.equal(reply.status, 200);
    assert.equal(reply.headers['cache-control'], 'public, immutable');
    const doc = reply.json;
    assert.equal(doc.openapi, '3.0.0');
    const schema = doc.components.schemas['io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService'];
    assert.deepEqual(schema['x-kubernetes-group-version-kind'], [{ group: 'apiregistration.k8s.io', kind: 'APIService', version: 'v1' }]);
    assert.equal(schema.properties.spec.$ref, '#/components/schemas/io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIServiceSpec');
    assert.ok(doc.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'], 'referenced schemas are included');
    assert.deepEqual(Object.keys(doc.components.securitySchemes), ['BearerToken']);
    const patch = doc.paths['/apis/apiregistration.k8s.io/v1/apiservices/{name}'].patch;
    assert.deepEqual(patch['x-kubernetes-group-version-kind'], { group: 'apiregistration.k8s.io', kind: 'APIService', version: 'v1' });
    const fieldValidation = patch.parameters.find((p: { name: string }) => p.name === 'fieldValidation');
    assert.deepEqual({ in: fieldValidation.in, schema: fieldValidation.schema }, { in: 'query', schema: { type: 'string', uniqueItems: true } });
    assert.ok(patch.requestBody.content['application/apply-patch+yaml']);
  });
});
