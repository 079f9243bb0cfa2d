// DaemonSets as kube-controller-manager runs them: a pod per eligible node (pinned by node
// affinity, with the daemon tolerations), none on a tainted node or one the selector leaves out,
// none without nodes; a rolling update; and the ttl annotation nodes get.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/server.js';
import { call, memoryServer, mustOk, sleep, until } from '../helpers.js';

const MERGE = { 'Content-Type': 'application/merge-patch+json' };
const APPS = '/apis/apps/v1/namespaces/default';

function daemonSet(name: string, spec: Record<string, unknown> = {}) {
  return {
    apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'agent', image: 'fluentd:v1.16' }], ...spec } },
    },
  };
}

interface Pod { metadata: { name: string; labels: Record<string, string> }; spec: Record<string, any>; status?: Record<string, unknown> }

describe('daemonset controller', { timeout: 60_000 }, () => {
  let server: RunningServer;
  const get = async (path: string) => call(server.url, 'GET', path);
  const podsOf = async (app: string): Promise<Pod[]> => (await mustOk(get(`/api/v1/namespaces/default/pods?labelSelector=app%3D${app}`))).json.items;
  const nodeOf = (pod: Pod) => pod.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].values[0];
  before(async () => {
    server = await memoryServer();
  });
  after(() => server.close());

  it('with no nodes makes no pods, and says so in its status', async () => {
    await mustOk(call(server.url, 'POST', `${APPS}/daemonsets`, { body: daemonSet('lonely') }), 201);
    const status = await until('status', async () => { const s = (await get(`${APPS}/daemonsets/lonely`)).json.status; return s.observedGeneration === 1 && s; });
    assert.deepEqual(status, { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0, observedGeneration: 1 });
    const revisions = (await get('/apis/apps/v1/namespaces/default/controllerrevisions')).json.items;
    assert.equal(revisions.length, 1);
    assert.equal(revisions[0].metadata.name, `lonely-${revisions[0].metadata.labels['controller-revision-hash']}`);
    assert.deepEqual(revisions[0].metadata.annotations, { 'deprecated.daemonset.template.generation': '1' });
    assert.equal((await podsOf('lonely')).length, 0);
  });

  it('puts one pod on each eligible node, none on a tainted one', async () => {
    for (const [name, extra] of [['node-a', {}], ['node-b', {}], ['node-tainted', { taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] }]] as const) {
      const node = await mustOk(call(server.url, 'POST', '/api/v1/nodes', { body: { metadata: { name, labels: { disk: name === 'node-b' ? 'ssd' : 'hdd' } }, spec: extra } }), 201);
      // Admission taints a new node not-ready (NoSchedule), which daemon pods do not tolerate; the
      // node lifecycle controller (off, as in the reference run) lifts it once the node is Ready.
      assert.ok(node.json.spec.taints.some((t: { key: string }) => t.key === 'node.kubernetes.io/not-ready'));
    }
    await sleep(200);
    assert.equal((await podsOf('lonely')).length, 0, 'no pods on not-ready nodes');
    for (const name of ['node-a', 'node-b', 'node-tainted']) {
      const taints = name === 'node-tainted' ? [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] : null;
      await mustOk(call(server.url, 'PATCH', `/api/v1/nodes/${name}`, { body: { spec: { taints } }, headers: MERGE }));
    }
    const pods = await until('two pods', async () => { const p = await podsOf('lonely'); return p.length === 2 && p; });
    assert.deepEqual(pods.map(nodeOf).sort(), ['node-a', 'node-b']);
    const pod = pods[0]!;
    assert.equal(pod.spec.nodeName, undefined);
    assert.equal(pod.metadata.labels['pod-template-generation'], '1');
    assert.ok(pod.metadata.labels['controller-revision-hash']);
    assert.deepEqual(pod.spec.tolerations.map((t: { key: string }) => t.key), [
      'node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable', 'node.kubernetes.io/disk-pressure',
      'node.kubernetes.io/memory-pressure', 'node.kubernetes.io/pid-pressure', 'node.kubernetes.io/unschedulable',
    ]);
    const status = await until('status', async () => { const s = (await get(`${APPS}/daemonsets/lonely`)).json.status; return s.currentNumberScheduled === 2 && s; });
    assert.equal(status.desiredNumberScheduled, 2);
    assert.equal(status.updatedNumberScheduled, 2);
    assert.equal(status.numberUnavailable, 2);
    await sleep(300);
    assert.equal((await podsOf('lonely')).length, 2, 'no more pods than nodes');
  });

  it('follows nodeSelector and tolerations', async () => {
    await mustOk(call(server.url, 'POST', `${APPS}/daemonsets`, { body: daemonSet('ssd-only', { nodeSelector: { disk: 'ssd' } }) }), 201);
    await mustOk(call(server.url, 'POST', `${APPS}/daemonsets`, { body: daemonSet('tolerant', { tolerations: [{ key: 'dedicated', operator: 'Exists' }] }) }), 201);
    const ssd = await until('ssd pod', async () => { const p = await podsOf('ssd-only'); return p.length === 1 && p; });
    assert.equal(nodeOf(ssd[0]!), 'node-b');
    const tolerant = await until('three pods', async () => { const p = await podsOf('tolerant'); return p.length === 3 && p; });
    assert.deepEqual(tolerant.map(nodeOf).sort(), ['node-a', 'node-b', 'node-tainted']);
  });

  it('rolls an update one unavailable pod at a time', async () => {
    for (const pod of await podsOf('lonely')) {
      await mustOk(call(server.url, 'PATCH', `/api/v1/namespaces/default/pods/${pod.metadata.name}/status`, {
        body: { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } }, headers: MERGE,
      }));
    }
    await until('ready', async () => (await get(`${APPS}/daemonsets/lonely`)).json.status.numberAvailable === 2);
    const oldHash = (await podsOf('lonely'))[0]!.metadata.labels['controller-revision-hash'];
    await mustOk(call(server.url, 'PATCH', `${APPS}/daemonsets/lonely`, {
      body: { spec: { template: { spec: { containers: [{ name: 'agent', image: 'fluentd:v1.17' }] } } } }, headers: MERGE,
    }));
    // One old pod goes (maxUnavailable 1), its node gets a new one; the other waits.
    const pods = await until('one new pod', async () => {
      const p = await podsOf('lonely');
      return p.some((x) => x.spec.containers[0].image === 'fluentd:v1.17') && p;
    });
    assert.equal(pods.filter((x) => x.metadata.labels['controller-revision-hash'] === oldHash).length, 1);
    assert.equal(pods.length, 2);
    const revisions = (await get('/apis/apps/v1/namespaces/default/controllerrevisions?labelSelector=app%3Dlonely')).json.items;
    assert.deepEqual(revisions.map((r: { revision: number }) => r.revision).sort(), [1, 2]);
  });

  it('annotates nodes with the ttl for a small cluster', async () => {
    const node = await until('ttl', async () => { const n = (await get('/api/v1/nodes/node-a')).json; return n.metadata.annotations?.['node.alpha.kubernetes.io/ttl'] && n; });
    assert.equal(node.metadata.annotations['node.alpha.kubernetes.io/ttl'], '0');
  });
});
