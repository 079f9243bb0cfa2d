// HorizontalPodAutoscaler between autoscaling/v1 and v2, as the reference converts: what v1 cannot
// hold travels in annotations, so a round trip loses nothing; over HTTP, one stored object read and
// written through every served version.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { convertHorizontalPodAutoscaler } from '../../src/api/conversion/autoscaling.js';
import type { JsonObject } from '../../src/json.js';
import type { RunningServer } from '../../src/server/server.js';
import { call, memoryServer, mustOk } from '../helpers.js';

const testdata = (name: string): JsonObject => JSON.parse(readFileSync(new URL(`../../../test/fixtures/k8s-1.25/testdata/${name}`, import.meta.url), 'utf8')) as JsonObject;

const selector = { matchLabels: { app: 'web' } };

/** A v2 HPA using every metric kind, behavior, current metrics and conditions. */
function richV2(): JsonObject {
  return {
    apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'web', namespace: 'default', annotations: { team: 'a' } },
    spec: {
      scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' },
      minReplicas: 2, maxReplicas: 10,
      metrics: [
        { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '500Mi' } } },
        { type: 'Pods', pods: { metric: { name: 'qps', selector }, target: { type: 'AverageValue', averageValue: '10' } } },
        { type: 'Object', object: { describedObject: { kind: 'Ingress', name: 'main', apiVersion: 'networking.k8s.io/v1' }, target: { type: 'Value', value: '2k' }, metric: { name: 'requests' } } },
        { type: 'External', external: { metric: { name: 'queue', selector }, target: { type: 'AverageValue', averageValue: '30' } } },
        { type: 'ContainerResource', containerResource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 }, container: 'app' } },
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 75 } } },
      ],
      behavior: {
        scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }] },
        scaleDown: { selectPolicy: 'Min', policies: [{ type: 'Percent', value: 10, periodSeconds: 60 }] },
      },
    },
    status: {
      observedGeneration: 3, lastScaleTime: '2026-01-01T00:00:00Z', currentReplicas: 4, desiredReplicas: 5,
      currentMetrics: [
        { type: 'Resource', resource: { name: 'cpu', current: { averageValue: '120m', averageUtilization: 80 } } },
        { type: 'Pods', pods: { metric: { name: 'qps', selector }, current: { averageValue: '12' } } },
      ],
      conditions: [{ type: 'AbleToScale', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'ReadyForNewScale', message: 'recommended size matches current size' }],
    },
  };
}

describe('HorizontalPodAutoscaler conversion', { timeout: 10_000 }, () => {
  it('v2 → v1 keeps the CPU target in its field and the rest in the annotations, and back loses nothing', () => {
    const v2 = richV2();
    const v1 = convertHorizontalPodAutoscaler(v2, 'v2', 'v1');
    assert.deepEqual(v1['spec'], { scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' }, minReplicas: 2, maxReplicas: 10, targetCPUUtilizationPercentage: 75 });
    assert.deepEqual(v1['status'], { observedGeneration: 3, lastScaleTime: '2026-01-01T00:00:00Z', currentReplicas: 4, desiredReplicas: 5, currentCPUUtilizationPercentage: 80 });
    const annotations = (v1['metadata'] as { annotations: Record<string, string> }).annotations;
    assert.equal(annotations['team'], 'a');
    assert.equal(
      annotations['autoscaling.alpha.kubernetes.io/metrics'],
      '[{"type":"Resource","resource":{"name":"memory","targetAverageValue":"500Mi"}},{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"10","selector":{"matchLabels":{"app":"web"}}}},' +
        '{"type":"Object","object":{"target":{"kind":"Ingress","name":"main","apiVersion":"networking.k8s.io/v1"},"metricName":"requests","targetValue":"2k"}},' +
        '{"type":"External","external":{"metricName":"queue","metricSelector":{"matchLabels":{"app":"web"}},"targetAverageValue":"30"}},' +
        '{"type":"ContainerResource","containerResource":{"name":"cpu","targetAverageUtilization":60,"container":"app"}}]',
    );
    assert.equal(annotations['autoscaling.alpha.kubernetes.io/current-metrics'], '[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":80,"currentAverageValue":"120m"}},{"type":"Pods","pods":{"metricName":"qps","currentAverageValue":"12","selector":{"matchLabels":{"app":"web"}}}}]');
    assert.equal(annotations['autoscaling.alpha.kubernetes.io/conditions'], '[{"type":"AbleToScale","status":"True","lastTransitionTime":"2026-01-01T00:00:00Z","reason":"ReadyForNewScale","message":"recommended size matches current size"}]');
    // The reference marshals its internal type here: Go's field names, nulls for what is unset.
    assert.equal(annotations['autoscaling.alpha.kubernetes.io/behavior'], '{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15}]},"ScaleDown":{"StabilizationWindowSeconds":null,"SelectPolicy":"Min","Policies":[{"Type":"Percent","Value":10,"PeriodSeconds":60}]}}');
    // Back to v2: the annotated metrics first, then the CPU one; the annotations gone.
    const back = convertHorizontalPodAutoscaler(v1, 'v1', 'v2');
    const spec = v2['spec'] as { metrics: unknown[] };
    assert.deepEqual(back, { ...v2, spec: { ...spec, metrics: [...spec.metrics.slice(0, 4), spec.metrics[4], spec.metrics[5]] } });
  });

  it("round-trips the upstream v1 object through v2 as the reference does (the CPU value's raw status kept in an annotation)", () => {
    const v1 = testdata('autoscaling.v1.HorizontalPodAutoscaler.json');
    const v2 = convertHorizontalPodAutoscaler(v1, 'v1', 'v2');
    assert.deepEqual((v2['spec'] as JsonObject)['metrics'], [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 4 } } }]);
    assert.deepEqual((v2['status'] as JsonObject)['currentMetrics'], [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 5 } } }]);
    const again = convertHorizontalPodAutoscaler(v2, 'v2', 'v1');
    assert.deepEqual(again['spec'], v1['spec']);
    assert.deepEqual(again['status'], v1['status']);
    assert.deepEqual((again['metadata'] as JsonObject)['annotations'], {
      annotationsKey: 'annotationsValue',
      'autoscaling.alpha.kubernetes.io/current-metrics': '[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":5,"currentAverageValue":"0"}}]',
    });
    // Read again as v2, the annotation gives the same current metrics.
    assert.deepEqual(convertHorizontalPodAutoscaler(again, 'v1', 'v2')['status'], { ...(v2['status'] as JsonObject), currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageValue: '0', averageUtilization: 5 } } }] });
  });

  it('v2 and v2beta2 share a shape; annotations v1 left behind never reach them', () => {
    const v2beta2 = testdata('autoscaling.v2beta2.HorizontalPodAutoscaler.json');
    const v2 = convertHorizontalPodAutoscaler(v2beta2, 'v2beta2', 'v2');
    assert.deepEqual(v2['spec'], v2beta2['spec']);
    const stale = { ...richV2(), metadata: { name: 'x', annotations: { 'autoscaling.alpha.kubernetes.io/metrics': '[]', keep: 'me' } } };
    assert.deepEqual((convertHorizontalPodAutoscaler(stale, 'v2beta2', 'v2')['metadata'] as JsonObject)['annotations'], { keep: 'me' });
    // An annotation that does not parse is ignored, as the reference ignores it.
    const broken = { ...testdata('autoscaling.v1.HorizontalPodAutoscaler.json'), metadata: { name: 'b', annotations: { 'autoscaling.alpha.kubernetes.io/metrics': 'abc' } } };
    assert.deepEqual((convertHorizontalPodAutoscaler(broken, 'v1', 'v2')['spec'] as JsonObject)['metrics'], [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 4 } } }]);
  });
});

