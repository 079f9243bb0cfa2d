// One write checked against a namespace's quotas, as the reference's quota admission does: the
// quotas that track what the object charges get its usage (on update, only what grew); a quota
// that would go past a hard limit, lacks usage for what it tracks, or needs explicit cpu or memory
// refuses the write with the reference's message.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkRequest, nameOf, QuotaRefusal, type Charge, type QuotaRequest } from '../../src/quota/check.js';
import type { Evaluator } from '../../src/quota/evaluators.js';
import { builtinHooks } from '../helpers.js';
import { resourceListJson } from '../../src/quota/resource-list.js';
import type { JsonObject } from '../../src/json.js';

const LIMIT = { timeout: 5_000 };
const NOW = Date.parse('2024-05-01T12:00:00Z');

const pods = builtinHooks('', 'pods').quota!;
const claims = builtinHooks('', 'persistentvolumeclaims').quota!;

/** A quota as the controller has recorded it (status.hard and status.used). */
function quota(name: string, hard: Record<string, string>, used: Record<string, string> | undefined, spec: JsonObject = {}): JsonObject {
  return { metadata: { name, namespace: 'ns' }, spec: { hard, ...spec }, status: used ? { hard, used } : { hard } };
}

const pod = (requests: Record<string, string> = {}, name = 'c'): JsonObject =>
  ({ metadata: { name: 'p' }, spec: { containers: [{ name, image: 'nginx', resources: { requests } }] } });
const claim = (storage: string): JsonObject => ({ metadata: { name: 'data' }, spec: { resources: { requests: { storage } } } });
const create = (object: JsonObject): QuotaRequest => ({ operation: 'CREATE', object });

/** The charges as "quota: used" in JSON form. */
const charged = (charges: Charge[]) => charges.map((c) => [nameOf(c.quota), resourceListJson(c.used)]);

function refuses(quotas: JsonObject[], request: QuotaRequest, evaluator: Evaluator, message: string): void {
  assert.throws(() => checkRequest(quotas, request, evaluator, NOW), (err: unknown) => {
    assert.ok(err instanceof QuotaRefusal, `expected QuotaRefusal, got ${String(err)}`);
    assert.equal(err.message, message);
    return true;
  });
}

