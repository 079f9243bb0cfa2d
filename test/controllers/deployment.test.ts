// Deployments roll out as kube-controller-manager's deployment controller does: a ReplicaSet named
// by the template hash with the revision and replica annotations, ScalingReplicaSet events, the
// Available and Progressing conditions and the counts, RollingUpdate within maxSurge and
// maxUnavailable, Recreate, rollback to an old template, pause and resume, the progress deadline
// and revisionHistoryLimit.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/server.js';
import { call, memoryServer, mustOk, sleep, until } from '../helpers.js';

const MERGE = { 'Content-Type': 'application/merge-patch+json' };

function deployment(name: string, replicas: number, image: string, extra: Record<string, unknown> = {}): unknown {
  return {
    metadata: { name },
    spec: {
      replicas, selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image }] } },
      ...extra,
    },
  };
}

describe('deployment controller', { timeout: 90_000 }, () => {
  let server: RunningServer;
  let ns = '';
  const get = async (path: string) => (await mustOk(call(server.url, 'GET', path))).json;
  const apps = () => `/apis/apps/v1/namespaces/${ns}`;
  const core = () => `/api/v1/namespaces/${ns}`;
  const replicaSets = async () => ((await get(`${apps()}/replicasets`)).items as any[]).sort((a, b) => Number(a.metadata.annotations['deployment.kubernetes.io/revision']) - Number(b.metadata.annotations['deployment.kubernetes.io/revision']));
  const livePods = async () => ((await get(`${core()}/pods`)).items as any[]).filter((p) => !p.metadata.deletionTimestamp);
  const events = async () => ((await get(`${core()}/events`)).items as any[]);
  /** Stands in for a kubelet: every pod not yet ready turns Running and Ready. */
  const readyAll = async () => {
    for (const p of await livePods()) {
      if (p.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True')) continue;
      await call(server.url, 'PATCH', `${core()}/pods/${p.metadata.name}/status`, {
        headers: MERGE, body: { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date().toISOString() }] } },
      });
    }
  };
  /** Keeps marking pods ready until the deployment is complete. */
  const rollToCompletion = async (name: string) => until(`${name} complete`, async () => {
    await readyAll();
    const d = await get(`${apps()}/deployments/${name}`);
    const s = d.status ?? {};
    return s.observedGeneration === d.metadata.generation && s.updatedReplicas === d.spec.replicas && s.replicas === d.spec.replicas && s.availableReplicas === d.spec.replicas && d;
  }, 30_000, 100);
  let count = 0;
  const namespace = async () => {
    ns = `d${++count}`;
    await mustOk(call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } }), 201);
  };

  before(async () => {
    server = await memoryServer();
  });
  after(() => server.close());

  it('creates a ReplicaSet named by the template hash with the annotations, events and status of the reference', async () => {
    await namespace();
    await mustOk(call(server.url, 'POST', `${apps()}/deployments`, { body: deployment('nginx', 1, 'nginx') }), 201);
    const [rs] = await until('one ReplicaSet', async () => {
      const l = await replicaSets();
      return l.length === 1 && l;
    });
    const hash = rs.metadata.labels['pod-template-hash'];
    assert.equal(rs.metadata.name, `nginx-${hash}`);
    assert.deepEqual(rs.metadata.annotations, {
      'deployment.kubernetes.io/desired-replicas': '1', 'deployment.kubernetes.io/max-replicas': '2', 'deployment.kubernetes.io/revision': '1',
    });
    assert.deepEqual(rs.spec.selector, { matchLabels: { app: 'nginx', 'pod-template-hash': hash } });
    assert.equal(rs.spec.template.metadata.labels['pod-template-hash'], hash);
    assert.equal(rs.metadata.ownerReferences[0].kind, 'Deployment');
    const d = await until('status', async () => {
      const x = await get(`${apps()}/deployments/nginx`);
      return x.status?.replicas === 1 && x.status.conditions?.length === 2 && x;
    });
    assert.equal(d.metadata.annotations['deployment.kubernetes.io/revision'], '1');
    assert.equal(d.metadata.generation, 1);
    assert.deepEqual({ ...d.status, conditions: undefined }, { observedGeneration: 1, replicas: 1, updatedReplicas: 1, unavailableReplicas: 1, conditions: undefined });
    const byType = Object.fromEntries(d.status.conditions.map((c: any) => [c.type, c]));
    assert.deepEqual([byType.Available.status, byType.Available.reason, byType.Available.message], ['False', 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.']);
    assert.deepEqual([byType.Progressing.status, byType.Progressing.reason], ['True', 'ReplicaSetUpdated']);
    assert.equal(byType.Progressing.message, `ReplicaSet "nginx-${hash}" is progressing.`);
    const scaling = (await events()).filter((e) => e.reason === 'ScalingReplicaSet');
    assert.deepEqual(scaling.map((e) => [e.message, e.source.component, e.involvedObject.kind]), [[`Scaled up replica set nginx-${hash} to 1`, 'deployment-controller', 'Deployment']]);
    const done = await rollToCompletion('nginx');
    const progressing = done.status.conditions.find((c: any) => c.type === 'Progressing');
    assert.deepEqual([progressing.reason, progressing.message], ['NewReplicaSetAvailable', `ReplicaSet "nginx-${hash}" has successfully progressed.`]);
    assert.equal(done.status.conditions.find((c: any) => c.type === 'Available').reason, 'MinimumReplicasAvailable');
  });

  it('rolls a new template out within maxSurge and maxUnavailable, then rolls back to the old one', async () => {
    await namespace();
    await mustOk(call(server.url, 'POST', `${apps()}/deployments`, { body: deployment('web', 4, 'nginx:1', { revisionHistoryLimit: 5 }) }), 201);
    await rollToCompletion('web');
    await mustOk(call(server.url, 'PATCH', `${apps()}/deployments/web`, { headers: MERGE, body: { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } } } }));
    // 25% of 4: surge 1, unavailable 1 — never more than 5 pods asked for, never fewer than 3 available.
    let maxTotal = 0;
    await until('rolled to nginx:2', async () => {
      const l = await replicaSets();
      maxTotal = Math.max(maxTotal, l.reduce((n, r) => n + r.spec.replicas, 0));
      await readyAll();
      const d = await get(`${apps()}/deployments/web`);
      return l.length === 2 && l[1].spec.replicas === 4 && l[0].spec.replicas === 0 && d.status?.updatedReplicas === 4 && d.status.availableReplicas === 4 && d.status.replicas === 4;
    }, 30_000, 50);
    assert.ok(maxTotal <= 5, `at most replicas + maxSurge asked for (${maxTotal})`);
    const [old, current] = await replicaSets();
    assert.equal(current.metadata.annotations['deployment.kubernetes.io/revision'], '2');
    assert.equal(current.spec.template.spec.containers[0].image, 'nginx:2');
    const messages = (await events()).filter((e) => e.reason === 'ScalingReplicaSet').map((e) => e.message);
    assert.ok(messages.includes(`Scaled down replica set ${old.metadata.name} to 0`), messages.join('\n'));
    // Rollback as kubectl 1.27+ does it: the old ReplicaSet's template (without the hash label) put back.
    const template = structuredClone(old.spec.template);
    delete template.metadata.labels['pod-template-hash'];
    await mustOk(call(server.url, 'PATCH', `${apps()}/deployments/web`, { headers: { 'Content-Type': 'application/json-patch+json' }, body: [{ op: 'replace', path: '/spec/template', value: template }] }));
    await until('rolled back', async () => {
      await readyAll();
      const l = await replicaSets();
      return l.length === 2 && l[1].metadata.name === old.metadata.name && l[1].spec.replicas === 4 && l[0].spec.replicas === 0;
    }, 30_000, 50);
    const back = (await replicaSets()).find((r) => r.metadata.name === old.metadata.name);
    assert.equal(back.metadata.annotations['deployment.kubernetes.io/revision'], '3');
    assert.equal(back.metadata.annotations['deployment.kubernetes.io/revision-history'], '1');
    await until('deployment revision 3', async () => (await get(`${apps()}/deployments/web`)).metadata.annotations['deployment.kubernetes.io/revision'] === '3');
  });

  it('Recreate scales the old ReplicaSet to zero before the new one comes up', async () => {
    await namespace();
    await mustOk(call(server.url, 'POST', `${apps()}/deployments`, { body: deployment('re', 2, 'nginx:1', { strategy: { type: 'Recreate' } }) }), 201);
    await rollToCompletion('re');
    await mustOk(call(server.url, 'PATCH', `${apps()}/deployments/re`, { headers: MERGE, body: { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } } } }));
    await until('recreated', async () => {
      const l = await replicaSets();
      if (l.length === 2 && l[1].spec.replicas > 0) assert.equal(l[0].status?.replicas ?? 0, 0, 'new pods only once the old are gone');
      return l.length === 2 && l[1].spec.replicas === 2 && l[0].spec.replicas === 0;
    }, 20_000, 20);
  });

  it('pause holds the rollout and says so; scaling while paused is proportional; resume rolls on', async () => {
    await namespace();
    await mustOk(call(server.url, 'POST', `${apps()}/deployments`, { body: deployment('p', 2, 'nginx:1') }), 201);
    await rollToCompletion('p');
    await mustOk(call(server.url, 'PATCH', `${apps()}/deployments/p`, { headers: MERGE, body: { spec: { paused: true } } }));
    const paused = await until('paused condition', async () => {
      const d = await get(`${apps()}/deployments/p`);
      const c = d.status?.conditions?.find((x: any) => x.type === 'Progressing');
      return c?.reason === 'DeploymentPaused' && c;
    });
    assert.deepEqual([paused.status, paused.message], ['Unknown', 'Deployment is paused']);
    await mustOk(call(server.url, 'PATCH', `${apps()}/deployments/p`, { headers: MERGE, body: { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } } } }));
    await mustOk(call(server.url, 'PATCH', `${apps()}/deployments/p`, { headers: MERGE, body: { spec: { replicas: 3 } } }));
    await until('scaled while paused, no new ReplicaSet', async () => {
      const l = await replicaSets();
      return l.length === 1 && l[0].spec.replicas === 3 && l[0].metadata.annotations['deployment.kubernetes.io/desired-replicas'] === '3';
    });
    await mustOk(call(server.url, 'PATCH', `${apps()}/deployments/p`, { headers: MERGE, body: { spec: { paused: false } } }));
    await rollToCompletion('p');
    const l = await replicaSets();
    assert.equal(l.length, 2);
    assert.equal(l[1].spec.template.spec.containers[0].image, 'nginx:2');
  });

  it('a rollout that makes no progress within progressDeadlineSeconds is ProgressDeadlineExceeded', async () => {
    await namespace();
    await mustOk(call(server.url, 'POST', `${apps()}/deployments`, { body: deployment('slow', 1, 'nginx', { progressDeadlineSeconds: 1 }) }), 201);
    const cond = await until('deadline exceeded', async () => {
      const d = await get(`${apps()}/deployments/slow`);
      const c = d.status?.conditions?.find((x: any) => x.type === 'Progressing');
      return c?.reason === 'ProgressDeadlineExceeded' && c;
    }, 15_000, 100);
    assert.equal(cond.status, 'False');
    assert.match(cond.message, /^ReplicaSet "slow-[a-z0-9]+" has timed out progressing\.$/);
  });

  it('keeps at most revisionHistoryLimit old ReplicaSets', async () => {
    await namespace();
    await mustOk(call(server.url, 'POST', `${apps()}/deployments`, { body: deployment('h', 1, 'nginx:0', { revisionHistoryLimit: 1 }) }), 201);
    for (let i = 1; i <= 3; i++) {
      await rollToCompletion('h');
      await mustOk(call(server.url, 'PATCH', `${apps()}/deployments/h`, { headers: MERGE, body: { spec: { template: { spec: { containers: [{ name: 'c', image: `nginx:${i}` }] } } } } }));
    }
    await rollToCompletion('h');
    const l = await until('two ReplicaSets left', async () => {
      const x = await replicaSets();
      return x.length === 2 && x;
    });
    assert.deepEqual(l.map((r) => r.metadata.annotations['deployment.kubernetes.io/revision']), ['3', '4']);
  });

  it('two Deployments with the same selector and template keep their own ReplicaSets and pods and stop writing', async () => {
    await namespace();
    await mustOk(call(server.url, 'POST', `${apps()}/deployments`, { body: { ...(deployment('twin', 2, 'nginx') as any), metadata: { name: 'left' } } }), 201);
    await mustOk(call(server.url, 'POST', `${apps()}/deployments`, { body: { ...(deployment('twin', 2, 'nginx') as any), metadata: { name: 'right' } } }), 201);
    await rollToCompletion('left');
    await rollToCompletion('right');
    const versions = async () => {
      const all = [...(await get(`${apps()}/deployments`)).items, ...(await get(`${apps()}/replicasets`)).items, ...(await get(`${core()}/pods`)).items] as any[];
      return all.map((o) => `${o.kind ?? ''}${o.metadata.name}@${o.metadata.resourceVersion}`).sort();
    };
    await sleep(300);
    const before = await versions();
    await sleep(3000);
    assert.deepEqual(await versions(), before, 'nothing written once both are complete');
    const rsOwners = ((await get(`${apps()}/replicasets`)).items as any[]).map((r) => r.metadata.ownerReferences[0].name).sort();
    assert.deepEqual(rsOwners, ['left', 'right']);
    const podOwners = ((await get(`${core()}/pods`)).items as any[]).map((p) => p.metadata.ownerReferences.length);
    assert.deepEqual(podOwners, [1, 1, 1, 1]);
  });

  it('a ReplicaSet refused pods by quota shows as ReplicaFailure on its Deployment', async () => {
    await namespace();
    await mustOk(call(server.url, 'POST', `${core()}/resourcequotas`, { body: { metadata: { name: 'q' }, spec: { hard: { pods: '1' } } } }), 201);
    await until('quota status', async () => (await get(`${core()}/resourcequotas/q`)).status?.hard?.pods === '1');
    await mustOk(call(server.url, 'POST', `${apps()}/deployments`, { body: deployment('capped', 2, 'nginx') }), 201);
    const cond = await until('ReplicaFailure', async () => {
      const d = await get(`${apps()}/deployments/capped`);
      return d.status?.conditions?.find((c: any) => c.type === 'ReplicaFailure');
    }, 15_000);
    assert.deepEqual([cond.status, cond.reason], ['True', 'FailedCreate']);
    assert.match(cond.message, /exceeded quota: q/);
    assert.equal((await livePods()).length, 1);
  });
});
