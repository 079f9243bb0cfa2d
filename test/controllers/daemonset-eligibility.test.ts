// Which nodes a DaemonSet's pods belong on, as the reference decides: selectors, required node
// affinity, taints against the template's and the daemon tolerations.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { placement, targetNode, pinToNode, withDaemonTolerations } from '../../src/controllers/daemonset/eligibility.js';
import { rollingLimits } from '../../src/controllers/daemonset/update.js';
import type { JsonObject } from '../../src/json.js';

const node = (labels: Record<string, string>, taints: JsonObject[] = []): JsonObject => ({ metadata: { name: 'n1', labels }, spec: { taints } });
const template = (spec: JsonObject): JsonObject => ({ metadata: { labels: { app: 'a' } }, spec: { containers: [], ...spec } });

describe('daemon pod placement', { timeout: 5_000 }, () => {
  it('runs where nodeSelector and required affinity match', () => {
    assert.deepEqual(placement(template({ nodeSelector: { disk: 'ssd' } }), node({ disk: 'ssd' })), { shouldRun: true, shouldContinueRunning: true });
    assert.deepEqual(placement(template({ nodeSelector: { disk: 'ssd' } }), node({ disk: 'hdd' })), { shouldRun: false, shouldContinueRunning: false });
    const affinity = (operator: string, values?: string[]) => template({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator, ...(values ? { values } : {}) }] }] } } } });
    assert.equal(placement(affinity('In', ['a', 'b']), node({ zone: 'b' })).shouldRun, true);
    assert.equal(placement(affinity('NotIn', ['b']), node({ zone: 'b' })).shouldRun, false);
    assert.equal(placement(affinity('DoesNotExist'), node({})).shouldRun, true);
    assert.equal(placement(affinity('Gt', ['5']), node({ zone: '7' })).shouldRun, true);
    assert.equal(placement(template({ nodeName: 'other' }), node({})).shouldRun, false);
  });

  it('weighs taints: untolerated NoSchedule keeps running pods, NoExecute evicts them', () => {
    assert.deepEqual(placement(template({}), node({}, [{ key: 'k', value: 'v', effect: 'NoSchedule' }])), { shouldRun: false, shouldContinueRunning: true });
    assert.deepEqual(placement(template({}), node({}, [{ key: 'k', value: 'v', effect: 'NoExecute' }])), { shouldRun: false, shouldContinueRunning: false });
    assert.equal(placement(template({}), node({}, [{ key: 'k', effect: 'PreferNoSchedule' }])).shouldRun, true);
    assert.equal(placement(template({ tolerations: [{ key: 'k', operator: 'Equal', value: 'v' }] }), node({}, [{ key: 'k', value: 'v', effect: 'NoExecute' }])).shouldRun, true);
    assert.equal(placement(template({ tolerations: [{ operator: 'Exists' }] }), node({}, [{ key: 'x', effect: 'NoExecute' }])).shouldRun, true);
    // The daemon tolerations: an unschedulable or unreachable node keeps its daemon pod.
    assert.equal(placement(template({}), node({}, [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }])).shouldRun, true);
    assert.equal(placement(template({}), node({}, [{ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' }])).shouldRun, true);
    // A new node's not-ready NoSchedule taint is not among them.
    assert.deepEqual(placement(template({}), node({}, [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }])), { shouldRun: false, shouldContinueRunning: true });
  });

  it('adds network-unavailable for host-network pods and pins pods by node affinity', () => {
    assert.equal(withDaemonTolerations({ hostNetwork: true }).at(-1)!['key'], 'node.kubernetes.io/network-unavailable');
    const spec: JsonObject = { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'a', operator: 'Exists' }] }] } } } };
    pinToNode(spec, 'n7');
    assert.equal(targetNode({ spec }), 'n7');
    assert.deepEqual((spec['affinity'] as any).nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms, [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n7'] }] }]);
  });

  it('scales rolling update limits, percentages rounded up, never both zero', () => {
    const ds = (rollingUpdate: JsonObject): JsonObject => ({ spec: { updateStrategy: { type: 'RollingUpdate', rollingUpdate } } });
    assert.deepEqual(rollingLimits(ds({ maxUnavailable: '10%', maxSurge: 0 }), 15), { maxSurge: 0, maxUnavailable: 2 });
    assert.deepEqual(rollingLimits(ds({ maxUnavailable: 0, maxSurge: '0%' }), 15), { maxSurge: 0, maxUnavailable: 1 });
    assert.deepEqual(rollingLimits(ds({ maxUnavailable: 0, maxSurge: '20%' }), 9), { maxSurge: 2, maxUnavailable: 0 });
  });
});
