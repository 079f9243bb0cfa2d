// Per-resource hooks on top of the generic registry, only where a resource differs.
import type { ResourceInfo } from './definitions.js';
import { metadataOf } from './objects.js';
import type { Registry } from './store.js';
import type { UserInfo } from '../api/user.js';
import { serviceStrategy } from './allocators/service-strategy.js';
import { type JsonObject } from '../json.js';

/** What a write took from a shared pool (service IPs, node ports): kept once stored, given back otherwise. */
export interface Claim {
  commit(): void;
  revert(): void;
}

export interface Strategy {
  /** PUT of a missing object creates it. */
  allowCreateOnUpdate?: boolean;
  /** Decoding-time conversions and defaults, applied before ownership is recorded. */
  normalize?(obj: JsonObject): void;
  /** `user`: who creates (CertificateSigningRequests record their requester). */
  prepareForCreate?(obj: JsonObject, user: UserInfo): void;
  prepareForUpdate?(next: JsonObject, current: JsonObject): void;
  /** Takes from shared pools what a new object needs (after mutating admission, before validation). */
  beginCreate?(registry: Registry, obj: JsonObject, dryRun: boolean): Claim | undefined;
  /** The same for an update of the main resource. */
  beginUpdate?(registry: Registry, next: JsonObject, current: JsonObject, dryRun: boolean): Claim | undefined;
  /** Runs once an object is gone from storage (not for dry runs). */
  afterDelete?(registry: Registry, obj: JsonObject): Promise<void>;
  /** Runs before a delete is carried out; may refuse it or clean up. */
  beforeDelete?(registry: Registry, obj: JsonObject, dryRun: boolean): Promise<void>;
  /** Shapes the object a delete answers with. */
  prepareForDelete?(obj: JsonObject): void;
  /** A change besides the spec's that counts as a new generation. */
  generationChange?(next: JsonObject, current: JsonObject): boolean;
  /** Graceful deletion: the grace period (seconds) a delete gives the object; 0 deletes at once. */
  gracePeriod?(obj: JsonObject, requested: number | undefined): number;
  /** The propagation policy of a delete that names none (the reference's DefaultGarbageCollectionPolicy). */
  defaultPropagation?(version: string): 'Orphan' | 'Background' | undefined;
  /** A hold on deletion beyond metadata.finalizers (namespaces: spec.finalizers). */
  heldBySpec?(obj: JsonObject): boolean;
}

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
    // A generated name is only known now.
    namespaceLabel(obj);
    const spec = (obj['spec'] ?? {}) as JsonObject;
    if (!Array.isArray(spec['finalizers'])) spec['finalizers'] = ['kubernetes'];
    obj['spec'] = spec;
    obj['status'] = { phase: 'Active' };
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
  // A pod on a node gets its grace period (the request's, else its terminationGracePeriodSeconds,
  // else 30) for the node agent to stop it; an unscheduled or finished pod goes at once.
  gracePeriod(obj, requested) {
    const spec = (obj['spec'] ?? {}) as JsonObject;
    const phase = ((obj['status'] ?? {}) as JsonObject)['phase'];
    if (!spec['nodeName'] || phase === 'Succeeded' || phase === 'Failed') return 0;
    const own = typeof spec['terminationGracePeriodSeconds'] === 'number' ? spec['terminationGracePeriodSeconds'] : 30;
    const grace = requested ?? own;
    // The reference turns a negative request into the shortest real grace period.
    return grace < 0 ? 1 : grace;
  },
};

// v1 ReplicationControllers orphan their pods unless told otherwise, for compatibility.
const replicationControllers: Strategy = {
  defaultPropagation: (version) => (version === 'v1' ? 'Orphan' : undefined),
};

// A CertificateSigningRequest records who asked for it; only the server fills these fields.
const certificateSigningRequests: Strategy = {
  prepareForCreate(obj, user) {
    const spec = (obj['spec'] ?? {}) as JsonObject;
    for (const k of ['username', 'uid', 'groups', 'extra']) delete spec[k];
    spec['username'] = user.name;
    if (user.uid) spec['uid'] = user.uid;
    if (user.groups.length) spec['groups'] = [...user.groups];
    if (user.extra && Object.keys(user.extra).length) spec['extra'] = structuredClone(user.extra);
    obj['spec'] = spec;
  },
};

