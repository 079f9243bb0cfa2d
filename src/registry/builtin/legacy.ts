// Per-resource facts still kept in tables keyed by "group/resource", looked up once when the
// built-in definitions are made.
import { isObject, now, type JsonObject } from '../../json.js';
import type { PartUpdate } from '../definitions.js';

/** "group/resource" → the path to the pod template within the object (what Pod Security looks into). */
const TEMPLATE_PATHS = new Map<string, string[]>([
  ['/podtemplates', ['template']],
  ['/replicationcontrollers', ['spec', 'template']],
  ['apps/replicasets', ['spec', 'template']],
  ['apps/deployments', ['spec', 'template']],
  ['apps/statefulsets', ['spec', 'template']],
  ['apps/daemonsets', ['spec', 'template']],
  ['batch/jobs', ['spec', 'template']],
  ['batch/cronjobs', ['spec', 'jobTemplate', 'spec', 'template']],
]);

/** The pod template's metadata and spec of a workload, or undefined when it has none (an optional one). */
export function podTemplateOf(group: string, resource: string): ((obj: JsonObject) => { metadata: JsonObject; spec: JsonObject } | undefined) | undefined {
  const path = TEMPLATE_PATHS.get(`${group}/${resource}`);
  if (!path) return undefined;
  return (obj) => {
    let at: JsonObject | undefined = obj;
    for (const key of path) at = isObject(at?.[key]) ? (at[key] as JsonObject) : undefined;
    if (!at) return undefined;
    return { metadata: isObject(at['metadata']) ? at['metadata'] : {}, spec: isObject(at['spec']) ? at['spec'] : {} };
  };
}

/** Condition times the writer left out: lastUpdateTime now, lastTransitionTime kept while the status stays. */
function conditionTimes(conditions: JsonObject[], previous: unknown): JsonObject[] {
  const before = Array.isArray(previous) ? (previous as JsonObject[]) : [];
  return conditions.map((c) => {
    if (typeof c !== 'object' || c === null) return c;
    const out = { ...c };
    if (!out['lastUpdateTime']) out['lastUpdateTime'] = now();
    if (!out['lastTransitionTime']) {
      const old = before.find((o) => o['type'] === c['type'] && o['status'] === c['status']);
      out['lastTransitionTime'] = old?.['lastTransitionTime'] ?? out['lastUpdateTime'];
    }
    return out;
  });
}

function withStatus(current: JsonObject, status: unknown): JsonObject {
  if (status === undefined) delete current['status'];
  else current['status'] = status;
  return current;
}

/** A copy of `current` whose spec field `field` is the desired object's. */
function specField(current: JsonObject, desired: JsonObject, field: string): JsonObject {
  const spec = { ...((current['spec'] ?? {}) as JsonObject) };
  const value = ((desired['spec'] ?? {}) as JsonObject)[field];
  if (value === undefined) delete spec[field];
  else spec[field] = value;
  return { ...current, spec };
}

/** What each subresource of a resource may change (beyond the generic status), by "group/resource". */
const PARTS: Record<string, Record<string, PartUpdate>> = {
  // namespaces/{name}/finalize: spec.finalizers only.
  '/namespaces': { finalize: (current, desired) => specField(current, desired, 'finalizers') },
  '/pods': {
    // pods/{name}/ephemeralcontainers: spec.ephemeralContainers.
    ephemeralcontainers: (current, desired) => specField(current, desired, 'ephemeralContainers'),
    // pods/{name}/binding: the server computes the whole bound pod (node name, condition, annotations).
    binding: (_current, desired) => desired,
  },
  // certificatesigningrequests/{name}/approval: the Approved / Denied conditions.
  'certificates.k8s.io/certificatesigningrequests': {
    approval(current, desired) {
      const status = { ...((current['status'] ?? {}) as JsonObject) };
      const conditions = ((desired['status'] ?? {}) as JsonObject)['conditions'];
      if (conditions === undefined) delete status['conditions'];
      else status['conditions'] = Array.isArray(conditions) ? conditionTimes(conditions as JsonObject[], status['conditions']) : conditions;
      return withStatus(current, status);
    },
  },
};

export function subresourcePartsOf(group: string, resource: string): Record<string, PartUpdate> | undefined {
  return PARTS[`${group}/${resource}`];
}
