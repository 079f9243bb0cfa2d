// What a pod charges to quota (its requests and limits; init containers as the largest one; the
// overhead; hugepages and extended resources; nothing but its count once it is terminal or past its
// grace period), the pod quota scopes, and the old rule that cpu and memory quotas need explicit values.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { podCountsForQuota, podEvaluator } from '../../src/quota/pods.js';
import { resourceListJson } from '../../src/quota/resource-list.js';
import type { ScopeRequirement } from '../../src/quota/types.js';
import type { JsonObject } from '../../src/json.js';

const LIMIT = { timeout: 5_000 };
const NOW = Date.parse('2024-05-01T12:00:00Z');

interface Resources { requests?: Record<string, string>; limits?: Record<string, string> }
const container = (name: string, resources: Resources = {}) => ({ name, image: 'nginx', resources });
const pod = (spec: JsonObject, extra: JsonObject = {}): JsonObject => ({ metadata: { name: 'p' }, spec: { containers: [container('c')], ...spec }, ...extra });
const usage = (p: JsonObject, now = NOW) => resourceListJson(podEvaluator.usage(p, now));
const scope = (scopeName: string, operator = 'Exists', values: string[] = []): ScopeRequirement => ({ scopeName, operator, values });

describe('pod quota usage', () => {
  it('sums the containers\' requests and limits, against the largest init container', LIMIT, () => {
    const p = pod({
      containers: [
        container('web', { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '200m', memory: '128Mi' } }),
        container('log', { requests: { cpu: '250m' }, limits: { memory: '64Mi' } }),
      ],
      initContainers: [container('setup', { requests: { cpu: '500m', memory: '32Mi' } })],
    });
    assert.deepEqual(usage(p), {
      'count/pods': '1', pods: '1',
      cpu: '500m', 'requests.cpu': '500m', 'limits.cpu': '200m',
      memory: '64Mi', 'requests.memory': '64Mi', 'limits.memory': '192Mi',
    });
  });

  it('adds the pod overhead to requests and to limits', LIMIT, () => {
    const p = pod({ containers: [container('c', { requests: { cpu: '100m' } })], overhead: { cpu: '10m', memory: '1Mi' } });
    assert.deepEqual(usage(p), {
      'count/pods': '1', pods: '1',
      cpu: '110m', 'requests.cpu': '110m', 'limits.cpu': '10m',
      memory: '1Mi', 'requests.memory': '1Mi', 'limits.memory': '1Mi',
    });
  });

  it('charges ephemeral storage, hugepages and extended resources (these as requests.<name> only)', LIMIT, () => {
    const resources = { requests: { 'ephemeral-storage': '1Gi', 'hugepages-2Mi': '4Mi', 'example.com/gpu': '2' }, limits: { 'ephemeral-storage': '2Gi', 'hugepages-2Mi': '4Mi', 'example.com/gpu': '2' } };
    assert.deepEqual(usage(pod({ containers: [container('c', resources)] })), {
      'count/pods': '1', pods: '1',
      'ephemeral-storage': '1Gi', 'requests.ephemeral-storage': '1Gi', 'limits.ephemeral-storage': '2Gi',
      'hugepages-2Mi': '4Mi', 'requests.hugepages-2Mi': '4Mi',
      'requests.example.com/gpu': '2',
    });
  });

  it('a terminal pod, or one past its deletion grace period, is charged only its object count', LIMIT, () => {
    const compute = pod({ containers: [container('c', { requests: { cpu: '1' } })] });
    for (const phase of ['Succeeded', 'Failed']) assert.deepEqual(usage({ ...compute, status: { phase } }), { 'count/pods': '1' });
    assert.equal(usage({ ...compute, status: { phase: 'Running' } })['pods'], '1');

    const deleted = { ...compute, metadata: { name: 'p', deletionTimestamp: '2024-05-01T12:00:00Z', deletionGracePeriodSeconds: 30 } };
    assert.equal(podCountsForQuota(deleted, NOW + 29_000), true);
    assert.equal(podCountsForQuota(deleted, NOW + 30_000), true, 'at the deadline itself it still counts');
    assert.equal(podCountsForQuota(deleted, NOW + 30_001), false);
    assert.deepEqual(usage(deleted, NOW + 31_000), { 'count/pods': '1' });
    assert.equal(usage(deleted, NOW + 1_000)['requests.cpu'], '1');
  });

  it('measures pod resources, hugepages and requests.<extended> quota names; handles creates only', LIMIT, () => {
    const names = ['pods', 'count/pods', 'cpu', 'requests.memory', 'limits.ephemeral-storage', 'hugepages-1Gi', 'requests.hugepages-1Gi',
      'requests.example.com/gpu', 'example.com/gpu', 'limits.example.com/gpu', 'services', 'requests.storage'];
    assert.deepEqual(podEvaluator.matchingResources(names).sort(), names.slice(0, 8).sort());
    assert.deepEqual(['CREATE', 'UPDATE', 'DELETE'].map((op) => podEvaluator.handles(op as 'CREATE')), [true, false, false]);
  });
});

