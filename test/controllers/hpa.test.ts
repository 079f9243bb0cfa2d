// The horizontalpodautoscaling controller without a metrics API: the reference's conditions and
// events, current replicas from the target's scale, the target brought within the bounds.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { defaultEnabled } from '../../src/api/catalog.js';
import { HorizontalPodAutoscalerController } from '../../src/controllers/hpa.js';
import { builtinResourceDefinitions } from '../../src/registry/builtin/index.js';
import { Registry } from '../../src/registry/store.js';
import type { RunningServer } from '../../src/server/server.js';
import { call, fixture, memoryServer, mustOk, sleep, until } from '../helpers.js';

const NS = '/apis/apps/v1/namespaces/default';
const HPA = '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers';
const TABLE = { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
const NO_METRICS = 'failed to get cpu utilization: unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: the server could not find the requested resource (get pods.metrics.k8s.io)';

describe('horizontalpodautoscaling without metrics', { timeout: 60_000 }, () => {
  let server: RunningServer;
  let controller: HorizontalPodAutoscalerController;

  async function deployment(name: string, replicas: number): Promise<void> {
    await mustOk(call(server.url, 'POST', `${NS}/deployments`, {
      body: { metadata: { name }, spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } },
    }), 201);
  }
  async function autoscaler(name: string, target: string, minReplicas: number, maxReplicas: number): Promise<void> {
    await mustOk(call(server.url, 'POST', HPA, {
      body: {
        metadata: { name },
        spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: target }, minReplicas, maxReplicas, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }] },
      },
    }), 201);
  }
  const get = async (name: string) => (await mustOk(call(server.url, 'GET', `${HPA}/${name}`))).json;
  const replicas = async (name: string) => (await mustOk(call(server.url, 'GET', `${NS}/deployments/${name}`))).json.spec.replicas;
  async function events(name: string): Promise<Array<{ reason: string; type: string; message: string; source: string }>> {
    const list = (await mustOk(call(server.url, 'GET', `/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3D${name}`))).json;
    return list.items.map((e: { reason: string; type: string; message: string; source: { component: string } }) => ({ reason: e.reason, type: e.type, message: e.message, source: e.source.component }));
  }
  const condition = (hpa: { status?: { conditions?: Array<{ type: string }> } }, type: string) => hpa.status?.conditions?.find((c) => c.type === type);

  before(async () => {
    // The server's own controller looks every 15 s; the tests run one that looks every 100 ms.
    server = await memoryServer({ controllers: ['*', '-horizontalpodautoscaling'] });
    controller = new HorizontalPodAutoscalerController(new Registry(builtinResourceDefinitions(defaultEnabled), server.storage), { syncPeriodMs: 100 });
    await controller.start();
  });
  after(async () => {
    controller.stop();
    await server.close();
  });

  it('within bounds: AbleToScale True, ScalingActive False for want of metrics, and the reference\'s events', async () => {
    await deployment('web', 2);
    await autoscaler('web', 'web', 1, 5);
    const hpa = await until('ScalingActive', async () => {
      const h = await get('web');
      return condition(h, 'ScalingActive') ? h : undefined;
    });
    assert.deepEqual(hpa.status.conditions.map(({ type, status, reason, message }: Record<string, string>) => ({ type, status, reason, message })), [
      { type: 'AbleToScale', status: 'True', reason: 'SucceededGetScale', message: "the HPA controller was able to get the target's current scale" },
      { type: 'ScalingActive', status: 'False', reason: 'FailedGetResourceMetric', message: `the HPA was unable to compute the replica count: ${NO_METRICS}` },
    ]);
    assert.equal(hpa.status.currentReplicas, 2);
    assert.equal(hpa.status.desiredReplicas, 0);
    assert.equal(hpa.status.currentMetrics, null);
    assert.equal(await replicas('web'), 2);
    const seen = await until('both events', async () => {
      const e = await events('web');
      return e.some((x) => x.reason === 'FailedComputeMetricsReplicas') ? e : undefined;
    });
    assert.deepEqual(seen.find((e) => e.reason === 'FailedGetResourceMetric'), { reason: 'FailedGetResourceMetric', type: 'Warning', message: NO_METRICS, source: 'horizontal-pod-autoscaler' });
    assert.deepEqual(seen.find((e) => e.reason === 'FailedComputeMetricsReplicas'), {
      reason: 'FailedComputeMetricsReplicas', type: 'Warning', message: `invalid metrics (1 invalid out of 1), first error is: ${NO_METRICS}`, source: 'horizontal-pod-autoscaler',
    });
    // kubectl's columns: the target unknown, replicas from the scale.
    const table = (await mustOk(call(server.url, 'GET', `${HPA}/web`, { headers: TABLE }))).json;
    assert.deepEqual(table.rows[0].cells.slice(0, 6), ['web', 'Deployment/web', '<unknown>/80%', '1', 5, 2]);
    // Nothing changes any more, so nothing is written however often it looks.
    const version = (await get('web')).metadata.resourceVersion;
    await sleep(600);
    assert.equal((await get('web')).metadata.resourceVersion, version);
  });

  it('below minReplicas, scales up to it; above maxReplicas, down to it', async () => {
    await deployment('small', 1);
    await deployment('large', 9);
    await autoscaler('small', 'small', 3, 5);
    await autoscaler('large', 'large', 1, 4);
    await until('scaled', async () => (await replicas('small')) === 3 && (await replicas('large')) === 4);
    const up = (await events('small')).find((e) => e.reason === 'SuccessfulRescale');
    assert.deepEqual(up, { reason: 'SuccessfulRescale', type: 'Normal', message: 'New size: 3; reason: Current number of replicas below Spec.MinReplicas', source: 'horizontal-pod-autoscaler' });
    const down = (await events('large')).find((e) => e.reason === 'SuccessfulRescale');
    assert.equal(down?.message, 'New size: 4; reason: Current number of replicas above Spec.MaxReplicas');
    const small = await until('next look', async () => {
      const h = await get('small');
      return h.status.currentReplicas === 3 ? h : undefined;
    });
    assert.ok(small.status.lastScaleTime);
    assert.equal(small.status.desiredReplicas, 3);
  });

  it('a target that is not there, or scaled to zero, is told as the reference tells it', async () => {
    await autoscaler('ghost', 'ghost', 1, 3);
    await deployment('off', 0);
    await autoscaler('off', 'off', 1, 3);
    const ghost = await until('FailedGetScale', async () => condition(await get('ghost'), 'AbleToScale'));
    assert.deepEqual({ ...ghost, lastTransitionTime: undefined }, {
      type: 'AbleToScale', status: 'False', lastTransitionTime: undefined, reason: 'FailedGetScale',
      message: 'the HPA controller was unable to get the target\'s current scale: deployments/scale.apps "ghost" not found',
    });
    assert.ok((await events('ghost')).some((e) => e.reason === 'FailedGetScale' && e.message === 'deployments/scale.apps "ghost" not found'));
    const off = await until('ScalingDisabled', async () => condition(await get('off'), 'ScalingActive'));
    assert.equal((off as unknown as { reason: string }).reason, 'ScalingDisabled');
    assert.equal(await replicas('off'), 0);
  });

  describe('in a server, as the reference recorded it', () => {
    let full: RunningServer;
    before(async () => {
      full = await memoryServer();
    });
    after(() => full.close());

    it('writes nothing in its first 15 seconds (the recorded table shows no status yet)', async () => {
      const created = fixture('create/autoscaling-v2-horizontalpodautoscalers');
      await mustOk(call(full.url, 'POST', `${NS}/deployments`, { body: fixture('create/apps-v1-deployments').request.body }), 201);
      await mustOk(call(full.url, 'POST', HPA, { body: created.request.body }), 201);
      await sleep(1500);
      const table = (await mustOk(call(full.url, 'GET', `${HPA}/nginx-v2`, { headers: TABLE }))).json;
      const reference = (fixture('table/autoscaling-v2-horizontalpodautoscalers').response.body as { rows: Array<{ cells: unknown[] }> }).rows.find((r) => r.cells[0] === 'nginx-v2')!;
      assert.deepEqual(table.rows[0].cells.slice(0, 6), reference.cells.slice(0, 6));
    });
  });
});
