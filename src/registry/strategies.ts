// Per-resource hooks on top of the generic registry, only where a resource differs.
import type { ResourceInfo } from '../api/catalog.js';
import { StatusError } from '../errors.js';
import { metadataOf, type JsonObject } from './objects.js';
import type { Registry } from './store.js';

export interface Strategy {
  /** PUT of a missing object creates it. */
  allowCreateOnUpdate?: boolean;
  /** Decoding-time conversions and defaults, applied before ownership is recorded. */
  normalize?(obj: JsonObject): void;
  prepareForCreate?(obj: JsonObject): void;
  prepareForUpdate?(next: JsonObject, current: JsonObject): void;
  /** Runs before a delete is carried out; may refuse it or clean up. */
  beforeDelete?(registry: Registry, obj: JsonObject, dryRun: boolean): Promise<void>;
  /** Shapes the object a delete answers with. */
  prepareForDelete?(obj: JsonObject): void;
  /** A hold on deletion beyond metadata.finalizers (namespaces: spec.finalizers). */
  heldBySpec?(obj: JsonObject): boolean;
}

// Namespaces the server keeps: deleting them is refused, as the reference's NamespaceLifecycle does.
export const IMMORTAL_NAMESPACES = new Set(['default', 'kube-system', 'kube-public']);

function namespaceLabel(obj: JsonObject): void {
  const meta = metadataOf(obj);
  const labels = (meta['labels'] ?? {}) as Record<string, string>;
  labels['kubernetes.io/metadata.name'] = String(meta['name']);
  meta['labels'] = labels;
}

const namespaces: Strategy = {
  // The reference's defaults put the name label on every namespace.
  normalize: namespaceLabel,
  prepareForCreate(obj) {
    const spec = (obj['spec'] ?? {}) as JsonObject;
    if (!Array.isArray(spec['finalizers'])) spec['finalizers'] = ['kubernetes'];
    obj['spec'] = spec;
    obj['status'] = { phase: 'Active' };
  },
  async beforeDelete(registry, obj) {
    const name = String(metadataOf(obj)['name']);
    // A NamespaceLifecycle rule: lifted when that admission plugin is disabled.
    if (IMMORTAL_NAMESPACES.has(name) && (registry.admission?.has('NamespaceLifecycle') ?? true)) {
      throw new StatusError(403, 'Forbidden', `namespaces "${name}" is forbidden: this namespace may not be deleted`, { name, kind: 'namespaces' });
    }
  },
  // The namespace controller empties a terminating namespace, then removes "kubernetes" from spec.finalizers.
  prepareForDelete(obj) {
    const status = (obj['status'] ?? {}) as JsonObject;
    obj['status'] = { ...status, phase: 'Terminating' };
  },
  heldBySpec(obj) {
    const finalizers = ((obj['spec'] ?? {}) as JsonObject)['finalizers'];
    return Array.isArray(finalizers) && finalizers.length > 0;
  },
};

/** Secret stringData is write-only: it is merged into data (base64) and never stored. */
function mergeStringData(obj: JsonObject): void {
  const stringData = obj['stringData'];
  if (stringData === undefined) return;
  delete obj['stringData'];
  if (typeof stringData !== 'object' || stringData === null || Array.isArray(stringData)) return;
  const data = (typeof obj['data'] === 'object' && obj['data'] !== null ? obj['data'] : {}) as Record<string, unknown>;
  for (const [k, v] of Object.entries(stringData)) data[k] = Buffer.from(String(v), 'utf8').toString('base64');
  obj['data'] = data;
}

const secrets: Strategy = {
  normalize: mergeStringData,
};

/** The QoS class the reference derives from the containers' requests and limits. */
function qosClass(pod: JsonObject): string {
  const spec = (pod['spec'] ?? {}) as JsonObject;
  const containers = [...((spec['initContainers'] as JsonObject[] | undefined) ?? []), ...((spec['containers'] as JsonObject[] | undefined) ?? [])];
  let any = false;
  let guaranteed = true;
  for (const c of containers) {
    const resources = (c['resources'] ?? {}) as { requests?: Record<string, unknown>; limits?: Record<string, unknown> };
    const requests = resources.requests ?? {};
    const limits = resources.limits ?? {};
    for (const r of ['cpu', 'memory']) {
      if (requests[r] !== undefined || limits[r] !== undefined) any = true;
      if (limits[r] === undefined || (requests[r] !== undefined && String(requests[r]) !== String(limits[r]))) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

const pods: Strategy = {
  prepareForCreate(obj) {
    obj['status'] = { phase: 'Pending', qosClass: qosClass(obj) };
  },
};

const createOnUpdate: Strategy = { allowCreateOnUpdate: true };

const STRATEGIES: Record<string, Strategy> = {
  '/namespaces': namespaces,
  '/secrets': secrets,
  '/pods': pods,
  '/endpoints': createOnUpdate,
  '/events': createOnUpdate,
  '/limitranges': createOnUpdate,
  'events.k8s.io/events': createOnUpdate,
  'coordination.k8s.io/leases': createOnUpdate,
  'rbac.authorization.k8s.io/roles': createOnUpdate,
  'rbac.authorization.k8s.io/rolebindings': createOnUpdate,
  'rbac.authorization.k8s.io/clusterroles': createOnUpdate,
  'rbac.authorization.k8s.io/clusterrolebindings': createOnUpdate,
};

const NONE: Strategy = {};

export function strategyFor(info: Pick<ResourceInfo, 'group' | 'resource'>): Strategy {
  return STRATEGIES[`${info.group}/${info.resource}`] ?? NONE;
}
