// A write that would change nothing but managedFields timestamps stores nothing, as on the
// reference: a server-side apply of the same manifests a second later, or a PUT of the stored
// object with a quantity spelled another way, keeps the resourceVersion and the managedFields
// times, and no watch hears of it. (kubectl apply --server-side twice: test/e2e/reapply.test.ts.)
import { WORKLOAD_CONTROLLERS } from '../../src/controllers/kit/selection.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/server.js';
import { call, memoryServer, mustOk, sleep, until, type Reply } from '../helpers.js';
import { collectWatch, REAPPLIED, REAPPLY_NAMESPACE, type CollectedWatch } from './reapply.js';

const APPLY = { 'Content-Type': 'application/apply-patch+yaml' };

interface Stored {
  metadata: { name: string; resourceVersion: string; generation?: number; labels?: Record<string, string>; managedFields: Array<{ manager: string; time: string }> };
  spec?: { template?: { spec: { containers: Array<{ resources?: { requests?: Record<string, string> } }> } } };
}

describe('writes that change only managedFields timestamps', { timeout: 60_000 }, () => {
  let server: RunningServer;
  const applyAll = async (): Promise<Stored[]> => {
    const answers: Stored[] = [];
    for (const { collection, manifest } of REAPPLIED) {
      const reply = await call(server.url, 'PATCH', `${collection}/${manifest.metadata.name}?fieldManager=kubectl`, { headers: APPLY, body: JSON.stringify(manifest) });
      assert.ok(reply.status === 201 || reply.status === 200, `${manifest.kind}: ${reply.status} ${reply.text}`);
      answers.push(reply.json as Stored);
    }
    return answers;
  };
  const watchAll = (from: Stored[]): Promise<CollectedWatch[]> =>
    Promise.all(REAPPLIED.map(({ collection }, i) => collectWatch(server.url, `${collection}?watch=1&resourceVersion=${from[i]!.metadata.resourceVersion}`)));

  before(async () => {
    // Only the test's own writes: the workload controllers would write the status of what is
    // reapplied here (Deployments, Jobs, StatefulSets) and move its resourceVersion.
    server = await memoryServer({ controllers: ['*', ...WORKLOAD_CONTROLLERS.map((name) => `-${name}`)] });
    await mustOk(call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: REAPPLY_NAMESPACE } } }), 201);
  });
  after(() => server.close());

  it('a server-side apply of the same manifests a second later stores nothing and sends no event', async () => {
    const first = await applyAll();
    const watches = await watchAll(first);
    try {
      // The next second: a timestamp the field manager would write.
      await sleep(1100);
      const second = await applyAll();
      for (const [i, answer] of second.entries()) {
        const name = answer.metadata.name;
        assert.equal(answer.metadata.resourceVersion, first[i]!.metadata.resourceVersion, `${name}: resourceVersion`);
        assert.deepEqual(answer.metadata.managedFields, first[i]!.metadata.managedFields, `${name}: managedFields`);
      }
      for (const { collection, manifest } of REAPPLIED) {
        const got = (await mustOk(call(server.url, 'GET', `${collection}/${manifest.metadata.name}`))).json as Stored;
        assert.equal(got.metadata.resourceVersion, first[REAPPLIED.findIndex((r) => r.manifest === manifest)]!.metadata.resourceVersion);
      }
      await sleep(300);
      assert.deepEqual(watches.map((w) => w.events.length), REAPPLIED.map(() => 0), 'no watch event');
      // The watches are live: a real change is heard, once.
      for (const { collection, manifest } of REAPPLIED) {
        const labelled = { ...manifest, metadata: { ...manifest.metadata, labels: { changed: 'yes' } } };
        await mustOk(call(server.url, 'PATCH', `${collection}/${manifest.metadata.name}?fieldManager=kubectl`, { headers: APPLY, body: JSON.stringify(labelled) }));
      }
      const heard = () => watches.map((w) => w.events.map((e) => `${e.type} ${e.object.metadata.name}`).join());
      await until(() => heard().join(' | '), () => watches.every((w) => w.events.length >= 1));
      assert.deepEqual(heard(), REAPPLIED.map(({ manifest }) => `MODIFIED ${manifest.metadata.name}`));
    } finally {
      for (const w of watches) w.close();
    }
  });

  it('a PUT of the stored object with a quantity spelled another way stores nothing', async () => {
    const { collection, manifest } = REAPPLIED.find((r) => r.manifest.kind === 'StatefulSet')!;
    const path = `${collection}/${manifest.metadata.name}`;
    const stored = (await mustOk(call(server.url, 'GET', path))).json as Stored;
    const requests = stored.spec!.template!.spec.containers[0]!.resources!.requests!;
    assert.deepEqual(requests, { cpu: '500m', memory: '1Gi' });
    await sleep(1100);
    const respelled = structuredClone(stored);
    respelled.spec!.template!.spec.containers[0]!.resources!.requests = { cpu: '0.5', memory: '1024Mi' };
    const put: Reply = await mustOk(call(server.url, 'PUT', `${path}?fieldManager=editor`, { body: respelled }));
    assert.equal(put.json.metadata.resourceVersion, stored.metadata.resourceVersion);
    assert.deepEqual(put.json.metadata.managedFields, stored.metadata.managedFields);
    assert.equal((await mustOk(call(server.url, 'GET', path))).json.metadata.resourceVersion, stored.metadata.resourceVersion);
    // A real change still writes, with its own manager and time.
    respelled.spec!.template!.spec.containers[0]!.resources!.requests = { cpu: '1', memory: '1Gi' };
    const changed = await mustOk(call(server.url, 'PUT', `${path}?fieldManager=editor`, { body: respelled }));
    assert.notEqual(changed.json.metadata.resourceVersion, stored.metadata.resourceVersion);
    assert.ok(changed.json.metadata.managedFields.some((m: { manager: string }) => m.manager === 'editor'));
  });
});
