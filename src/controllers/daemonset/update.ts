// A DaemonSet's rolling update step, as the reference's rollingUpdate: with no surge, old pods are
// deleted while fewer than maxUnavailable daemon pods are unavailable (old pods already
// unavailable go at once); with surge, new pods are made beside available old ones (up to
// maxSurge) and an old pod goes once its node's new pod is available.
import { metadataOf } from '../../registry/objects.js';
import { type JsonObject, isObject } from '../../json.js';
import { isPodAvailable } from '../kit/owned.js';
import { POD_REVISION_LABEL } from '../kit/history.js';

/** An int-or-percent of `total`, percentages rounded up as the reference's. */
export function scaledValue(value: unknown, total: number, fallback: number): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^\d+%$/.test(value)) return Math.ceil((Number(value.slice(0, -1)) * total) / 100);
  if (typeof value === 'string' && /^\d+$/.test(value)) return Number(value);
  return fallback;
}

export function rollingLimits(ds: JsonObject, desired: number): { maxSurge: number; maxUnavailable: number } {
  const spec = isObject(ds['spec']) ? ds['spec'] : {};
  const strategy = isObject(spec['updateStrategy']) ? spec['updateStrategy'] : {};
  const rolling = isObject(strategy['rollingUpdate']) ? strategy['rollingUpdate'] : {};
  const maxSurge = scaledValue(rolling['maxSurge'], desired, 0);
  let maxUnavailable = scaledValue(rolling['maxUnavailable'], desired, 1);
  if (maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
  return { maxSurge, maxUnavailable };
}

/** The template generation the set's deprecated annotation records. */
export function templateGeneration(ds: JsonObject): string | undefined {
  const annotations = metadataOf(ds)['annotations'];
  const value = isObject(annotations) ? annotations['deprecated.daemonset.template.generation'] : undefined;
  return typeof value === 'string' ? value : undefined;
}

/** Whether the pod was made from the current template (its revision hash, or the old generation label). */
export function isPodUpdated(pod: JsonObject, hash: string, generation: string | undefined): boolean {
  const labels = (metadataOf(pod)['labels'] ?? {}) as Record<string, string>;
  return labels[POD_REVISION_LABEL] === hash || (generation !== undefined && labels['pod-template-generation'] === generation);
}

export interface RollingStep {
  deletePods: JsonObject[];
  createOnNodes: string[];
}

export function rollingStep(
  ds: JsonObject, nodeToPods: Map<string, JsonObject[]>, desired: number, hash: string, nowMs: number,
): RollingStep {
  const spec = isObject(ds['spec']) ? ds['spec'] : {};
  const minReady = typeof spec['minReadySeconds'] === 'number' ? spec['minReadySeconds'] : 0;
  const generation = templateGeneration(ds);
  const { maxSurge, maxUnavailable } = rollingLimits(ds, desired);
  const available = (pod: JsonObject) => isPodAvailable(pod, minReady, nowMs);
  const step: RollingStep = { deletePods: [], createOnNodes: [] };
  if (maxSurge === 0) {
    let unavailable = 0;
    const candidates: JsonObject[] = [];
    for (const pods of nodeToPods.values()) {
      const split = splitOnNode(pods, hash, generation);
      if (!split) { unavailable++; continue; }
      const { newPod, oldPod } = split;
      if ((!oldPod && !newPod) || (oldPod && newPod)) unavailable++;
      else if (newPod) { if (!available(newPod)) unavailable++; }
      else if (!available(oldPod!)) step.deletePods.push(oldPod!);
      else if (unavailable < maxUnavailable) candidates.push(oldPod!);
    }
    const remaining = Math.min(Math.max(0, maxUnavailable - unavailable), candidates.length);
    step.deletePods.push(...candidates.slice(0, remaining));
    return step;
  }
  let surging = 0;
  const candidates: string[] = [];
  for (const [node, pods] of nodeToPods) {
    const split = splitOnNode(pods, hash, generation);
    if (!split) continue;
    const { newPod, oldPod } = split;
    if (!oldPod) continue;
    if (!newPod) {
      if (!available(oldPod)) step.createOnNodes.push(node);
      else if (surging < maxSurge) candidates.push(node);
      continue;
    }
    if (!available(newPod)) { surging++; continue; }
    step.deletePods.push(oldPod);
  }
  const remaining = Math.min(Math.max(0, maxSurge - surging), candidates.length);
  step.createOnNodes.push(...candidates.slice(0, remaining));
  return step;
}

/** A node's single new and single old pod; undefined when there are more (the manage step cleans those). */
function splitOnNode(pods: JsonObject[], hash: string, generation: string | undefined): { newPod?: JsonObject; oldPod?: JsonObject } | undefined {
  let newPod: JsonObject | undefined;
  let oldPod: JsonObject | undefined;
  for (const pod of pods) {
    if (metadataOf(pod)['deletionTimestamp']) continue;
    if (isPodUpdated(pod, hash, generation)) {
      if (newPod) return undefined;
      newPod = pod;
    } else {
      if (oldPod) return undefined;
      oldPod = pod;
    }
  }
  return { newPod, oldPod };
}
