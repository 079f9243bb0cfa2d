// What a pod charges to quota: its object count, and (while it is not terminal) its compute
// requests and limits; the pod quota scopes; and the old rule that a quota on cpu or memory
// makes every container state them.
import { Quantity } from '../api/quantity.js';
import { addLists, maxLists, resourceListOf, type ResourceList } from './resource-list.js';
import type { Evaluator, ScopeRequirement } from './types.js';
import { type JsonObject, isObject } from '../json.js';

const COUNT_PODS = 'count/pods';
const REQUESTS_PREFIX = 'requests.';
const HUGEPAGES_PREFIX = 'hugepages-';

/** The resources this evaluator measures (besides hugepages and extended resources). */
const POD_RESOURCES = new Set([
  COUNT_PODS, 'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage',
  'limits.cpu', 'limits.memory', 'limits.ephemeral-storage', 'pods',
]);

/** A quota on these makes every container state them (a mistake the reference keeps for compatibility). */
const MUST_BE_EXPLICIT = new Set(['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory']);

const QUALIFIED_NAME = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

/** Native resources have no "/" or are under kubernetes.io/. */
function isNativeResource(name: string): boolean {
  return !name.includes('/') || name.includes('kubernetes.io/');
}

/** An extended resource a container may request (e.g. example.com/gpu). */
function isExtendedResource(name: string): boolean {
  return !isNativeResource(name) && !name.startsWith(REQUESTS_PREFIX) && QUALIFIED_NAME.test(REQUESTS_PREFIX + name);
}

/** A quota name for an extended resource: only "requests.<name>" (extended resources are not overcommitted). */
function isExtendedQuotaName(name: string): boolean {
  return !isNativeResource(name) && name.startsWith(REQUESTS_PREFIX);
}

function objectsAt(obj: unknown, ...path: string[]): JsonObject[] {
  let v: unknown = obj;
  for (const p of path) v = isObject(v) ? v[p] : undefined;
  return Array.isArray(v) ? v.filter(isObject) : [];
}

function field(obj: unknown, ...path: string[]): unknown {
  let v: unknown = obj;
  for (const p of path) v = isObject(v) ? v[p] : undefined;
  return v;
}

function containersOf(pod: JsonObject): { containers: JsonObject[]; initContainers: JsonObject[] } {
  return { containers: objectsAt(pod, 'spec', 'containers'), initContainers: objectsAt(pod, 'spec', 'initContainers') };
}

/** The quota usage of a container's (or a pod's) requests and limits. */
function computeUsage(requests: ResourceList, limits: ResourceList): ResourceList {
  const out: ResourceList = new Map([['pods', Quantity.parse('1')]]);
  const both = (resource: string) => {
    const request = requests.get(resource);
    if (request) {
      out.set(resource, request);
      out.set(REQUESTS_PREFIX + resource, request);
    }
    const limit = limits.get(resource);
    if (limit) out.set(`limits.${resource}`, limit);
  };
  both('cpu');
  both('memory');
  both('ephemeral-storage');
  for (const [resource, request] of requests) {
    if (resource.startsWith(HUGEPAGES_PREFIX)) {
      out.set(resource, request);
      out.set(REQUESTS_PREFIX + resource, request);
    }
    if (isExtendedResource(resource)) out.set(REQUESTS_PREFIX + resource, request);
  }
  return out;
}

/** Whether a pod still counts: not Succeeded or Failed, and not past the grace period of its deletion. */
export function podCountsForQuota(pod: JsonObject, now: number): boolean {
  const phase = field(pod, 'status', 'phase');
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  const deletion = field(pod, 'metadata', 'deletionTimestamp');
  const grace = field(pod, 'metadata', 'deletionGracePeriodSeconds');
  if (typeof deletion === 'string' && typeof grace === 'number') {
    const deadline = Date.parse(deletion) + grace * 1000;
    if (now > deadline) return false;
  }
  return true;
}

function isTerminating(pod: JsonObject): boolean {
  const deadline = field(pod, 'spec', 'activeDeadlineSeconds');
  return typeof deadline === 'number' && deadline >= 0;
}

/** BestEffort QoS: no container (init containers too) requests or limits any cpu or memory. */
function isBestEffort(pod: JsonObject): boolean {
  const { containers, initContainers } = containersOf(pod);
  for (const c of [...containers, ...initContainers]) {
    for (const kind of ['requests', 'limits']) {
      const list = resourceListOf(field(c, 'resources', kind));
      for (const resource of ['cpu', 'memory']) if ((list.get(resource)?.sign() ?? 0) > 0) return false;
    }
  }
  return true;
}

