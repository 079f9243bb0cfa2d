// A Deployment's status from its ReplicaSets and its conditions as the reference sets them:
// Available (minimum availability), Progressing (a new ReplicaSet created or found, progress,
// completion, the progress deadline, pause and resume) and ReplicaFailure copied from its ReplicaSets.
import { metadataOf } from '../../registry/objects.js';
import { type JsonObject, now } from '../../json.js';
import {
  actualReplicas, availableReplicas, maxUnavailable, nameOf, readyReplicas, replicasOf, specOf, specReplicas, statusOf, sumOf,
} from './util.js';

export const PROGRESSING = 'Progressing';
export const AVAILABLE = 'Available';
export const REPLICA_FAILURE = 'ReplicaFailure';
export const TIMED_OUT = 'ProgressDeadlineExceeded';
export const NEW_RS_AVAILABLE = 'NewReplicaSetAvailable';
export const PAUSED = 'DeploymentPaused';
export const RESUMED = 'DeploymentResumed';

export function conditionsOf(status: JsonObject): JsonObject[] {
  return Array.isArray(status['conditions']) ? (status['conditions'] as JsonObject[]) : [];
}

export function conditionOf(status: JsonObject, type: string): JsonObject | undefined {
  return conditionsOf(status).find((c) => c['type'] === type);
}

export function newCondition(type: string, status: string, reason: string, message: string): JsonObject {
  const t = now();
  return { type, status, lastUpdateTime: t, lastTransitionTime: t, reason, message };
}

/** Sets a condition as the reference's SetDeploymentCondition: same status and reason is no change; same status keeps the transition time. */
export function setCondition(status: JsonObject, condition: JsonObject): void {
  const current = conditionOf(status, String(condition['type']));
  if (current && current['status'] === condition['status'] && current['reason'] === condition['reason']) return;
  const next = { ...condition };
  if (current && current['status'] === condition['status']) next['lastTransitionTime'] = current['lastTransitionTime'];
  status['conditions'] = [...conditionsOf(status).filter((c) => c['type'] !== condition['type']), next];
}

export function removeCondition(status: JsonObject, type: string): void {
  const rest = conditionsOf(status).filter((c) => c['type'] !== type);
  if (rest.length) status['conditions'] = rest;
  else delete status['conditions'];
}

/** progressDeadlineSeconds, unless absent or "never" (MaxInt32). */
export function progressDeadline(d: JsonObject): number | undefined {
  const v = specOf(d)['progressDeadlineSeconds'];
  return typeof v === 'number' && v < 2147483647 ? v : undefined;
}

