// The states of a StatefulSet's pods the reference's control loop decides on.
import { metadataOf } from '../../registry/objects.js';
import { type JsonObject, isObject } from '../../json.js';
import { isPodAvailable, isPodReady } from '../kit/owned.js';
import { POD_REVISION_LABEL } from '../kit/history.js';

function phaseOf(pod: JsonObject): unknown {
  return isObject(pod['status']) ? pod['status']['phase'] : undefined;
}

export const isFailed = (pod: JsonObject): boolean => phaseOf(pod) === 'Failed';
export const isTerminating = (pod: JsonObject): boolean => Boolean(metadataOf(pod)['deletionTimestamp']);
export const isRunningAndReady = (pod: JsonObject): boolean => phaseOf(pod) === 'Running' && isPodReady(pod);
export const isHealthy = (pod: JsonObject): boolean => isRunningAndReady(pod) && !isTerminating(pod);
export const isRunningAndAvailable = (pod: JsonObject, minReadySeconds: number): boolean =>
  phaseOf(pod) === 'Running' && isPodAvailable(pod, minReadySeconds);

/** The revision name a pod was made from. */
export function podRevision(pod: JsonObject): string | undefined {
  const labels = metadataOf(pod)['labels'];
  return isObject(labels) && typeof labels[POD_REVISION_LABEL] === 'string' ? (labels[POD_REVISION_LABEL] as string) : undefined;
}
