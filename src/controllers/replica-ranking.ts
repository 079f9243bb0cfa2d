// Which of a controller's pods go first when it scales down, as the reference ranks them
// (ActivePodsWithRanks with LogarithmicScaleDown, on by default in 1.25): unassigned before
// assigned, pending before unknown before running, not ready before ready, lower
// pod-deletion-cost first, pods doubled up on a node first, ready for less time first (in
// powers of two), more restarts first, newer first (in powers of two).
import { metadataOf } from '../registry/objects.js';
import { type JsonObject, isObject } from '../json.js';
import { isPodReady, readyCondition } from './kit/owned.js';

const DELETION_COST = 'controller.kubernetes.io/pod-deletion-cost';

function phaseRank(pod: JsonObject): number {
  const phase = isObject(pod['status']) ? pod['status']['phase'] : undefined;
  return phase === 'Pending' ? 0 : phase === 'Unknown' ? 1 : phase === 'Running' ? 2 : 3;
}

function nodeOf(pod: JsonObject): string {
  const spec = isObject(pod['spec']) ? pod['spec'] : {};
  return typeof spec['nodeName'] === 'string' ? spec['nodeName'] : '';
}

function deletionCost(pod: JsonObject): number {
  const annotations = metadataOf(pod)['annotations'];
  const raw = isObject(annotations) ? annotations[DELETION_COST] : undefined;
  const n = typeof raw === 'string' ? Number(raw) : NaN;
  return Number.isInteger(n) ? n : 0;
}

function restarts(pod: JsonObject): number {
  const statuses = isObject(pod['status']) ? pod['status']['containerStatuses'] : undefined;
  if (!Array.isArray(statuses)) return 0;
  return Math.max(0, ...statuses.map((s) => (isObject(s) && typeof s['restartCount'] === 'number' ? s['restartCount'] : 0)));
}

/** floor(log2(seconds since `time`)) bucket, as the reference's logarithmic comparison; -1 for none. */
function logBucket(time: unknown, nowMs: number): number {
  const at = Date.parse(String(time ?? ''));
  if (!Number.isFinite(at)) return -1;
  const seconds = Math.max(0, Math.floor((nowMs - at) / 1000));
  return seconds < 1 ? 0 : Math.floor(Math.log2(seconds)) + 1;
}

/**
 * The first `count` pods to delete of `pods`; `related` are the active pods the owner's kin hold
 * (every pod counted for "doubled up on a node").
 */
export function podsToDelete(pods: JsonObject[], related: JsonObject[], count: number, nowMs = Date.now()): JsonObject[] {
  if (count >= pods.length) return pods;
  const perNode = new Map<string, number>();
  for (const p of related) {
    const node = nodeOf(p);
    if (node) perNode.set(node, (perNode.get(node) ?? 0) + 1);
  }
  const ranked = pods.map((pod) => ({
    pod,
    assigned: nodeOf(pod) ? 1 : 0,
    phase: phaseRank(pod),
    ready: isPodReady(pod) ? 1 : 0,
    cost: deletionCost(pod),
    doubledUp: nodeOf(pod) ? perNode.get(nodeOf(pod)) ?? 0 : 0,
    readyFor: isPodReady(pod) ? logBucket(readyCondition(pod)?.['lastTransitionTime'], nowMs) : -1,
    restarts: restarts(pod),
    age: logBucket(metadataOf(pod)['creationTimestamp'], nowMs),
    created: String(metadataOf(pod)['creationTimestamp'] ?? ''),
  }));
  ranked.sort((a, b) =>
    a.assigned - b.assigned
    || a.phase - b.phase
    || a.ready - b.ready
    || a.cost - b.cost
    || b.doubledUp - a.doubledUp
    || (a.ready && b.ready ? a.readyFor - b.readyFor : 0)
    || b.restarts - a.restarts
    || a.age - b.age
    || (a.created < b.created ? 1 : a.created > b.created ? -1 : 0));
  return ranked.slice(0, count).map((r) => r.pod);
}