/** The counts and the Available condition of `d` from its ReplicaSets; other conditions carried over. */
export function calculateStatus(d: JsonObject, all: JsonObject[], newRS: JsonObject | undefined): JsonObject {
  const previous = statusOf(d);
  const available = sumOf(all, availableReplicas);
  const total = sumOf(all, actualReplicas);
  // As the reference: the replicas asked of the ReplicaSets that are not available yet.
  const unavailable = Math.max(0, sumOf(all, specReplicas) - available);
  const status: JsonObject = {};
  const generation = metadataOf(d)['generation'];
  if (typeof generation === 'number' && generation) status['observedGeneration'] = generation;
  const counts: Array<[string, number]> = [
    ['replicas', total],
    ['updatedReplicas', newRS ? actualReplicas(newRS) : 0],
    ['readyReplicas', sumOf(all, readyReplicas)],
    ['availableReplicas', available],
    ['unavailableReplicas', unavailable],
  ];
  for (const [field, n] of counts) if (n) status[field] = n;
  if (conditionsOf(previous).length) status['conditions'] = conditionsOf(previous).map((c) => ({ ...c }));
  if (previous['collisionCount'] !== undefined) status['collisionCount'] = previous['collisionCount'];
  if (available >= replicasOf(d) - maxUnavailable(d)) setCondition(status, newCondition(AVAILABLE, 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.'));
  else setCondition(status, newCondition(AVAILABLE, 'False', 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.'));
  return status;
}

/** Every replica updated and available, and the spec observed. */
export function isComplete(d: JsonObject, status: JsonObject): boolean {
  const r = replicasOf(d);
  const count = (f: string) => (typeof status[f] === 'number' ? (status[f] as number) : 0);
  return count('updatedReplicas') === r && count('replicas') === r && count('availableReplicas') === r
    && count('observedGeneration') >= Number(metadataOf(d)['generation'] ?? 0);
}

/** Any progress since the status last written: more updated, ready or available, fewer old. */
function madeProgress(d: JsonObject, status: JsonObject): boolean {
  const before = statusOf(d);
  const n = (s: JsonObject, f: string) => (typeof s[f] === 'number' ? (s[f] as number) : 0);
  return n(status, 'updatedReplicas') > n(before, 'updatedReplicas')
    || n(status, 'replicas') - n(status, 'updatedReplicas') < n(before, 'replicas') - n(before, 'updatedReplicas')
    || n(status, 'readyReplicas') > n(before, 'readyReplicas')
    || n(status, 'availableReplicas') > n(before, 'availableReplicas');
}

/** Whether the Progressing condition's last update is older than the deadline. */
export function timedOut(d: JsonObject, status: JsonObject, nowMs = Date.now()): boolean {
  const deadline = progressDeadline(d);
  const cond = conditionOf(status, PROGRESSING);
  if (deadline === undefined || !cond) return false;
  if (cond['reason'] === NEW_RS_AVAILABLE) return false;
  if (cond['reason'] === TIMED_OUT) return true;
  const from = Date.parse(String(cond['lastUpdateTime'] ?? ''));
  return Number.isFinite(from) && from + deadline * 1000 < nowMs;
}

/** The status after a rollout step: counts, Available, Progressing and ReplicaFailure. */
export function rolloutStatus(d: JsonObject, all: JsonObject[], newRS: JsonObject | undefined): JsonObject {
  const status = calculateStatus(d, all, newRS);
  if (progressDeadline(d) === undefined) removeCondition(status, PROGRESSING);
  const current = conditionOf(status, PROGRESSING);
  if (progressDeadline(d) !== undefined && current?.['reason'] !== TIMED_OUT) {
    if (isComplete(d, status)) {
      const msg = newRS ? `ReplicaSet "${nameOf(newRS)}" has successfully progressed.` : 'Deployment has successfully progressed.';
      setCondition(status, newCondition(PROGRESSING, 'True', NEW_RS_AVAILABLE, msg));
    } else if (madeProgress(d, status)) {
      const msg = newRS ? `ReplicaSet "${nameOf(newRS)}" is progressing.` : 'Deployment is progressing.';
      const cond = newCondition(PROGRESSING, 'True', 'ReplicaSetUpdated', msg);
      // Progress moves lastUpdateTime even with the same reason; a True condition keeps its transition time.
      if (current?.['status'] === 'True') cond['lastTransitionTime'] = current['lastTransitionTime'];
      removeCondition(status, PROGRESSING);
      setCondition(status, cond);
    } else if (timedOut(d, status)) {
      const msg = newRS ? `ReplicaSet "${nameOf(newRS)}" has timed out progressing.` : `Deployment "${nameOf(d)}" has timed out progressing.`;
      setCondition(status, newCondition(PROGRESSING, 'False', TIMED_OUT, msg));
    }
  }
  // The new ReplicaSet's failure first, then the old ones', as the reference's getReplicaFailures.
  const failure = [...(newRS ? [newRS] : []), ...all.filter((rs) => rs !== newRS)].map((rs) => conditionOf(statusOf(rs), REPLICA_FAILURE)).find((c) => c !== undefined);
  if (failure) setCondition(status, { type: REPLICA_FAILURE, status: failure['status'], lastUpdateTime: failure['lastTransitionTime'], lastTransitionTime: failure['lastTransitionTime'], reason: failure['reason'], message: failure['message'] });
  else removeCondition(status, REPLICA_FAILURE);
  return status;
}

/** When to look again so the deadline is noticed (ms), if the rollout is still under way. */
export function requeueAfter(d: JsonObject, status: JsonObject, nowMs = Date.now()): number | undefined {
  const deadline = progressDeadline(d);
  const cond = conditionOf(status, PROGRESSING);
  if (deadline === undefined || !cond || isComplete(d, status) || cond['reason'] === TIMED_OUT) return undefined;
  const from = Date.parse(String(cond['lastUpdateTime'] ?? ''));
  if (!Number.isFinite(from)) return undefined;
  return Math.max(0, from + deadline * 1000 - nowMs) + 1000;
}
