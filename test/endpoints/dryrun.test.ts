// dryRun=All on every writing verb: the answer is what would have been stored, with the normal
// status code; nothing is stored, no revision is consumed, watchers see nothing.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/server.js';
import { call, memoryServer, mustOk, sleep } from '../helpers.js';

const CM = '/api/v1/namespaces/default/configmaps';
const MERGE = { 'Content-Type': 'application/merge-patch+json' };

/** Collects a watch's events from a revision until stopped. */
function watch(base: string, path: string, resourceVersion: string): { events: unknown[]; stop(): void } {
  const events: unknown[] = [];
  const req = request(new URL(`${path}?watch=true&resourceVersion=${resourceVersion}`, base), (res) => {
    let buffered = '';
    res.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      let nl;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        events.push(JSON.parse(buffered.slice(0, nl)));
        buffered = buffered.slice(nl + 1);
      }
    });
    res.on('error', () => undefined);
  });
  req.on('error', () => undefined);
  req.end();
  return { events, stop: () => req.destroy() };
}

describe('dryRun=All', () => {
  let server: RunningServer;
  let url: string;
  before(async () => {
    server = await memoryServer({ namespaceDefaults: false });
    url = server.url;
    await mustOk(call(url, 'POST', CM, { body: { metadata: { name: 'live', labels: { keep: 'yes' } }, data: { a: '1' } } }), 201);
  });
  after(() => server.close());

  it('runs every verb without storing, consuming a revision or notifying watchers', async () => {
    const before = await mustOk(call(url, 'GET', CM));
    const revision = before.json.metadata.resourceVersion;
    const live = (await mustOk(call(url, 'GET', `${CM}/live`))).json;
    const w = watch(url, CM, revision);
    await sleep(100);

    const created = await mustOk(call(url, 'POST', `${CM}?dryRun=All`, { body: { metadata: { name: 'ghost' }, data: { b: '2' } } }), 201);
    assert.equal(created.json.metadata.name, 'ghost');
    assert.ok(created.json.metadata.uid, 'the would-be object has its uid');
    assert.equal(created.json.metadata.resourceVersion, undefined, 'but no revision');
    const generated = await mustOk(call(url, 'POST', `${CM}?dryRun=All`, { body: { metadata: { generateName: 'gen-' } } }), 201);
    assert.match(generated.json.metadata.name, /^gen-[a-z0-9]{5}$/);

    const put = await mustOk(call(url, 'PUT', `${CM}/live?dryRun=All`, { body: { ...live, data: { a: 'changed' } } }));
    assert.equal(put.json.data.a, 'changed');
    const patched = await mustOk(call(url, 'PATCH', `${CM}/live?dryRun=All`, { body: { data: { c: '3' } }, headers: MERGE }));
    assert.deepEqual(patched.json.data, { a: '1', c: '3' });
    const applied = await mustOk(call(url, 'PATCH', `${CM}/live?dryRun=All&fieldManager=tester`, {
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'live' }, data: { d: '4' } }),
      headers: { 'Content-Type': 'application/apply-patch+yaml' },
    }));
    assert.equal(applied.json.data.d, '4');
    assert.ok(applied.json.metadata.managedFields.some((m: { manager: string }) => m.manager === 'tester'));
    const deleted = await mustOk(call(url, 'DELETE', `${CM}/live?dryRun=All`));
    assert.equal(deleted.json.status, 'Success');
    const collection = await mustOk(call(url, 'DELETE', `${CM}?dryRun=All`));
    assert.deepEqual(collection.json.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['live']);

    await sleep(200);
    w.stop();
    assert.deepEqual(w.events, [], 'no watch event');
    const afterList = await mustOk(call(url, 'GET', CM));
    assert.equal(afterList.json.metadata.resourceVersion, revision, 'no revision consumed');
    assert.deepEqual(afterList.json.items, before.json.items, 'nothing changed');
  });

  it('reports what the real request would: conflicts, missing objects and namespaces', async () => {
    const exists = await call(url, 'POST', `${CM}?dryRun=All`, { body: { metadata: { name: 'live' } } });
    assert.equal(exists.status, 409);
    assert.equal(exists.json.reason, 'AlreadyExists');
    const missing = await call(url, 'PATCH', `${CM}/nope?dryRun=All`, { body: { data: {} }, headers: MERGE });
    assert.equal(missing.status, 404);
    const noNamespace = await call(url, 'POST', '/api/v1/namespaces/nowhere/configmaps?dryRun=All', { body: { metadata: { name: 'x' } } });
    assert.equal(noNamespace.status, 404);
    assert.equal(noNamespace.json.message, 'namespaces "nowhere" not found');
  });

  it('refuses any other dryRun value, for every verb, as 422', async () => {
    for (const [method, path, kind] of [['POST', CM, 'CreateOptions'], ['PUT', `${CM}/live`, 'UpdateOptions'], ['PATCH', `${CM}/live`, 'PatchOptions'], ['DELETE', `${CM}/live`, 'DeleteOptions']] as const) {
      const r = await call(url, method, `${path}?dryRun=Everything`, { body: method === 'DELETE' ? undefined : { metadata: { name: 'live' } }, headers: method === 'PATCH' ? MERGE : {} });
      assert.equal(r.status, 422, `${method} ${r.text}`);
      assert.equal(r.json.message, `${kind}.meta.k8s.io "" is invalid: dryRun: Unsupported value: "Everything": supported values: "All"`);
    }
    assert.equal((await mustOk(call(url, 'GET', `${CM}/live`))).json.data.a, '1');
  });
});
