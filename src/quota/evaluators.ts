// The evaluators: pods, services and persistentvolumeclaims are measured by their own; other
// resources are an object count ("count/<resource>.<group>", for a few core resources also under
// a legacy name). The group modules of registry/builtin say which resource is measured by which,
// and which resources quota ignores.
import { Quantity } from '../api/quantity.js';
import { podEvaluator } from './pods.js';
import { resourceListOf, type ResourceList } from './resource-list.js';
import type { Evaluator, ScopeRequirement } from './types.js';
import { type JsonObject, isObject } from '../json.js';

export type { Evaluator, ScopeRequirement };
export { podEvaluator };

const STORAGE_CLASS_SUFFIX = '.storageclass.storage.k8s.io/';
const BETA_STORAGE_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

/** "count/pods", "count/deployments.apps". */
export function objectCountName(group: string, resource: string): string {
  return `count/${group ? `${resource}.${group}` : resource}`;
}

function spec(obj: JsonObject): JsonObject {
  return isObject(obj['spec']) ? obj['spec'] : {};
}

function one(): Quantity {
  return Quantity.of(1);
}

/** Only pods have scopes: a scoped quota matches no other object. */
const noScope = (): boolean => false;

/** An object count: "count/<resource>.<group>", and `legacyName` ("configmaps", …) when it has one. */
export function objectCountEvaluator(group: string, resource: string, legacyName?: string): Evaluator {
  const names = [objectCountName(group, resource), ...(legacyName ? [legacyName] : [])];
  return {
    group,
    resource,
    handles: (operation) => operation === 'CREATE',
    matchingResources: (input) => [...input].filter((n) => names.includes(n)),
    matchesScope: noScope,
    usage: () => new Map(names.map((n) => [n, one()])),
  };
}

const SERVICE_RESOURCES = [objectCountName('', 'services'), 'services', 'services.loadbalancers', 'services.nodeports'];

export const serviceEvaluator: Evaluator = {
  group: '',
  resource: 'services',
  // A service's type (and so its node ports and load balancer) can change on update.
  handles: (operation) => operation === 'CREATE' || operation === 'UPDATE',
  matchingResources: (input) => [...input].filter((n) => SERVICE_RESOURCES.includes(n)),
  matchesScope: noScope,
  usage(svc) {
    const s = spec(svc);
    const ports = Array.isArray(s['ports']) ? s['ports'].filter(isObject) : [];
    const result: ResourceList = new Map([
      [objectCountName('', 'services'), one()],
      ['services', one()],
      ['services.loadbalancers', Quantity.zero()],
      ['services.nodeports', Quantity.zero()],
    ]);
    if (s['type'] === 'NodePort') {
      result.set('services.nodeports', Quantity.of(ports.length));
    } else if (s['type'] === 'LoadBalancer') {
      // Without node port allocation only the ports that ask for one explicitly count.
      const nodePorts = s['allocateLoadBalancerNodePorts'] === false
        ? ports.filter((p) => typeof p['nodePort'] === 'number' && p['nodePort'] !== 0).length
        : ports.length;
      result.set('services.nodeports', Quantity.of(nodePorts));
      result.set('services.loadbalancers', one());
    }
    return result;
  },
};

const PVC_RESOURCES = ['persistentvolumeclaims', 'requests.storage'];

/** The claim's storage class: the beta annotation first, then spec.storageClassName. */
function storageClassOf(pvc: JsonObject): string {
  const annotations = isObject(pvc['metadata']) ? pvc['metadata']['annotations'] : undefined;
  const annotated = isObject(annotations) ? annotations[BETA_STORAGE_CLASS_ANNOTATION] : undefined;
  if (typeof annotated === 'string') return annotated;
  const named = spec(pvc)['storageClassName'];
  return typeof named === 'string' ? named : '';
}

export const persistentVolumeClaimEvaluator: Evaluator = {
  group: '',
  resource: 'persistentvolumeclaims',
  // A claim's size can grow on update.
  handles: (operation) => operation === 'CREATE' || operation === 'UPDATE',
  matchingResources: (input) => [...input].filter((n) => n === objectCountName('', 'persistentvolumeclaims')
    || PVC_RESOURCES.includes(n) || PVC_RESOURCES.some((r) => n.endsWith(STORAGE_CLASS_SUFFIX + r))),
  matchesScope: noScope,
  usage(pvc) {
    const result: ResourceList = new Map([['persistentvolumeclaims', one()], [objectCountName('', 'persistentvolumeclaims'), one()]]);
    const storageClass = storageClassOf(pvc);
    if (storageClass) result.set(`${storageClass}${STORAGE_CLASS_SUFFIX}persistentvolumeclaims`, one());
    const resources = spec(pvc)['resources'];
    const storage = resourceListOf(isObject(resources) ? resources['requests'] : undefined).get('storage');
    if (storage) {
      // Charged in whole bytes.
      const rounded = storage.roundUpToInteger();
      result.set('requests.storage', rounded);
      if (storageClass) result.set(`${storageClass}${STORAGE_CLASS_SUFFIX}requests.storage`, rounded);
    }
    return result;
  },
};

/** The evaluators among `evaluators` that measure some of a quota's resource names. */
export function evaluatorsFor(names: Iterable<string>, evaluators: Iterable<Evaluator>): Evaluator[] {
  const list = [...names];
  return [...evaluators].filter((e) => e.matchingResources(list).length > 0);
}

/** A quota's scopes: spec.scopes (each as Exists) and spec.scopeSelector.matchExpressions. */
export function scopesOf(quota: JsonObject): ScopeRequirement[] {
  const s = spec(quota);
  const out: ScopeRequirement[] = [];
  if (Array.isArray(s['scopes'])) {
    for (const scope of s['scopes']) if (typeof scope === 'string') out.push({ scopeName: scope, operator: 'Exists', values: [] });
  }
  const selector = s['scopeSelector'];
  const expressions = isObject(selector) && Array.isArray(selector['matchExpressions']) ? selector['matchExpressions'].filter(isObject) : [];
  for (const e of expressions) {
    out.push({
      scopeName: String(e['scopeName'] ?? ''),
      operator: String(e['operator'] ?? ''),
      values: Array.isArray(e['values']) ? e['values'].filter((v): v is string => typeof v === 'string') : [],
    });
  }
  return out;
}

/** Whether an object falls in every scope of a quota (a quota without scopes takes everything). */
export function inScopes(evaluator: Evaluator, scopes: ScopeRequirement[], obj: JsonObject): boolean {
  return scopes.every((s) => evaluator.matchesScope(s, obj));
}
