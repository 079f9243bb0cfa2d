// Representations chosen by Accept: JSON, YAML, PartialObjectMetadata(List), and the 406 answers.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import type { RunningServer } from '../../src/server/server.js';
import { call, fixture, memoryServer, mustOk } from '../helpers.js';

const CM = '/api/v1/namespaces/default/configmaps';
const POM = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';
const POML = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';

describe('representations', () => {
  let server: RunningServer;
  before(async () => {
    server = await memoryServer();
    await call(server.url, 'POST', CM, { body: { metadata: { name: 'app-config', labels: { app: 'demo' } }, data: { LOG_LEVEL: 'info' } } });
  });
  after(() => server.close());

  it('serves YAML with keys sorted, as the reference does', async () => {
    const f = fixture('protobuf/yaml-configmap');
    const reply = await call(server.url, 'GET', `${CM}/app-config`, { headers: { Accept: 'application/yaml' } });
    assert.equal(reply.status, 200);
    assert.equal(reply.headers['content-type'], f.response.headers['content-type']);
    assert.match(reply.text, /^apiVersion: v1\ndata:\n {2}LOG_LEVEL: info\nkind: ConfigMap\nmetadata:\n/);
    assert.equal(parseYaml(reply.text).metadata.name, 'app-config');
  });

  it('writes YAML as Go does: the recorded configmap byte for byte (placeholders aside)', async () => {
    const f = fixture('protobuf/yaml-configmap');
    await mustOk(call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'ref-protobuf' } } }), 201);
    await mustOk(call(server.url, 'POST', '/api/v1/namespaces/ref-protobuf/configmaps', {
      body: { metadata: { name: 'app-config', labels: { app: 'demo' } }, data: { LOG_LEVEL: 'info', 'app.properties': 'color=blue\n' }, binaryData: { 'blob.bin': 'AAECYmluYXJ5' } },
      headers: { 'User-Agent': 'recorder/1.0 (record.mjs; node)' },
    }), 201);
    const reply = await mustOk(call(server.url, 'GET', f.request.path, { headers: { Accept: 'application/yaml' } }));
    const text = reply.text
      .replace(/"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"/g, '"<time>"')
      .replace(/resourceVersion: "\d+"/, 'resourceVersion: "<rv>"')
      .replace(/uid: [0-9a-f-]{36}/, 'uid: <uid>');
    assert.equal(text, f.response.body);
  });

  it('accepts YAML request bodies, read as YAML 1.1 (yes is a boolean)', async () => {
    const body = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\nimmutable: yes\ndata:\n  answer: "42"\n';
    const reply = await call(server.url, 'POST', CM, { body, headers: { 'Content-Type': 'application/yaml' } });
    assert.equal(reply.status, 201, reply.text);
    assert.equal(reply.json.immutable, true);
    assert.equal(reply.json.data.answer, '42');
  });

  it('answers */* and application/* with JSON', async () => {
    for (const accept of ['*/*', 'application/*']) {
      const reply = await call(server.url, 'GET', `${CM}/app-config`, { headers: { Accept: accept } });
      assert.equal(reply.status, 200);
      assert.equal(reply.headers['content-type'], 'application/json');
      assert.equal(reply.json.kind, 'ConfigMap');
    }
  });

  it('indents JSON for pretty=true and for curl', async () => {
    const pretty = await call(server.url, 'GET', `${CM}/app-config?pretty=true`);
    assert.match(pretty.text, /^\{\n {2}"kind": "ConfigMap",\n/);
    const curl = await call(server.url, 'GET', `${CM}/app-config`, { headers: { 'User-Agent': 'curl/8.0' } });
    assert.match(curl.text, /^\{\n {2}"kind"/);
    const other = await call(server.url, 'GET', `${CM}/app-config`, { headers: { 'User-Agent': 'kubectl/v1.32' } });
    assert.match(other.text, /^\{"kind":"ConfigMap"/);
  });

  it('reads pretty as Go\'s strconv.ParseBool: True and 1 indent, yes does not; an empty one leaves it to the user agent', async () => {
    const kubectl = { 'User-Agent': 'kubectl/v1.32' };
    const curl = { 'User-Agent': 'curl/8.0' };
    const get = (query: string, headers: Record<string, string>) => call(server.url, 'GET', `${CM}/app-config?${query}`, { headers });
    for (const yes of ['True', 'TRUE', 't', '1']) assert.match((await get(`pretty=${yes}`, kubectl)).text, /^\{\n {2}"kind"/, `pretty=${yes}`);
    for (const no of ['yes', 'False', '0']) assert.match((await get(`pretty=${no}`, curl)).text, /^\{"kind":"ConfigMap"/, `pretty=${no}`);
    assert.match((await get('pretty=', curl)).text, /^\{\n {2}"kind"/);
    assert.match((await get('pretty=', kubectl)).text, /^\{"kind":"ConfigMap"/);
    // Only user agents that start like a command-line tool's or a browser's.
    assert.match((await get('', { 'User-Agent': 'my-curl-wrapper/1' })).text, /^\{"kind":"ConfigMap"/);
    assert.match((await get('', { 'User-Agent': 'Mozilla/5.0 (X11)' })).text, /^\{\n {2}"kind"/);
  });

  it('serves PartialObjectMetadata for a get and PartialObjectMetadataList for a list', async () => {
    const one = await call(server.url, 'GET', `${CM}/app-config`, { headers: { Accept: POM } });
    assert.equal(one.status, 200);
    assert.deepEqual(Object.keys(one.json), ['kind', 'apiVersion', 'metadata']);
    assert.equal(one.json.kind, 'PartialObjectMetadata');
    assert.equal(one.json.apiVersion, 'meta.k8s.io/v1');
    assert.equal(one.json.metadata.labels.app, 'demo');
    const list = await call(server.url, 'GET', CM, { headers: { Accept: `${POML}, application/json` } });
    assert.equal(list.json.kind, 'PartialObjectMetadataList');
    assert.ok(list.json.metadata.resourceVersion);
    assert.equal(list.json.items[0].metadata.name, 'app-config');
    assert.equal(list.json.items[0].data, undefined);
  });

  it('watches as PartialObjectMetadata', async () => {
    const reply = await call(server.url, 'GET', `${CM}?watch=1&timeoutSeconds=1`, { headers: { Accept: POM } });
    const event = JSON.parse(reply.text.trim().split('\n')[0]!);
    assert.equal(event.type, 'ADDED');
    assert.equal(event.object.kind, 'PartialObjectMetadata');
    assert.equal(event.object.data, undefined);
  });

  it('refuses a transformation that does not fit the request with 406', async () => {
    const listAsObject = await call(server.url, 'GET', CM, { headers: { Accept: POM } });
    assert.equal(listAsObject.status, 406);
    const f = fixture('protobuf/table-protobuf-accept');
    const table = await call(server.url, 'GET', '/api/v1/namespaces/default/pods', { headers: { Accept: f.request.headers['Accept']! } });
    assert.equal(table.status, 406);
    assert.equal(table.json.reason, 'NotAcceptable');
  });
});
