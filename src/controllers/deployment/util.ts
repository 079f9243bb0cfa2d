// What the deployment controller's steps share: reading a Deployment's and its ReplicaSets' fields,
// the rollout bounds (maxSurge rounds up, maxUnavailable down, as the reference), the annotations
// it keeps on ReplicaSets, and templates compared ignoring the pod-template-hash label.
import { metadataOf, storedAnnotationsIn } from '../../registry/objects.js';
import { type JsonObject, isObject, jsonEqual, copyJson } from '../../json.js';

export const HASH_LABEL = 'pod-template-hash';
export const REVISION = 'deployment.kubernetes.io/revision';
export const REVISION_HISTORY = 'deployment.kubernetes.io/revision-history';
export const DESIRED_REPLICAS = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS = 'deployment.kubernetes.io/max-replicas';
/** Annotations of the Deployment not copied to its ReplicaSets (the reference's skip list). */
const NOT_COPIED = new Set([
  'kubectl.kubernetes.io/last-applied-configuration', REVISION, REVISION_HISTORY, DESIRED_REPLICAS, MAX_REPLICAS,
  'deprecated.deployment.rollback.to',
]);

export function specOf(obj: JsonObject): JsonObject {
  return isObject(obj['spec']) ? obj['spec'] : {};
}

export function statusOf(obj: JsonObject): JsonObject {
  return isObject(obj['status']) ? obj['status'] : {};
}

export function nameOf(obj: JsonObject): string {
  return String(metadataOf(obj)['name']);
}

/** metadata.annotations to read. */
export const annotationsOf = storedAnnotationsIn;

/** spec.replicas (1 when absent, as defaulted). */
export function replicasOf(obj: JsonObject): number {
  const r = specOf(obj)['replicas'];
  return typeof r === 'number' ? r : 1;
}

export function statusCount(obj: JsonObject, field: string): number {
  const v = statusOf(obj)[field];
  return typeof v === 'number' ? v : 0;
}

export function revisionOf(rs: JsonObject): number {
  const n = Number(annotationsOf(rs)[REVISION] ?? '0');
  return Number.isFinite(n) ? n : 0;
}

export function isRecreate(d: JsonObject): boolean {
  const strategy = specOf(d)['strategy'];
  return isObject(strategy) && strategy['type'] === 'Recreate';
}

/** An int-or-percent against `total`, rounded up or down. */
function scaledValue(value: unknown, fallback: string, total: number, roundUp: boolean): number {
  const v = value ?? fallback;
  if (typeof v === 'number') return v;
  const m = /^(\d+)%$/.exec(String(v));
  if (!m) return 0;
  const exact = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

/** maxSurge and maxUnavailable as numbers (both 0 makes unavailable 1, as the reference). */
export function rolloutBounds(d: JsonObject): { surge: number; unavailable: number } {
  if (isRecreate(d)) return { surge: 0, unavailable: 0 };
  const strategy = specOf(d)['strategy'];
  const rolling = isObject(strategy) && isObject(strategy['rollingUpdate']) ? strategy['rollingUpdate'] : {};
  const replicas = replicasOf(d);
  const surge = scaledValue(rolling['maxSurge'], '25%', replicas, true);
  let unavailable = scaledValue(rolling['maxUnavailable'], '25%', replicas, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable };
}

/** maxUnavailable, never more than the replicas (0 for Recreate and for no replicas). */
export function maxUnavailable(d: JsonObject): number {
  if (isRecreate(d) || replicasOf(d) === 0) return 0;
  return Math.min(rolloutBounds(d).unavailable, replicasOf(d));
}

/** The template without the pod-template-hash label (an empty label map as none), for comparing. */
function withoutHash(template: unknown): unknown {
  const t = isObject(template) ? copyJson(template) : {};
  const meta = isObject(t['metadata']) ? t['metadata'] : undefined;
  if (meta && isObject(meta['labels'])) {
    delete meta['labels'][HASH_LABEL];
    if (Object.keys(meta['labels']).length === 0) delete meta['labels'];
  }
  if (meta && Object.keys(meta).length === 0) delete t['metadata'];
  return t;
}

/** Templates equal but for the pod-template-hash label (the reference's EqualIgnoreHash). */
export function equalIgnoreHash(a: unknown, b: unknown): boolean {
  return jsonEqual(withoutHash(a), withoutHash(b));
}

/** The Deployment's annotations a ReplicaSet carries; whether `rs` changed. */
export function copyAnnotations(d: JsonObject, rs: JsonObject): boolean {
  const meta = metadataOf(rs);
  const annotations: Record<string, string> = { ...annotationsOf(rs) };
  let changed = false;
  for (const [k, v] of Object.entries(annotationsOf(d))) {
    if (NOT_COPIED.has(k) || annotations[k] === v) continue;
    annotations[k] = v;
    changed = true;
  }
  if (changed) meta['annotations'] = annotations;
  return changed;
}

/** desired-replicas and max-replicas on `rs`; whether they changed. */
export function setReplicaAnnotations(d: JsonObject, rs: JsonObject): boolean {
  const meta = metadataOf(rs);
  const annotations: Record<string, string> = { ...annotationsOf(rs) };
  const desired = String(replicasOf(d));
  const max = String(replicasOf(d) + rolloutBounds(d).surge);
  if (annotations[DESIRED_REPLICAS] === desired && annotations[MAX_REPLICAS] === max) return false;
  annotations[DESIRED_REPLICAS] = desired;
  annotations[MAX_REPLICAS] = max;
  meta['annotations'] = annotations;
  return true;
}

export function byCreation(a: JsonObject, b: JsonObject): number {
  const ta = String(metadataOf(a)['creationTimestamp'] ?? '');
  const tb = String(metadataOf(b)['creationTimestamp'] ?? '');
  return ta < tb ? -1 : ta > tb ? 1 : nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0;
}

export function sumOf(list: JsonObject[], count: (rs: JsonObject) => number): number {
  return list.reduce((n, rs) => n + count(rs), 0);
}

export const specReplicas = (rs: JsonObject): number => replicasOf(rs);
export const actualReplicas = (rs: JsonObject): number => statusCount(rs, 'replicas');
export const availableReplicas = (rs: JsonObject): number => statusCount(rs, 'availableReplicas');
export const readyReplicas = (rs: JsonObject): number => statusCount(rs, 'readyReplicas');