function usesCrossNamespaceAffinity(pod: JsonObject): boolean {
  const crossNamespace = (term: unknown) => {
    const namespaces = field(term, 'namespaces');
    return (Array.isArray(namespaces) && namespaces.length > 0) || isObject(field(term, 'namespaceSelector'));
  };
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const affinity = field(pod, 'spec', 'affinity', kind);
    if (objectsAt(affinity, 'requiredDuringSchedulingIgnoredDuringExecution').some(crossNamespace)) return true;
    if (objectsAt(affinity, 'preferredDuringSchedulingIgnoredDuringExecution').some((w) => crossNamespace(w['podAffinityTerm']))) return true;
  }
  return false;
}

/** A PriorityClass requirement as a label selector over {PriorityClass: <the pod's class>}. */
function matchesPriorityClass(pod: JsonObject, requirement: ScopeRequirement): boolean {
  const name = field(pod, 'spec', 'priorityClassName');
  const has = typeof name === 'string' && name !== '';
  switch (requirement.operator) {
    case 'Exists': return has;
    case 'DoesNotExist': return !has;
    case 'In': return has && requirement.values.includes(name);
    case 'NotIn': return !has || !requirement.values.includes(name);
    default: return false;
  }
}

export const podEvaluator: Evaluator = {
  group: '',
  resource: 'pods',

  // Pod resources cannot change after creation (1.25).
  handles: (operation) => operation === 'CREATE',

  matchingResources(names) {
    return [...names].filter((n) => POD_RESOURCES.has(n) || n.startsWith(HUGEPAGES_PREFIX) || n.startsWith(`${REQUESTS_PREFIX}${HUGEPAGES_PREFIX}`) || isExtendedQuotaName(n));
  },

  matchesScope(requirement, pod) {
    switch (requirement.scopeName) {
      case 'Terminating': return isTerminating(pod);
      case 'NotTerminating': return !isTerminating(pod);
      case 'BestEffort': return isBestEffort(pod);
      case 'NotBestEffort': return !isBestEffort(pod);
      case 'PriorityClass': return matchesPriorityClass(pod, requirement);
      case 'CrossNamespacePodAffinity': return usesCrossNamespaceAffinity(pod);
      default: return false;
    }
  },

  usage(pod, now) {
    const result: ResourceList = new Map([[COUNT_PODS, Quantity.of(1)]]);
    if (!podCountsForQuota(pod, now)) return result;
    const { containers, initContainers } = containersOf(pod);
    let requests: ResourceList = new Map();
    let limits: ResourceList = new Map();
    for (const c of containers) {
      requests = addLists(requests, resourceListOf(field(c, 'resources', 'requests')));
      limits = addLists(limits, resourceListOf(field(c, 'resources', 'limits')));
    }
    // Init containers run one at a time before the others: the largest of them against the sum.
    for (const c of initContainers) {
      requests = maxLists(requests, resourceListOf(field(c, 'resources', 'requests')));
      limits = maxLists(limits, resourceListOf(field(c, 'resources', 'limits')));
    }
    const overhead = resourceListOf(field(pod, 'spec', 'overhead'));
    requests = addLists(requests, overhead);
    limits = addLists(limits, overhead);
    return addLists(result, computeUsage(requests, limits));
  },

  constraints(required, pod) {
    const needed = required.filter((r) => MUST_BE_EXPLICIT.has(r));
    if (needed.length === 0) return undefined;
    // missing resource → names of the containers that do not state it
    const missing = new Map<string, Set<string>>();
    const { containers, initContainers } = containersOf(pod);
    for (const c of [...containers, ...initContainers]) {
      const given = computeUsage(resourceListOf(field(c, 'resources', 'requests')), resourceListOf(field(c, 'resources', 'limits')));
      for (const r of needed) {
        if (given.has(r)) continue;
        const names = missing.get(r) ?? new Set<string>();
        names.add(String(c['name'] ?? ''));
        missing.set(r, names);
      }
    }
    if (missing.size === 0) return undefined;
    const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...missing.get(r)!].sort().join(',')}`);
    return `must specify ${parts.join('; ')}`;
  },
};
