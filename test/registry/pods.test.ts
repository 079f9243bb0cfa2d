// Pod lifecycle: graceful deletion, binding, eviction against disruption budgets, ephemeral
// containers, and the node agent's subresources answered as the reference does without one.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/server.js';
import { call, memoryServer, mustOk, until } from '../helpers.js';

const NS = '/api/v1/namespaces/pods-test';
const PODS = `${NS}/pods`;

function pod(name: string, extra: Record<string, unknown> = {}, labels: Record<string, string> = {}): unknown {
  return {
    apiVersion: 'v1', kind: 'Pod', metadata: { name, labels },
    spec: { containers: [{ name: 'app', image: 'nginx:1.25' }], terminationGracePeriodSeconds: 30, ...extra },
  };
}


describe('pod lifecycle', () => {
  let server: RunningServer;
  let url: string;
  before(async () => {
    server = await memoryServer();
    url = server.url;
    await mustOk(call(url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'pods-test' } } }), 201);
  });
  after(() => server.close());

  describe('graceful deletion', () => {
    it('deletes an unscheduled pod at once', async () => {
      await mustOk(call(url, 'POST', PODS, { body: pod('unbound') }), 201);
      const del = await mustOk(call(url, 'DELETE', `${PODS}/unbound`));
      assert.equal(del.json.kind, 'Pod');
      assert.equal((await call(url, 'GET', `${PODS}/unbound`)).status, 404);
    });

    it('keeps a pod on a node for its grace period, then removes it', async () => {
      await mustOk(call(url, 'POST', PODS, { body: pod('bound', { nodeName: 'node-1', terminationGracePeriodSeconds: 1 }) }), 201);
      const before = Date.now();
      const del = await mustOk(call(url, 'DELETE', `${PODS}/bound`));
      assert.equal(del.json.metadata.deletionGracePeriodSeconds, 1);
      const deadline = Date.parse(del.json.metadata.deletionTimestamp);
      assert.ok(deadline >= Math.floor(before / 1000) * 1000 + 1000 - 1000 && deadline <= Date.now() + 1000, del.json.metadata.deletionTimestamp);
      const still = await mustOk(call(url, 'GET', `${PODS}/bound`));
      assert.ok(still.json.metadata.deletionTimestamp);
      // A write may not clear the deletion mark.
      await until('pod removed', async () => (await call(url, 'GET', `${PODS}/bound`)).status === 404, 4000);
    });

    it('honors gracePeriodSeconds, only ever shortening, and 0 removes at once', async () => {
      await mustOk(call(url, 'POST', PODS, { body: pod('shorten', { nodeName: 'node-1', terminationGracePeriodSeconds: 600 }) }), 201);
      const first = await mustOk(call(url, 'DELETE', `${PODS}/shorten`, { body: { gracePeriodSeconds: 300 } }));
      assert.equal(first.json.metadata.deletionGracePeriodSeconds, 300);
      const longer = await mustOk(call(url, 'DELETE', `${PODS}/shorten?gracePeriodSeconds=500`));
      assert.equal(longer.json.metadata.deletionGracePeriodSeconds, 300, 'a longer grace does not extend');
      assert.equal(longer.json.metadata.resourceVersion, first.json.metadata.resourceVersion, 'nothing written');
      const shorter = await mustOk(call(url, 'DELETE', `${PODS}/shorten?gracePeriodSeconds=100`));
      assert.equal(shorter.json.metadata.deletionGracePeriodSeconds, 100);
      assert.equal(Date.parse(first.json.metadata.deletionTimestamp) - Date.parse(shorter.json.metadata.deletionTimestamp), 200_000);
      await mustOk(call(url, 'DELETE', `${PODS}/shorten?gracePeriodSeconds=0`));
      assert.equal((await call(url, 'GET', `${PODS}/shorten`)).status, 404);
    });

    it('a finished pod goes at once; a pod with finalizers stays with grace 0', async () => {
      await mustOk(call(url, 'POST', PODS, { body: pod('done', { nodeName: 'node-1' }) }), 201);
      await mustOk(call(url, 'PATCH', `${PODS}/done/status`, { body: { status: { phase: 'Succeeded' } }, headers: { 'Content-Type': 'application/merge-patch+json' } }));
      await mustOk(call(url, 'DELETE', `${PODS}/done`));
      assert.equal((await call(url, 'GET', `${PODS}/done`)).status, 404);

      const held = pod('held', { nodeName: 'node-1' }) as { metadata: Record<string, unknown> };
      held.metadata['finalizers'] = ['example.com/hold'];
      await mustOk(call(url, 'POST', PODS, { body: held }), 201);
      await mustOk(call(url, 'DELETE', `${PODS}/held?gracePeriodSeconds=0`));
      const got = await mustOk(call(url, 'GET', `${PODS}/held`));
      assert.equal(got.json.metadata.deletionGracePeriodSeconds, 0);
      await mustOk(call(url, 'PATCH', `${PODS}/held`, { body: { metadata: { finalizers: null } }, headers: { 'Content-Type': 'application/merge-patch+json' } }));
      assert.equal((await call(url, 'GET', `${PODS}/held`)).status, 404);
    });
  });

  describe('binding', () => {
    it('assigns a node once, with a PodScheduled condition, and refuses a second binding', async () => {
      await mustOk(call(url, 'POST', PODS, { body: pod('tobind') }), 201);
      const bound = await mustOk(call(url, 'POST', `${PODS}/tobind/binding`, {
        body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'tobind', annotations: { 'example.com/by': 'test' } }, target: { apiVersion: 'v1', kind: 'Node', name: 'node-7' } },
      }), 201);
      assert.deepEqual(bound.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
      const got = (await mustOk(call(url, 'GET', `${PODS}/tobind`))).json;
      assert.equal(got.spec.nodeName, 'node-7');
      assert.equal(got.metadata.annotations['example.com/by'], 'test');
      assert.deepEqual(got.status.conditions.map((c: { type: string; status: string }) => [c.type, c.status]), [['PodScheduled', 'True']]);
      const again = await call(url, 'POST', `${PODS}/tobind/binding`, { body: { metadata: { name: 'tobind' }, target: { name: 'node-8' } } });
      assert.equal(again.status, 409);
      assert.equal(again.json.message, 'Operation cannot be fulfilled on pods/binding "tobind": pod tobind is already assigned to node "node-7"');
      assert.equal((await mustOk(call(url, 'GET', `${PODS}/tobind`))).json.spec.nodeName, 'node-7');
    });

    it('the bindings collection binds the pod the Binding names', async () => {
      await mustOk(call(url, 'POST', PODS, { body: pod('viacollection') }), 201);
      await mustOk(call(url, 'POST', `${NS}/bindings`, { body: { metadata: { name: 'viacollection' }, target: { kind: 'Node', name: 'node-2' } } }), 201);
      assert.equal((await mustOk(call(url, 'GET', `${PODS}/viacollection`))).json.spec.nodeName, 'node-2');
      const missing = await call(url, 'POST', `${NS}/bindings`, { body: { metadata: { name: 'nope' }, target: { name: 'node-2' } } });
      assert.equal(missing.status, 404);
    });
  });

  describe('eviction', () => {
    const evict = (name: string) => call(url, 'POST', `${PODS}/${name}/eviction`, { body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: 'pods-test' } } });
    const running = async (name: string) => {
      await mustOk(call(url, 'POST', PODS, { body: pod(name, { nodeName: 'node-1', terminationGracePeriodSeconds: 0 }, { app: 'guarded' }) }), 201);
      await mustOk(call(url, 'PATCH', `${PODS}/${name}/status`, {
        body: { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } }, headers: { 'Content-Type': 'application/merge-patch+json' },
      }));
    };

    it('evicts a pod no budget covers', async () => {
      await mustOk(call(url, 'POST', PODS, { body: pod('free') }), 201);
      const r = await mustOk(evict('free'), 201);
      assert.deepEqual(r.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
      assert.equal((await call(url, 'GET', `${PODS}/free`)).status, 404);
    });

    it('allows what the budget allows, then answers 429', async () => {
      await running('g1');
      await running('g2');
      await mustOk(call(url, 'POST', '/apis/policy/v1/namespaces/pods-test/poddisruptionbudgets', {
        body: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'guard' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'guarded' } } } },
      }), 201);
      const status = await until('budget observed', async () => {
        const s = (await mustOk(call(url, 'GET', '/apis/policy/v1/namespaces/pods-test/poddisruptionbudgets/guard'))).json.status;
        return s?.observedGeneration === 1 && s.currentHealthy === 2 ? s : undefined;
      });
      assert.equal(status.disruptionsAllowed, 1);
      assert.equal(status.desiredHealthy, 1);
      assert.equal(status.expectedPods, 2);
      await mustOk(evict('g1'), 201);
      assert.equal((await call(url, 'GET', `${PODS}/g1`)).status, 404);
      // The disruption controller sees the pod gone.
      await until('pod gone from the budget', async () => (await mustOk(call(url, 'GET', '/apis/policy/v1/namespaces/pods-test/poddisruptionbudgets/guard'))).json.status.currentHealthy === 1);
      const refused = await evict('g2');
      assert.equal(refused.status, 429);
      assert.deepEqual(refused.json, {
        kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
        message: 'Cannot evict pod as it would violate the pod\'s disruption budget.', reason: 'TooManyRequests',
        details: { causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget guard needs 1 healthy pods and has 1 currently' }] }, code: 429,
      });
      assert.equal((await call(url, 'GET', `${PODS}/g2`)).status, 200, 'the pod stays');
    });

    it('a dry-run eviction deletes nothing and refuses a name mismatch', async () => {
      await mustOk(call(url, 'POST', PODS, { body: pod('dry') }), 201);
      await mustOk(call(url, 'POST', `${PODS}/dry/eviction?dryRun=All`, { body: { metadata: { name: 'dry' } } }), 201);
      assert.equal((await call(url, 'GET', `${PODS}/dry`)).status, 200);
      const mismatch = await call(url, 'POST', `${PODS}/dry/eviction`, { body: { metadata: { name: 'other' } } });
      assert.equal(mismatch.status, 400);
      assert.equal(mismatch.json.message, 'name in URL does not match name in Eviction object');
    });
  });

  describe('ephemeral containers', () => {
    it('adds one through the subresource; the rest of the pod stays', async () => {
      const created = (await mustOk(call(url, 'POST', PODS, { body: pod('debugme') }), 201)).json;
      const got = await mustOk(call(url, 'GET', `${PODS}/debugme/ephemeralcontainers`));
      assert.equal(got.json.kind, 'Pod');
      const patched = await mustOk(call(url, 'PATCH', `${PODS}/debugme/ephemeralcontainers`, {
        body: { spec: { ephemeralContainers: [{ name: 'debugger', image: 'busybox', stdin: true, tty: true, terminationMessagePolicy: 'File' }], containers: [{ name: 'sneaky', image: 'x' }] } },
        headers: { 'Content-Type': 'application/strategic-merge-patch+json' },
      }));
      assert.equal(patched.json.spec.ephemeralContainers[0].name, 'debugger');
      assert.deepEqual(patched.json.spec.containers.map((c: { name: string }) => c.name), created.spec.containers.map((c: { name: string }) => c.name));
      const entry = patched.json.metadata.managedFields.find((m: { subresource?: string }) => m.subresource === 'ephemeralcontainers');
      assert.ok(entry, 'the write is recorded for its subresource');
      const changed = await call(url, 'PATCH', `${PODS}/debugme/ephemeralcontainers`, {
        body: { spec: { ephemeralContainers: [{ name: 'debugger', image: 'alpine' }] } }, headers: { 'Content-Type': 'application/strategic-merge-patch+json' },
      });
      assert.equal(changed.status, 422);
      assert.equal(changed.json.message, 'Pod "debugme" is invalid: spec.ephemeralContainers: Forbidden: existing ephemeral containers "debugger" may not be changed\n');
      assert.equal((await mustOk(call(url, 'GET', `${PODS}/debugme`))).json.spec.ephemeralContainers[0].image, 'busybox');
    });
  });

  describe('node agent subresources without a node agent', () => {
    it('answers as the reference: empty logs, no host assigned, no endpoints', async () => {
      await mustOk(call(url, 'POST', PODS, { body: pod('agentless') }), 201);
      const log = await call(url, 'GET', `${PODS}/agentless/log`);
      assert.equal(log.status, 200);
      assert.equal(log.text, '');
      const badContainer = await call(url, 'GET', `${PODS}/agentless/log?container=nope`);
      assert.equal(badContainer.status, 400);
      assert.equal(badContainer.json.message, 'container nope is not valid for pod agentless');
      const exec = await call(url, 'POST', `${PODS}/agentless/exec?command=ls&stdout=true`);
      assert.equal(exec.status, 400);
      assert.equal(exec.json.message, 'pod agentless does not have a host assigned');
      const pf = await call(url, 'POST', `${PODS}/agentless/portforward`);
      assert.equal(pf.json.message, 'pod agentless does not have a host assigned');
      const proxy = await call(url, 'GET', `${PODS}/agentless/proxy/healthz`);
      assert.equal(proxy.status, 400);
      await mustOk(call(url, 'POST', `${NS}/services`, { body: { metadata: { name: 'web' }, spec: { ports: [{ port: 80 }], selector: { app: 'web' } } } }), 201);
      const svc = await call(url, 'GET', `${NS}/services/web/proxy/`);
      assert.equal(svc.status, 503);
      assert.equal(svc.json.message, 'no endpoints available for service "web"');
    });

    it('a pod on a node without an agent: the node must exist, and its agent cannot be reached', async () => {
      await mustOk(call(url, 'POST', PODS, { body: pod('onnode', { nodeName: 'ghost' }) }), 201);
      const missing = await call(url, 'GET', `${PODS}/onnode/log`);
      assert.equal(missing.status, 404);
      assert.equal(missing.json.message, 'nodes "ghost" not found');
      await mustOk(call(url, 'POST', '/api/v1/nodes', { body: { metadata: { name: 'ghost' } } }), 201);
      await mustOk(call(url, 'PATCH', '/api/v1/nodes/ghost/status', {
        body: { status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: 1 } } } },
        headers: { 'Content-Type': 'application/merge-patch+json' },
      }));
      const refused = await call(url, 'GET', `${PODS}/onnode/log`);
      assert.equal(refused.status, 500);
      assert.equal(refused.json.message, 'Get "https://127.0.0.1:1/containerLogs/pods-test/onnode/app": dial tcp 127.0.0.1:1: connect: connection refused');
    });
  });
});
