// Which evaluator measures which resource, and what objects other than pods charge: object counts
// (and their legacy names), services by node ports and load balancers, claims by storage (per
// storage class too); the resources quota ignores; a quota's scopes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evaluatorsFor, inScopes, objectCountEvaluator, objectCountName, scopesOf, type Evaluator } from '../../src/quota/evaluators.js';
import { builtinEvaluators, builtinHooks } from '../helpers.js';
import { resourceListJson } from '../../src/quota/resource-list.js';
import type { JsonObject } from '../../src/json.js';

const LIMIT = { timeout: 5_000 };
const NOW = Date.parse('2024-05-01T12:00:00Z');

function evaluator(group: string, resource: string): Evaluator {
  const e = builtinHooks(group, resource).quota;
  assert.ok(e, `an evaluator for ${group}/${resource}`);
  return e;
}

const usage = (e: Evaluator, obj: JsonObject) => resourceListJson(e.usage(obj, NOW));

describe('quota evaluators', () => {
  it('names object counts "count/<resource>[.<group>]"', LIMIT, () => {
    assert.equal(objectCountName('', 'pods'), 'count/pods');
    assert.equal(objectCountName('apps', 'deployments'), 'count/deployments.apps');
  });

  it('ignores virtual resources and core events, but not events.k8s.io events', LIMIT, () => {
    for (const [group, resource] of [['', 'events'], ['', 'bindings'], ['', 'componentstatuses'], ['authentication.k8s.io', 'tokenreviews'],
      ['authorization.k8s.io', 'subjectaccessreviews'], ['authorization.k8s.io', 'selfsubjectrulesreviews']] as const) {
      assert.equal(builtinHooks(group, resource).quota, undefined, `${group}/${resource}`);
    }
    assert.deepEqual(usage(evaluator('events.k8s.io', 'events'), {}), { 'count/events.events.k8s.io': '1' });
  });

  it('counts a core object by count/<resource> and its legacy name, on create only, in no scope', LIMIT, () => {
    const configmaps = evaluator('', 'configmaps');
    assert.deepEqual(configmaps.matchingResources(['configmaps', 'count/configmaps', 'count/secrets', 'cpu']), ['configmaps', 'count/configmaps']);
    assert.deepEqual(usage(configmaps, { metadata: { name: 'c' } }), { configmaps: '1', 'count/configmaps': '1' });
    assert.deepEqual(['CREATE', 'UPDATE', 'DELETE'].map((op) => configmaps.handles(op as 'CREATE')), [true, false, false]);
    assert.equal(configmaps.matchesScope({ scopeName: 'BestEffort', operator: 'Exists', values: [] }, {}), false);
    for (const legacy of ['secrets', 'resourcequotas', 'replicationcontrollers']) {
      assert.deepEqual(evaluator('', legacy).matchingResources([legacy]), [legacy]);
    }
  });

  it('counts objects of other groups only by count/<resource>.<group>', LIMIT, () => {
    const deployments = evaluator('apps', 'deployments');
    assert.deepEqual(deployments.matchingResources(['deployments', 'count/deployments', 'count/deployments.apps']), ['count/deployments.apps']);
    assert.deepEqual(usage(deployments, {}), { 'count/deployments.apps': '1' });
  });

  it('charges a service one service, its node ports and its load balancer, on create and update', LIMIT, () => {
    const services = evaluator('', 'services');
    const ports = (n: number) => Array.from({ length: n }, (_, i) => ({ port: 80 + i }));
    const base = { 'count/services': '1', services: '1' };
    assert.deepEqual(usage(services, { spec: { type: 'ClusterIP', ports: ports(2) } }), { ...base, 'services.loadbalancers': '0', 'services.nodeports': '0' });
    assert.deepEqual(usage(services, { spec: { type: 'NodePort', ports: ports(2) } }), { ...base, 'services.loadbalancers': '0', 'services.nodeports': '2' });
    assert.deepEqual(usage(services, { spec: { type: 'LoadBalancer', ports: ports(3) } }), { ...base, 'services.loadbalancers': '1', 'services.nodeports': '3' });
    // Without node port allocation, only the ports that ask for one.
    const noAllocation = { type: 'LoadBalancer', allocateLoadBalancerNodePorts: false, ports: [{ port: 80, nodePort: 30080 }, { port: 443 }] };
    assert.deepEqual(usage(services, { spec: noAllocation }), { ...base, 'services.loadbalancers': '1', 'services.nodeports': '1' });
    assert.deepEqual(services.matchingResources(['services', 'services.nodeports', 'services.loadbalancers', 'count/services', 'pods']),
      ['services', 'services.nodeports', 'services.loadbalancers', 'count/services']);
    assert.deepEqual(['CREATE', 'UPDATE', 'DELETE'].map((op) => services.handles(op as 'CREATE')), [true, true, false]);
  });

  it('charges a claim its storage in whole bytes, also under its storage class (the beta annotation first)', LIMIT, () => {
    const claims = evaluator('', 'persistentvolumeclaims');
    const claim = (storage: string, meta: JsonObject = {}, spec: JsonObject = {}) => ({ metadata: meta, spec: { ...spec, resources: { requests: { storage } } } });
    assert.deepEqual(usage(claims, claim('10Gi')), { 'count/persistentvolumeclaims': '1', persistentvolumeclaims: '1', 'requests.storage': '10Gi' });
    assert.deepEqual(usage(claims, claim('1.5', {}, { storageClassName: 'silver' })), {
      'count/persistentvolumeclaims': '1', persistentvolumeclaims: '1', 'requests.storage': '2',
      'silver.storageclass.storage.k8s.io/persistentvolumeclaims': '1', 'silver.storageclass.storage.k8s.io/requests.storage': '2',
    });
    const annotated = claim('1Gi', { annotations: { 'volume.beta.kubernetes.io/storage-class': 'gold' } }, { storageClassName: 'silver' });
    assert.deepEqual(Object.keys(usage(claims, annotated)).filter((k) => k.includes('storageclass')),
      ['gold.storageclass.storage.k8s.io/persistentvolumeclaims', 'gold.storageclass.storage.k8s.io/requests.storage']);
    const names = ['requests.storage', 'persistentvolumeclaims', 'count/persistentvolumeclaims', 'gold.storageclass.storage.k8s.io/requests.storage',
      'gold.storageclass.storage.k8s.io/persistentvolumeclaims', 'pods', 'storage'];
    assert.deepEqual(claims.matchingResources(names), names.slice(0, 5));
    assert.deepEqual(['CREATE', 'UPDATE', 'DELETE'].map((op) => claims.handles(op as 'CREATE')), [true, true, false]);
  });

  it('finds the evaluators that measure some of a quota\'s names', LIMIT, () => {
    // The candidates: every served resource's evaluator (here the built-ins and one custom resource).
    const served = [...builtinEvaluators(), objectCountEvaluator('example.com', 'widgets')];
    const ids = (names: string[]) => evaluatorsFor(names, served).map((e) => `${e.group}/${e.resource}`).sort();
    assert.deepEqual(ids(['pods', 'configmaps', 'count/deployments.apps', 'requests.storage']), ['/configmaps', '/persistentvolumeclaims', '/pods', 'apps/deployments']);
    assert.deepEqual(ids(['services.nodeports', 'count/widgets.example.com']), ['/services', 'example.com/widgets']);
    assert.deepEqual(ids(['count/events', 'nonsense']), []);
  });

  it('reads a quota\'s scopes from spec.scopes (as Exists) and spec.scopeSelector', LIMIT, () => {
    const quota = { spec: { scopes: ['BestEffort'], scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high', 'top'] }] } } };
    assert.deepEqual(scopesOf(quota), [
      { scopeName: 'BestEffort', operator: 'Exists', values: [] },
      { scopeName: 'PriorityClass', operator: 'In', values: ['high', 'top'] },
    ]);
    assert.deepEqual(scopesOf({ spec: {} }), []);
  });

  it('a quota without scopes takes every object; a scoped one no object but pods', LIMIT, () => {
    const configmaps = evaluator('', 'configmaps');
    assert.equal(inScopes(configmaps, [], {}), true);
    assert.equal(inScopes(configmaps, scopesOf({ spec: { scopes: ['NotTerminating'] } }), {}), false);
    assert.equal(inScopes(evaluator('', 'pods'), scopesOf({ spec: { scopes: ['NotTerminating', 'BestEffort'] } }), { spec: { containers: [{ name: 'c' }] } }), true);
  });
});
