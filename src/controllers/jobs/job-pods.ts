// What the Job controller reads from pods and writes on Jobs: the tracking finalizer, how pods
// count (succeeded, failed, terminating), which active pods go first, and the Job's conditions.
import { metadataOf } from '../../registry/objects.js';
import { isPodReady } from '../kit/owned.js';
import { type JsonObject, isObject, now } from '../../json.js';

/** The finalizer the Job controller puts on its pods until it has counted them (JobTrackingWithFinalizers, on in 1.25). */
export const TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking';

export function phaseOf(pod: JsonObject): unknown {
  return isObject(pod['status']) ? pod['status']['phase'] : undefined;
}

export function hasTrackingFinalizer(pod: JsonObject): boolean {
  const finalizers = metadataOf(pod)['finalizers'];
  return Array.isArray(finalizers) && finalizers.includes(TRACKING_FINALIZER);
}

export function uidOf(obj: JsonObject): string {
  return String(metadataOf(obj)['uid'] ?? '');
}

/** Sum of the restarts of a pod's containers (OnFailure pods fail in place). */
export function restartsOf(pod: JsonObject): number {
  const status = isObject(pod['status']) ? pod['status'] : {};
  let total = 0;
  for (const field of ['initContainerStatuses', 'containerStatuses']) {
    const list = status[field];
    if (Array.isArray(list)) for (const s of list) if (isObject(s) && typeof s['restartCount'] === 'number') total += s['restartCount'];
  }
  return total;
}

function phaseRank(pod: JsonObject): number {
  const phase = phaseOf(pod);
  return phase === 'Pending' ? 0 : phase === 'Running' ? 2 : 1;
}

/**
 * Active pods in the order the reference removes them: unscheduled before scheduled, pending
 * before unknown before running, not ready before ready, more restarts first, newer first.
 */
export function removalOrder(pods: JsonObject[]): JsonObject[] {
  const key = (p: JsonObject) => {
    const spec = isObject(p['spec']) ? p['spec'] : {};
    return [spec['nodeName'] ? 1 : 0, phaseRank(p), isPodReady(p) ? 1 : 0, -restartsOf(p), -Date.parse(String(metadataOf(p)['creationTimestamp'] ?? 0)) || 0];
  };
  return [...pods].map((p) => ({ p, k: key(p) })).sort((a, b) => {
    for (let i = 0; i < a.k.length; i++) if (a.k[i] !== b.k[i]) return a.k[i]! - b.k[i]!;
    return 0;
  }).map((x) => x.p);
}

// ---- conditions ----

export function conditionsOf(job: JsonObject): JsonObject[] {
  const status = isObject(job['status']) ? job['status'] : {};
  return Array.isArray(status['conditions']) ? (status['conditions'] as JsonObject[]) : [];
}

/** A new condition as the reference writes one (empty reason and message left out). */
export function newCondition(type: string, status: 'True' | 'False', reason = '', message = ''): JsonObject {
  const time = now();
  const c: JsonObject = { type, status, lastProbeTime: time, lastTransitionTime: time };
  if (reason) c['reason'] = reason;
  if (message) c['message'] = message;
  return c;
}

/** The Complete or Failed condition that is True, if the Job has finished. */
export function finishedCondition(job: JsonObject): JsonObject | undefined {
  return conditionsOf(job).find((c) => (c['type'] === 'Complete' || c['type'] === 'Failed') && c['status'] === 'True');
}

/**
 * The conditions with one of `type` at `status`: changed in place when present with another
 * status (or reason), added when absent and True. Returns undefined when nothing changes.
 */
export function ensureCondition(conditions: JsonObject[], type: string, status: 'True' | 'False', reason: string, message: string): JsonObject[] | undefined {
  const i = conditions.findIndex((c) => c['type'] === type);
  if (i < 0) return status === 'True' ? [...conditions, newCondition(type, status, reason, message)] : undefined;
  const current = conditions[i]!;
  if (current['status'] === status && (current['reason'] ?? '') === reason && (current['message'] ?? '') === message) return undefined;
  const next = [...conditions];
  next[i] = current['status'] === status
    ? { ...current, reason, message, lastProbeTime: now() }
    : newCondition(type, status, reason, message);
  return next;
}
