// ttl-after-finished deletes finished Jobs once their TTL passes; podgc deletes terminated pods
// beyond its threshold, pods of nodes gone, and unscheduled terminating pods.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { defaultEnabled } from '../../src/api/catalog.js';
import { builtinResourceDefinitions } from '../../src/registry/builtin/index.js';
import { PodGcController } from '../../src/controllers/podgc.js';
import { Registry } from '../../src/registry/store.js';
import type { RunningServer } from '../../src/server/server.js';
import { call, memoryServer, mustOk, sleep, until } from '../helpers.js';

const MERGE = { 'Content-Type': 'application/merge-patch+json' };

describe('ttl-after-finished controller', { timeout: 30_000 }, () => {
  let server: RunningServer;
  before(async () => {
    server = await memoryServer();
  });
  after(() => server.close());

  it('deletes a finished Job and its pods ttlSecondsAfterFinished after it finished', async () => {
    const path = '/apis/batch/v1/namespaces/default/jobs';
    await mustOk(call(server.url, 'POST', path, {
      body: { metadata: { name: 'short' }, spec: { ttlSecondsAfterFinished: 2, template: { spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'Never' } } } },
    }), 201);
    await mustOk(call(server.url, 'POST', path, {
      body: { metadata: { name: 'kept' }, spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'Never' } } } },
    }), 201);
    const podsOf = async (job: string) => (await mustOk(call(server.url, 'GET', `/api/v1/namespaces/default/pods?labelSelector=job-name%3D${job}`))).json.items;
    for (const job of ['short', 'kept']) {
      const [pod] = await until(`pod of ${job}`, async () => {
        const l = await podsOf(job);
        return l.length === 1 && l;
      });
      await mustOk(call(server.url, 'PATCH', `/api/v1/namespaces/default/pods/${pod.metadata.name}/status`, { body: { status: { phase: 'Succeeded' } }, headers: MERGE }));
    }
    const finished = await until('short Complete', async () => {
      const j = (await call(server.url, 'GET', `${path}/short`)).json;
      return j.status?.conditions?.some((c: { type: string }) => c.type === 'Complete') && j;
    });
    const finishedAt = Date.parse(finished.status.conditions[0].lastTransitionTime);
    await sleep(Math.max(0, finishedAt + 1000 - Date.now()));
    assert.equal((await call(server.url, 'GET', `${path}/short`)).status, 200, 'not before its TTL');
    await until('short deleted', async () => (await call(server.url, 'GET', `${path}/short`)).status === 404, 6000);
    assert.ok(Date.now() >= finishedAt + 2000);
    await until('its pod deleted', async () => (await podsOf('short')).length === 0);
    assert.equal((await call(server.url, 'GET', `${path}/kept`)).status, 200, 'a Job without a TTL stays');
  });
});

describe('pod garbage collector', { timeout: 30_000 }, () => {
  let server: RunningServer;
  let gc: PodGcController;
  before(async () => {
    server = await memoryServer({ controllers: ['*', '-podgc', '-job'] });
    const registry = new Registry(builtinResourceDefinitions(defaultEnabled), server.storage);
    gc = new PodGcController(registry, { terminatedPodThreshold: 2, periodMs: 3_600_000, quarantineMs: 0 });
    await gc.start();
  });
  after(async () => {
    await gc.stop();
    await server.close();
  });
  const NS = '/api/v1/namespaces/default/pods';
  const names = async () => (await mustOk(call(server.url, 'GET', NS))).json.items.map((p: { metadata: { name: string } }) => p.metadata.name).sort();
  async function pod(name: string, extra: Record<string, unknown> = {}, phase?: string) {
    await mustOk(call(server.url, 'POST', NS, { body: { metadata: { name, ...extra }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } }), 201);
    if (phase) await mustOk(call(server.url, 'PATCH', `${NS}/${name}/status`, { body: { status: { phase } }, headers: MERGE }));
  }

  it('keeps the newest terminated pods up to the threshold', async () => {
    for (const [i, phase] of ['Succeeded', 'Failed', 'Succeeded', 'Failed'].entries()) {
      await pod(`done-${i}`, {}, phase);
      await sleep(1100); // creation timestamps are in seconds
    }
    await pod('running', {}, 'Running');
    await sleep(100);
    await gc.pass();
    await until('oldest two gone', async () => JSON.stringify(await names()) === JSON.stringify(['done-2', 'done-3', 'running']));
  });

  it('deletes pods bound to a node that does not exist, and unscheduled terminating pods', async () => {
    await mustOk(call(server.url, 'POST', '/api/v1/nodes', { body: { metadata: { name: 'here' } } }), 201);
    await mustOk(call(server.url, 'POST', NS, { body: { metadata: { name: 'on-here' }, spec: { nodeName: 'here', containers: [{ name: 'c', image: 'busybox' }] } } }), 201);
    await mustOk(call(server.url, 'POST', NS, { body: { metadata: { name: 'on-gone' }, spec: { nodeName: 'gone', containers: [{ name: 'c', image: 'busybox' }] } } }), 201);
    // A second pod on the missing node, deleted meanwhile: the node still holds the first.
    await mustOk(call(server.url, 'POST', NS, { body: { metadata: { name: 'on-gone-2' }, spec: { nodeName: 'gone', containers: [{ name: 'c', image: 'busybox' }] } } }), 201);
    await mustOk(call(server.url, 'DELETE', `${NS}/on-gone-2?gracePeriodSeconds=0`));
    await pod('held', { finalizers: ['example.com/hold'] });
    await mustOk(call(server.url, 'DELETE', `${NS}/held`));
    await sleep(100);
    await gc.pass(); // the missing node is noticed
    await gc.pass(); // and, past its quarantine, its pods go
    await until('orphan gone', async () => !(await names()).includes('on-gone'));
    assert.ok((await names()).includes('on-here'));
    const held = (await mustOk(call(server.url, 'GET', `${NS}/held`))).json;
    assert.equal(held.metadata.deletionGracePeriodSeconds, 0);
    await mustOk(call(server.url, 'PATCH', `${NS}/held`, { body: { metadata: { finalizers: null } }, headers: MERGE }));
    await until('held gone', async () => !(await names()).includes('held'));
  });
});
