// The core group's strategies (besides Services', in ../allocators): what the reference's
// registries do to namespaces, secrets, pods and replication controllers beyond the generic store.
import { metadataOf } from '../objects.js';
import type { Strategy } from '../strategies.js';
import { isObject, type JsonObject } from '../../json.js';

function namespaceLabel(obj: JsonObject): void {
  const meta = metadataOf(obj);
  const labels = (meta['labels'] ?? {}) as Record<string, string>;
  labels['kubernetes.io/metadata.name'] = String(meta['name']);
  meta['labels'] = labels;
}

export const namespaceStrategy: Strategy = {
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

export const secretStrategy: Strategy = {
  normalize: mergeStringData,
};

/** The QoS class the reference derives from the containers' requests and limits. */
function qosClass(pod: JsonObject): string {
  const spec = isObject(pod['spec']) ? pod['spec'] : {};
  const listOf = (key: string) => (Array.isArray(spec[key]) ? (spec[key] as unknown[]).filter(isObject) : []);
  let any = false;
  let guaranteed = true;
  for (const c of [...listOf('initContainers'), ...listOf('containers')]) {
    const resources = isObject(c['resources']) ? c['resources'] : {};
    const requests = isObject(resources['requests']) ? resources['requests'] : {};
    const limits = isObject(resources['limits']) ? resources['limits'] : {};
    for (const r of ['cpu', 'memory']) {
      if (requests[r] !== undefined || limits[r] !== undefined) any = true;
      if (limits[r] === undefined || (requests[r] !== undefined && String(requests[r]) !== String(limits[r]))) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

export const podStrategy: Strategy = {
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
export const replicationControllerStrategy: Strategy = {
  defaultPropagation: (version) => (version === 'v1' ? 'Orphan' : undefined),
};