describe('pod quota scopes', () => {
  const matches = (s: ScopeRequirement, p: JsonObject) => podEvaluator.matchesScope(s, p);

  it('Terminating: an activeDeadlineSeconds of zero or more', LIMIT, () => {
    assert.equal(matches(scope('Terminating'), pod({ activeDeadlineSeconds: 0 })), true);
    assert.equal(matches(scope('Terminating'), pod({})), false);
    assert.equal(matches(scope('NotTerminating'), pod({})), true);
    assert.equal(matches(scope('NotTerminating'), pod({ activeDeadlineSeconds: 600 })), false);
  });

  it('BestEffort: no container, init containers included, requests or limits any cpu or memory above zero', LIMIT, () => {
    assert.equal(matches(scope('BestEffort'), pod({})), true);
    assert.equal(matches(scope('BestEffort'), pod({ containers: [container('c', { requests: { cpu: '0' }, limits: { 'example.com/gpu': '1' } })] })), true);
    assert.equal(matches(scope('BestEffort'), pod({ initContainers: [container('i', { limits: { memory: '1Mi' } })] })), false);
    assert.equal(matches(scope('NotBestEffort'), pod({ containers: [container('c', { requests: { cpu: '1m' } })] })), true);
    assert.equal(matches(scope('NotBestEffort'), pod({})), false);
  });

  it('PriorityClass: the operators against the pod\'s class, an absent class having no value', LIMIT, () => {
    const high = pod({ priorityClassName: 'high' });
    const none = pod({});
    assert.equal(matches(scope('PriorityClass', 'In', ['high', 'top']), high), true);
    assert.equal(matches(scope('PriorityClass', 'In', ['top']), high), false);
    assert.equal(matches(scope('PriorityClass', 'In', ['high']), none), false);
    assert.equal(matches(scope('PriorityClass', 'NotIn', ['high']), high), false);
    assert.equal(matches(scope('PriorityClass', 'NotIn', ['high']), none), true);
    assert.equal(matches(scope('PriorityClass', 'Exists'), high), true);
    assert.equal(matches(scope('PriorityClass', 'Exists'), none), false);
    assert.equal(matches(scope('PriorityClass', 'DoesNotExist'), none), true);
    assert.equal(matches(scope('PriorityClass', 'DoesNotExist'), high), false);
  });

  it('CrossNamespacePodAffinity: an affinity or anti-affinity term naming namespaces or a namespace selector', LIMIT, () => {
    const term = (extra: JsonObject) => ({ labelSelector: { matchLabels: { app: 'db' } }, topologyKey: 'kubernetes.io/hostname', ...extra });
    const required = (extra: JsonObject) => pod({ affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term(extra)] } } });
    const preferredAnti = (extra: JsonObject) => pod({ affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: term(extra) }] } } });
    const s = scope('CrossNamespacePodAffinity');
    assert.equal(matches(s, required({ namespaces: ['other'] })), true);
    assert.equal(matches(s, preferredAnti({ namespaceSelector: {} })), true);
    assert.equal(matches(s, required({})), false);
    assert.equal(matches(s, required({ namespaces: [] })), false);
    assert.equal(matches(s, pod({})), false);
  });

  it('an unknown scope matches nothing', LIMIT, () => {
    assert.equal(matches(scope('Sometimes'), pod({})), false);
  });
});

describe('pod quota constraints', () => {
  it('a cpu or memory quota needs every container to state it; the message names the containers', LIMIT, () => {
    const p = pod({
      containers: [container('web', { requests: { memory: '1Gi' } }), container('log', { limits: { cpu: '1' } })],
      initContainers: [container('setup', { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } })],
    });
    assert.equal(podEvaluator.constraints!(['limits.cpu', 'requests.memory', 'pods'], p), 'must specify limits.cpu for: web; requests.memory for: log');
    assert.equal(podEvaluator.constraints!(['requests.cpu'], p), 'must specify requests.cpu for: log,web');
    assert.equal(podEvaluator.constraints!(['cpu'], pod({ containers: [container('a', { requests: { cpu: '1' } })] })), undefined);
  });

  it('other resources need nothing stated', LIMIT, () => {
    assert.equal(podEvaluator.constraints!(['pods', 'count/pods', 'requests.storage', 'requests.ephemeral-storage'], pod({})), undefined);
  });
});