describe('one HorizontalPodAutoscaler through every served version over HTTP', { timeout: 20_000 }, () => {
  let server: RunningServer;
  before(async () => {
    server = await memoryServer();
  });
  after(async () => {
    await server.close();
  });
  const path = (version: string, name = '') => `/apis/autoscaling/${version}/namespaces/default/horizontalpodautoscalers${name ? `/${name}` : ''}`;

  it('written as v2, read and rewritten as v1, read again as v2 unchanged', async () => {
    const { status: _status, ...v2 } = richV2();
    await mustOk(call(server.url, 'POST', path('v2'), { body: v2 }), 201);
    const asV1 = (await mustOk(call(server.url, 'GET', path('v1', 'web')))).json as JsonObject;
    assert.equal((asV1['spec'] as JsonObject)['targetCPUUtilizationPercentage'], 75);
    assert.ok(((asV1['metadata'] as JsonObject)['annotations'] as Record<string, string>)['autoscaling.alpha.kubernetes.io/metrics']?.includes('"memory"'));
    // A v1 client changes what it knows and writes the whole object back.
    (asV1['spec'] as JsonObject)['maxReplicas'] = 12;
    await mustOk(call(server.url, 'PUT', path('v1', 'web'), { body: asV1 }));
    const asV2 = (await mustOk(call(server.url, 'GET', path('v2', 'web')))).json as JsonObject;
    const spec = v2['spec'] as { metrics: unknown[] };
    assert.deepEqual(asV2['spec'], { ...spec, maxReplicas: 12, metrics: spec.metrics });
    assert.deepEqual((asV2['metadata'] as JsonObject)['annotations'], { team: 'a' });
    const asBeta = (await mustOk(call(server.url, 'GET', path('v2beta2', 'web')))).json as JsonObject;
    assert.deepEqual(asBeta['spec'], asV2['spec']);
    // A list through v1 converts each item too.
    const list = (await mustOk(call(server.url, 'GET', path('v1')))).json as { items: JsonObject[] };
    assert.equal((list.items[0]!['spec'] as JsonObject)['targetCPUUtilizationPercentage'], 75);
  });

  it('written as v1 with a CPU target, read as v2 with the metric', async () => {
    const v1 = { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'old' }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'old', apiVersion: 'apps/v1' }, maxReplicas: 3, targetCPUUtilizationPercentage: 50 } };
    const created = (await mustOk(call(server.url, 'POST', path('v1'), { body: v1 }), 201)).json as JsonObject;
    assert.deepEqual(created['spec'], { ...v1.spec, minReplicas: 1 });
    assert.equal((created['metadata'] as JsonObject)['annotations'], undefined);
    const asV2 = (await mustOk(call(server.url, 'GET', path('v2', 'old')))).json as JsonObject;
    assert.deepEqual((asV2['spec'] as JsonObject)['metrics'], [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }]);
  });
});