describe('quota check', () => {
  it('charges a matching quota what the object adds to the resources it limits, up to the limit itself', LIMIT, () => {
    const q = quota('q', { pods: '2', 'requests.memory': '1Gi' }, { pods: '1', 'requests.memory': '512Mi' });
    assert.deepEqual(charged(checkRequest([q], create(pod({ memory: '512Mi' })), pods, NOW)), [['q', { pods: '2', 'requests.memory': '1Gi' }]]);
    assert.deepEqual(charged(checkRequest([q], create(pod({ memory: '256Mi' })), pods, NOW)), [['q', { pods: '2', 'requests.memory': '768Mi' }]]);
  });

  it('refuses what would go past a limit, naming only the limits passed', LIMIT, () => {
    const q = quota('q', { pods: '2', 'requests.memory': '1Gi' }, { pods: '2', 'requests.memory': '768Mi' });
    refuses([q], create(pod({ memory: '256Mi' })), pods, 'exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2');
    refuses([q], create(pod({ memory: '512Mi' })), pods,
      'exceeded quota: q, requested: pods=1,requests.memory=512Mi, used: pods=2,requests.memory=768Mi, limited: pods=2,requests.memory=1Gi');
  });

  it('leaves alone quotas that limit nothing the object charges, or that the controller has not recorded', LIMIT, () => {
    const services = quota('services', { services: '1' }, { services: '1' });
    const unseen: JsonObject = { metadata: { name: 'new' }, spec: { hard: { pods: '0' } } };
    assert.deepEqual(checkRequest([services, unseen], create(pod()), pods, NOW), []);
  });

  it('refuses while a tracked resource has no recorded usage', LIMIT, () => {
    const q = quota('q', { 'requests.memory': '1Gi', pods: '2', services: '1' }, { pods: '0' });
    refuses([q], create(pod({ memory: '1Mi' })), pods, 'status unknown for quota: q, resources: pods,requests.memory');
  });

  it('refuses a pod whose containers do not state what a cpu or memory quota limits', LIMIT, () => {
    const q = quota('compute', { 'requests.cpu': '1' }, { 'requests.cpu': '0' });
    refuses([q], create(pod({}, 'web')), pods, 'failed quota: compute: must specify requests.cpu for: web');
  });

  it('charges only quotas whose usage changes, each in the quotas\' order', LIMIT, () => {
    const hugepages = quota('hugepages', { 'requests.hugepages-2Mi': '4Mi' }, { 'requests.hugepages-2Mi': '0' });
    const count = quota('count', { 'count/pods': '3' }, { 'count/pods': '1' });
    const compute = quota('compute', { pods: '5', 'requests.memory': '2Gi' }, { pods: '1', 'requests.memory': '1Gi' });
    assert.deepEqual(charged(checkRequest([hugepages, count, compute], create(pod({ memory: '1Gi' })), pods, NOW)), [
      ['count', { 'count/pods': '2' }],
      ['compute', { pods: '2', 'requests.memory': '2Gi' }],
    ]);
    const full = quota('full', { 'count/pods': '1' }, { 'count/pods': '1' });
    refuses([count, full], create(pod()), pods, 'exceeded quota: full, requested: count/pods=1, used: count/pods=1, limited: count/pods=1');
  });

  it('a scoped quota charges only the objects in its scopes', LIMIT, () => {
    const bestEffort = quota('besteffort', { pods: '1' }, { pods: '1' }, { scopes: ['BestEffort'] });
    assert.deepEqual(checkRequest([bestEffort], create(pod({ memory: '1Mi' })), pods, NOW), []);
    refuses([bestEffort], create(pod()), pods, 'exceeded quota: besteffort, requested: pods=1, used: pods=1, limited: pods=1');
    const high = quota('high', { pods: '5' }, { pods: '0' }, { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } });
    const highPod = { ...pod(), spec: { ...(pod()['spec'] as JsonObject), priorityClassName: 'high' } };
    assert.deepEqual(charged(checkRequest([high], create(highPod), pods, NOW)), [['high', { pods: '1' }]]);
    assert.deepEqual(checkRequest([high], create(pod()), pods, NOW), []);
  });

  it('charges an update only what it adds', LIMIT, () => {
    const q = quota('storage', { 'requests.storage': '5Gi' }, { 'requests.storage': '1Gi' });
    const update = (from: string, to: string): QuotaRequest => ({ operation: 'UPDATE', oldObject: claim(from), object: claim(to) });
    assert.deepEqual(charged(checkRequest([q], update('1Gi', '3Gi'), claims, NOW)), [['storage', { 'requests.storage': '3Gi' }]]);
    assert.deepEqual(checkRequest([q], update('1Gi', '1Gi'), claims, NOW), [], 'nothing grew');
    assert.deepEqual(checkRequest([q], update('3Gi', '1Gi'), claims, NOW), [], 'a shrink gives nothing back here');
    const tight = quota('storage', { 'requests.storage': '2Gi' }, { 'requests.storage': '1Gi' });
    refuses([tight], update('1Gi', '3Gi'), claims, 'exceeded quota: storage, requested: requests.storage=2Gi, used: requests.storage=1Gi, limited: requests.storage=2Gi');
  });

  it('counts objects under their legacy and count/ names alike', LIMIT, () => {
    const configmaps = builtinHooks('', 'configmaps').quota!;
    const q = quota('objects', { configmaps: '1', 'count/configmaps': '5' }, { configmaps: '1', 'count/configmaps': '1' });
    refuses([q], create({ metadata: { name: 'two' } }), configmaps, 'exceeded quota: objects, requested: configmaps=1, used: configmaps=1, limited: configmaps=1');
  });
});
