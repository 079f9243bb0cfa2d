// A quota's usage measured from its namespace's objects, as the quota controller records it in
// status.used: every limited resource some evaluator measures (zero when nothing is charged), in the
// quota's scopes, with terminal pods counted by count/pods only; an unserved resource left unknown.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Evaluator } from '../../src/quota/evaluators.js';
import { mask, resourceListJson, resourceListOf } from '../../src/quota/resource-list.js';
import { measureUsage } from '../../src/quota/usage.js';
import type { JsonObject } from '../../src/json.js';
import { builtinEvaluators } from '../helpers.js';

const LIMIT = { timeout: 5_000 };
const NOW = Date.parse('2024-05-01T12:00:00Z');

const pod = (name: string, requests: Record<string, string> = {}, extra: JsonObject = {}): JsonObject =>
  ({ metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests } }] }, ...extra });

/** What the controller records: the measured usage of the quota's hard resources. */
function recorded(quota: JsonObject, objects: Record<string, JsonObject[]>): Record<string, string> {
  const hard = resourceListOf((quota['status'] as JsonObject)['hard']);
  const measured = measureUsage(quota, hard, builtinEvaluators(), (e: Evaluator) => objects[e.resource], NOW);
  return resourceListJson(mask(measured, hard.keys()));
}

const quota = (hard: Record<string, string>, spec: JsonObject = {}): JsonObject => ({ metadata: { name: 'q' }, spec: { hard, ...spec }, status: { hard } });

describe('quota usage', () => {
  it('sums what every object charges; a terminal pod counts for count/pods only', LIMIT, () => {
    const q = quota({ pods: '10', 'count/pods': '10', 'requests.cpu': '2', 'count/configmaps': '5', 'services.nodeports': '3' });
    const objects = {
      pods: [pod('a', { cpu: '250m' }), pod('b', { cpu: '1' }, { status: { phase: 'Succeeded' } }), pod('c', { cpu: '500m' })],
      configmaps: [{ metadata: { name: 'one' } }, { metadata: { name: 'two' } }],
      services: [{ metadata: { name: 's' }, spec: { type: 'NodePort', ports: [{ port: 80 }, { port: 443 }] } }],
    };
    assert.deepEqual(recorded(q, objects), { pods: '2', 'count/pods': '3', 'requests.cpu': '750m', 'count/configmaps': '2', 'services.nodeports': '2' });
  });

  it('records zero for what nothing charges', LIMIT, () => {
    assert.deepEqual(recorded(quota({ pods: '5', 'count/secrets': '3', 'requests.memory': '1Gi' }), { pods: [], secrets: [] }), {
      pods: '0', 'count/secrets': '0', 'requests.memory': '0',
    });
  });

  it('leaves unknown what it cannot list, and what no evaluator measures', LIMIT, () => {
    const q = quota({ pods: '5', 'requests.storage': '10Gi', 'example.com/widgets': '1' });
    assert.deepEqual(recorded(q, { pods: [pod('a')] }), { pods: '1' });
  });

  it('counts only the pods in the quota\'s scopes', LIMIT, () => {
    const deadline = pod('deadline');
    const pods = [pod('best-effort'), pod('burstable', { memory: '64Mi' }), { ...deadline, spec: { ...(deadline['spec'] as JsonObject), activeDeadlineSeconds: 60 } },
      pod('ended', { memory: '1Gi' }, { status: { phase: 'Failed' } })];
    assert.deepEqual(recorded(quota({ pods: '5', 'count/pods': '5' }, { scopes: ['NotBestEffort'] }), { pods }), { pods: '1', 'count/pods': '2' }); // the failed pod counts by count/pods only
    assert.deepEqual(recorded(quota({ pods: '5' }, { scopes: ['BestEffort', 'NotTerminating'] }), { pods }), { pods: '1' });
    assert.deepEqual(recorded(quota({ pods: '5' }, { scopes: ['Terminating'] }), { pods }), { pods: '1' });
  });

  it('stops charging a deleted pod once its grace period is over', LIMIT, () => {
    const deleted = pod('going', { cpu: '1' });
    deleted['metadata'] = { name: 'going', deletionTimestamp: new Date(NOW - 60_000).toISOString(), deletionGracePeriodSeconds: 30 };
    const graceful = pod('graceful', { cpu: '1' });
    graceful['metadata'] = { name: 'graceful', deletionTimestamp: new Date(NOW - 10_000).toISOString(), deletionGracePeriodSeconds: 30 };
    assert.deepEqual(recorded(quota({ pods: '5', 'count/pods': '5', 'requests.cpu': '4' }), { pods: [deleted, graceful] }), {
      pods: '1', 'count/pods': '2', 'requests.cpu': '1',
    });
  });
});
