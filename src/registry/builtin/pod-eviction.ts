// pods/{name}/eviction: deletes the pod unless a PodDisruptionBudget forbids it (429 with the
// budget's cause). Pods that are not running (pending, finished, terminating) are deleted without
// consulting budgets.
import { selectsLabels } from '../../api/label-selector-object.js';
import { badRequest, internalError, notFound, StatusError } from '../../errors.js';
import { type JsonObject, decodeJson, isObject, now } from '../../json.js';
import type { CreateHook } from '../definitions.js';
import { metadataOf, objectField, stringField } from '../objects.js';
import { SYSTEM_WRITER, type DeleteOptions, type Registry } from '../store.js';
import { successStatus } from './success-status.js';

/** The budgets that select a pod (policy/v1: an empty selector selects every pod). */
async function budgetsFor(registry: Registry, pod: JsonObject, namespace: string): Promise<JsonObject[]> {
  const pdbInfo = registry.definitions.lookup('policy', 'v1', 'poddisruptionbudgets');
  if (!pdbInfo) return [];
  const list = await registry.list(pdbInfo, namespace);
  const labels = metadataOf(pod)['labels'] as Record<string, string> | undefined;
  return list.items.map((b) => decodeJson(b)).filter((pdb) => selectsLabels(objectField(pdb, 'spec')['selector'], labels));
}

function tooManyRequests(message: string, cause?: string): StatusError {
  return new StatusError(429, 'TooManyRequests', message, cause ? { causes: [{ reason: 'DisruptionBudget', message: cause }] } : {});
}

const VIOLATION = 'Cannot evict pod as it would violate the pod\'s disruption budget.';

function needsHealthy(pdbName: string, status: JsonObject): string {
  return `The disruption budget ${pdbName} needs ${Number(status['desiredHealthy'] ?? 0)} healthy pods and has ${Number(status['currentHealthy'] ?? 0)} currently`;
}

/** Counts the eviction against the pod's budget, or refuses it as the reference does. */
async function takeDisruption(registry: Registry, pod: JsonObject, namespace: string, podName: string, dryRun: boolean): Promise<void> {
  const budgets = await budgetsFor(registry, pod, namespace);
  if (budgets.length === 0) return;
  if (budgets.length > 1) throw internalError('This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
  const pdb = budgets[0]!;
  const pdbName = String(metadataOf(pdb)['name']);
  const status = objectField(pdb, 'status');
  const generation = Number(metadataOf(pdb)['generation'] ?? 0);
  if (Number(status['observedGeneration'] ?? 0) < generation) {
    throw tooManyRequests(VIOLATION, `The disruption budget ${pdbName} is still being processed by the server.`);
  }
  const allowed = Number(status['disruptionsAllowed'] ?? 0);
  if (allowed < 0) throw new StatusError(403, 'Forbidden', 'pdb disruptions allowed is negative', {});
  if (allowed === 0) throw tooManyRequests(VIOLATION, needsHealthy(pdbName, status));
  if (dryRun) return;
  const pdbInfo = registry.definitions.lookup('policy', 'v1', 'poddisruptionbudgets')!;
  // The budget's status records the disruption before the pod goes, so a racing eviction sees it.
  await registry.patch(pdbInfo, namespace, pdbName, (current) => {
    const s = objectField(current, 'status');
    const left = Number(s['disruptionsAllowed'] ?? 0);
    if (left <= 0) throw tooManyRequests(VIOLATION, needsHealthy(pdbName, s));
    s['disruptionsAllowed'] = left - 1;
    s['disruptedPods'] = { ...(isObject(s['disruptedPods']) ? s['disruptedPods'] : {}), [podName]: now() };
    current['status'] = s;
    return current;
  }, 'status', SYSTEM_WRITER);
}

/** The eviction's deleteOptions, on top of who evicts. */
function deleteOptionsOf(eviction: JsonObject, base: DeleteOptions): DeleteOptions {
  const given = objectField(eviction, 'deleteOptions');
  const options: DeleteOptions = { ...base };
  if (typeof given['gracePeriodSeconds'] === 'number') options.gracePeriodSeconds = given['gracePeriodSeconds'];
  if (isObject(given['preconditions'])) {
    const p = given['preconditions'];
    options.preconditions = { uid: stringField(p, 'uid'), resourceVersion: stringField(p, 'resourceVersion') };
  }
  if (Array.isArray(given['dryRun']) && given['dryRun'].includes('All')) options.dryRun = true;
  return options;
}

export const evictPod: CreateHook = async (registry, { info, namespace, name, body, writer }) => {
  const podName = name!;
  const ns = namespace!;
  const evictionName = stringField(metadataOf(body), 'name');
  if (evictionName !== undefined && evictionName !== podName) throw badRequest('name in URL does not match name in Eviction object');
  const options = deleteOptionsOf(body, { dryRun: writer.dryRun, user: writer.user, warnings: writer.warnings, admission: writer.admission });
  const pod = await registry.getObject(info, ns, podName);
  if (!pod) throw notFound({ group: '', resource: 'pods' }, podName);
  const phase = objectField(pod, 'status')['phase'];
  const terminating = Boolean(metadataOf(pod)['deletionTimestamp']);
  if (phase === 'Running' && !terminating) await takeDisruption(registry, pod, ns, podName, options.dryRun ?? false);
  await registry.delete(info, ns, podName, options);
  return { status: 201, body: successStatus(201) };
};
