// A resource defined while the server runs (as a CustomResourceDefinition or an APIService will
// define theirs): discovery, OpenAPI, CRUD, watch and kubectl follow it without a restart, and
// stop serving it once it is removed; its stored objects come back when it is defined again.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { genericDefinition } from '../../src/registry/definitions.js';
import type { RunningServer } from '../../src/server/server.js';
import { call, memoryServer } from '../helpers.js';
import { kubectl, ok } from './harness.js';

const GROUP = 'widgets.example.com';
const BASE = `/apis/${GROUP}/v1`;

const widgets = () => genericDefinition({
  group: GROUP, resource: 'widgets', kind: 'Widget', namespaced: true, versions: ['v1'], shortNames: ['wd'], categories: ['all'],
  schema: () => ({ type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } }),
});

/** The events a watch sends until `count` have come or the stream ends. */
function watchEvents(base: string, path: string, count: number): { events: Promise<Array<{ type: string; object: { metadata: { name: string } } }>>; started: Promise<number>; ended: Promise<void> } {
  const events: Array<{ type: string; object: { metadata: { name: string } } }> = [];
  let endedResolve: () => void;
  let startedResolve: (status: number) => void;
  const ended = new Promise<void>((r) => (endedResolve = r));
  const started = new Promise<number>((r) => (startedResolve = r));
  const done = new Promise<typeof events>((resolve, reject) => {
    const req = request(new URL(path, base), (res) => {
      startedResolve(res.statusCode ?? 0);
      let buffered = '';
      res.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        let nl;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          events.push(JSON.parse(buffered.slice(0, nl)) as (typeof events)[number]);
          buffered = buffered.slice(nl + 1);
          if (events.length === count) resolve(events);
        }
      });
      res.on('end', () => {
        endedResolve();
        resolve(events);
      });
    });
    req.on('error', reject);
    req.end();
  });
  return { events: done, started, ended };
}

describe('a resource defined at run time', () => {
  let server: RunningServer;
  let dir: string;
  let kubeconfig: string;

  before(async () => {
    server = await memoryServer();
    dir = mkdtempSync(join(tmpdir(), 'capstan-runtime-'));
    kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: ${server.url}
users:
- name: u
  user: {}
contexts:
- name: c
  context: { cluster: c, user: u, namespace: default }
current-context: c
`);
  });

  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is served once added: discovery, OpenAPI, CRUD, watch and kubectl', { timeout: 60_000 }, async () => {
    assert.equal((await call(server.url, 'GET', `${BASE}/namespaces/default/widgets`)).status, 404);
    server.definitions.add(widgets());

    const groups = (await call(server.url, 'GET', '/apis')).json as { groups: Array<{ name: string; preferredVersion: { groupVersion: string } }> };
    assert.deepEqual(groups.groups.find((g) => g.name === GROUP)?.preferredVersion, { groupVersion: `${GROUP}/v1`, version: 'v1' });
    const list = (await call(server.url, 'GET', BASE)).json as { resources: Array<{ name: string; kind: string; namespaced: boolean; shortNames?: string[]; verbs: string[] }> };
    const entry = list.resources.find((r) => r.name === 'widgets');
    assert.equal(entry?.kind, 'Widget');
    assert.equal(entry?.namespaced, true);
    assert.deepEqual(entry?.shortNames, ['wd']);
    assert.ok(entry?.verbs.includes('watch'));

    const v3 = (await call(server.url, 'GET', '/openapi/v3')).json as { paths: Record<string, { serverRelativeURL: string }> };
    const ref = v3.paths[`apis/${GROUP}/v1`];
    assert.ok(ref, 'the group-version is listed in /openapi/v3');
    const doc = (await call(server.url, 'GET', ref.serverRelativeURL)).json as { components: { schemas: Record<string, { properties?: Record<string, unknown> }> } };
    assert.ok(doc.components.schemas['com.example.widgets.v1.Widget']?.properties?.['spec'], 'the kind schema is published');
    assert.ok(doc.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'], 'with what it refers to');
    const v2 = (await call(server.url, 'GET', '/openapi/v2')).json as { paths: Record<string, Record<string, { 'x-kubernetes-group-version-kind'?: unknown }>> };
    assert.deepEqual(v2.paths[`${BASE}/namespaces/{namespace}/widgets/{name}`]?.['get']?.['x-kubernetes-group-version-kind'], { group: GROUP, version: 'v1', kind: 'Widget' });

    const watch = watchEvents(server.url, `${BASE}/namespaces/default/widgets?watch=true`, 3);
    assert.equal(await watch.started, 200);
    const created = await call(server.url, 'POST', `${BASE}/namespaces/default/widgets`, { body: { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 1 } } });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.metadata.generation, 1);
    const patched = await call(server.url, 'PATCH', `${BASE}/namespaces/default/widgets/w1`, { body: { spec: { size: 2 } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.json.spec.size, 2);
    const got = await call(server.url, 'GET', `${BASE}/namespaces/default/widgets/w1`);
    assert.equal(got.json.spec.size, 2);
    assert.equal(got.json.metadata.generation, 2);
    const wrongKind = await call(server.url, 'POST', `${BASE}/namespaces/default/widgets`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } });
    assert.equal(wrongKind.status, 400, 'a body of another kind is refused');

    const table = await ok(kubeconfig, ['get', 'wd', '--cache-dir', join(dir, 'cache-1')]);
    assert.match(table, /^NAME\s+CREATED AT\nw1\s+\d{4}-\d\d-\d\dT/);
    await ok(kubeconfig, ['delete', 'widgets', 'w1', '--cache-dir', join(dir, 'cache-1')]);
    const seen = await watch.events;
    assert.deepEqual(seen.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED w1', 'MODIFIED w1', 'DELETED w1']);
  });

  it('is no longer served once removed, and its objects come back with it', { timeout: 60_000 }, async () => {
    const created = await call(server.url, 'POST', `${BASE}/namespaces/default/widgets`, { body: { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'kept' } } });
    assert.equal(created.status, 201, created.text);
    const watch = watchEvents(server.url, `${BASE}/namespaces/default/widgets?watch=true&resourceVersion=${created.json.metadata.resourceVersion}`, 1);
    assert.equal(await watch.started, 200);

    assert.equal(server.definitions.remove(GROUP, 'widgets'), true);
    await watch.ended; // an open watch ends with its resource
    const groups = (await call(server.url, 'GET', '/apis')).json as { groups: Array<{ name: string }> };
    assert.equal(groups.groups.some((g) => g.name === GROUP), false);
    assert.equal((await call(server.url, 'GET', BASE)).status, 404);
    assert.equal((await call(server.url, 'GET', `${BASE}/namespaces/default/widgets/kept`)).status, 404);
    const v3 = (await call(server.url, 'GET', '/openapi/v3')).json as { paths: Record<string, unknown> };
    assert.equal(v3.paths[`apis/${GROUP}/v1`], undefined);
    // A kubectl that discovers afresh (one with a cached discovery says NotFound instead).
    const refused = await kubectl(kubeconfig, ['get', 'widgets', '--cache-dir', join(dir, 'cache-2')]);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /the server doesn't have a resource type "widgets"/);

    server.definitions.add(widgets());
    const back = await call(server.url, 'GET', `${BASE}/namespaces/default/widgets/kept`);
    assert.equal(back.status, 200, back.text);
    assert.equal(back.json.metadata.uid, created.json.metadata.uid);
  });
});