// apps/v1 carries a DaemonSet's template generation in an annotation: read at decoding (0 when
// absent), 1 at creation, and one more for every change of the template.
const TEMPLATE_GENERATION = 'deprecated.daemonset.template.generation';

function annotationsOf(obj: JsonObject): Record<string, string> {
  const meta = metadataOf(obj);
  const annotations = (typeof meta['annotations'] === 'object' && meta['annotations'] !== null ? meta['annotations'] : {}) as Record<string, string>;
  meta['annotations'] = annotations;
  return annotations;
}

function templateOf(obj: JsonObject): unknown {
  return ((obj['spec'] ?? {}) as JsonObject)['template'];
}

const daemonSets: Strategy = {
  normalize(obj) {
    const annotations = annotationsOf(obj);
    annotations[TEMPLATE_GENERATION] = String(Number(annotations[TEMPLATE_GENERATION]) || 0);
  },
  prepareForCreate(obj) {
    annotationsOf(obj)[TEMPLATE_GENERATION] = '1';
  },
  prepareForUpdate(next, current) {
    const before = Number(annotationsOf(structuredClone(current))[TEMPLATE_GENERATION]) || 0;
    const changed = JSON.stringify(templateOf(next)) !== JSON.stringify(templateOf(current));
    annotationsOf(next)[TEMPLATE_GENERATION] = String(changed ? before + 1 : before);
  },
};

// A Job selects its own pods by its uid unless it asks for a manual selector; it is tracked with
// finalizers (the 1.25 default).
const jobs: Strategy = {
  prepareForCreate(obj) {
    const meta = metadataOf(obj);
    annotationsOf(obj)['batch.kubernetes.io/job-tracking'] = '';
    const spec = (typeof obj['spec'] === 'object' && obj['spec'] !== null ? obj['spec'] : {}) as JsonObject;
    obj['spec'] = spec;
    if (spec['manualSelector'] === true) return;
    const template = (typeof spec['template'] === 'object' && spec['template'] !== null ? spec['template'] : {}) as JsonObject;
    spec['template'] = template;
    const templateMeta = (typeof template['metadata'] === 'object' && template['metadata'] !== null ? template['metadata'] : {}) as JsonObject;
    template['metadata'] = templateMeta;
    const labels = (typeof templateMeta['labels'] === 'object' && templateMeta['labels'] !== null ? templateMeta['labels'] : {}) as Record<string, string>;
    templateMeta['labels'] = labels;
    labels['controller-uid'] ??= String(meta['uid']);
    labels['job-name'] ??= String(meta['name']);
    const selector = (typeof spec['selector'] === 'object' && spec['selector'] !== null ? spec['selector'] : {}) as JsonObject;
    spec['selector'] = selector;
    const matchLabels = (typeof selector['matchLabels'] === 'object' && selector['matchLabels'] !== null ? selector['matchLabels'] : {}) as Record<string, string>;
    selector['matchLabels'] = matchLabels;
    matchLabels['controller-uid'] ??= String(meta['uid']);
  },
};

// A Deployment's annotations are copied to its ReplicaSets, so changing them is a new generation.
const deployments: Strategy = {
  generationChange: (next, current) => JSON.stringify(metadataOf(next)['annotations'] ?? {}) !== JSON.stringify(metadataOf(current)['annotations'] ?? {}),
};

const createOnUpdate: Strategy = { allowCreateOnUpdate: true };

const STRATEGIES: Record<string, Strategy> = {
  '/namespaces': namespaces,
  '/secrets': secrets,
  '/pods': pods,
  '/replicationcontrollers': replicationControllers,
  'certificates.k8s.io/certificatesigningrequests': certificateSigningRequests,
  '/services': serviceStrategy,
  'apps/daemonsets': daemonSets,
  'apps/deployments': deployments,
  'batch/jobs': jobs,
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
