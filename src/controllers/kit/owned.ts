// What the workload controllers share about the objects they own: the controller reference they
// put on them, pods made from a template as the reference's controllers make them, whether a pod
// is active or ready, and the claiming of objects by selector (adopting orphans that match,
// releasing owned ones that no longer do), as the reference's ControllerRefManager.
import { convertLabelSelector } from '../../api/label-selector-object.js';
import { metadataOf } from '../../registry/objects.js';
import type { ResourceInfo } from '../../registry/definitions.js';
import type { Registry, WriteContext } from '../../registry/store.js';
import { StatusError } from '../../errors.js';
import { type JsonObject, decodeJson, isObject, copyJson } from '../../json.js';

/** The controller reference to `owner` (a whole object with kind and apiVersion). */
export function controllerReference(owner: JsonObject): JsonObject {
  const meta = metadataOf(owner);
  return { apiVersion: owner['apiVersion'], kind: owner['kind'], name: meta['name'], uid: meta['uid'], controller: true, blockOwnerDeletion: true };
}

/** The owner reference marked controller, if any. */
export function controllerOf(obj: JsonObject): JsonObject | undefined {
  const refs = metadataOf(obj)['ownerReferences'];
  return Array.isArray(refs) ? (refs as JsonObject[]).find((r) => isObject(r) && r['controller'] === true) : undefined;
}

/** Whether `obj` is controlled by the object of that uid. */
export function isControlledBy(obj: JsonObject, ownerUid: unknown): boolean {
  return controllerOf(obj)?.['uid'] === ownerUid;
}

/**
 * A pod as the reference's controllers create it from a template: the template's labels,
 * annotations, finalizers and spec, `generateName` of `<prefix>` (usually `<owner>-`), and the
 * controller reference. `name` instead of generateName for controllers that name pods (StatefulSet).
 */
export function podFromTemplate(template: unknown, owner: JsonObject, naming: { generateName: string } | { name: string }): JsonObject {
  const t = isObject(template) ? template : {};
  const tmeta = isObject(t['metadata']) ? t['metadata'] : {};
  const metadata: JsonObject = { ...naming };
  for (const field of ['labels', 'annotations', 'finalizers'] as const) if (tmeta[field] !== undefined) metadata[field] = copyJson(tmeta[field]);
  metadata['ownerReferences'] = [controllerReference(owner)];
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec: copyJson(isObject(t['spec']) ? t['spec'] : {}) };
}

function statusOf(pod: JsonObject): JsonObject {
  return isObject(pod['status']) ? pod['status'] : {};
}

/** Not finished and not being deleted: counts toward a controller's replicas. */
export function isPodActive(pod: JsonObject): boolean {
  const phase = statusOf(pod)['phase'];
  return phase !== 'Succeeded' && phase !== 'Failed' && !metadataOf(pod)['deletionTimestamp'];
}

/** The pod's Ready condition, if any. */
export function readyCondition(pod: JsonObject): JsonObject | undefined {
  const conditions = statusOf(pod)['conditions'];
  return Array.isArray(conditions) ? (conditions as JsonObject[]).find((c) => isObject(c) && c['type'] === 'Ready') : undefined;
}

export function isPodReady(pod: JsonObject): boolean {
  return readyCondition(pod)?.['status'] === 'True';
}

/** Ready for at least minReadySeconds at `nowMs`. */
export function isPodAvailable(pod: JsonObject, minReadySeconds: number, nowMs = Date.now()): boolean {
  const ready = readyCondition(pod);
  if (ready?.['status'] !== 'True') return false;
  if (minReadySeconds <= 0) return true;
  const since = Date.parse(String(ready['lastTransitionTime'] ?? ''));
  return Number.isFinite(since) && since + minReadySeconds * 1000 <= nowMs;
}

/**
 * Claims the candidates (objects of the owner's namespace) for `owner`: those it controls that its
 * selector still matches are kept; orphans that match are adopted (unless the owner is being
 * deleted); owned ones that no longer match are released. Returns the objects it now controls.
 * Adoption and release are patches of ownerReferences; a candidate gone meanwhile is skipped.
 */
export async function claim(
  registry: Registry, info: ResourceInfo, writer: WriteContext, owner: JsonObject, selector: unknown, candidates: JsonObject[],
): Promise<JsonObject[]> {
  const ownerMeta = metadataOf(owner);
  const matcher = convertLabelSelector(selector);
  const matches = (obj: JsonObject) => !('error' in matcher) && !matcher.empty && matcher.matches((metadataOf(obj)['labels'] ?? {}) as Record<string, string>);
  const claimed: JsonObject[] = [];
  for (const obj of candidates) {
    const meta = metadataOf(obj);
    const ref = controllerOf(obj);
    if (ref) {
      if (ref['uid'] !== ownerMeta['uid']) continue;
      if (matches(obj)) claimed.push(obj);
      else if (!meta['deletionTimestamp']) await patchOwners(registry, info, writer, obj, (refs) => refs.filter((r) => r['uid'] !== ownerMeta['uid']));
      continue;
    }
    if (!matches(obj) || ownerMeta['deletionTimestamp'] || meta['deletionTimestamp']) continue;
    const adopted = await patchOwners(registry, info, writer, obj, (refs) => [...refs, controllerReference(owner)]);
    if (adopted) claimed.push(adopted);
  }
  return claimed;
}

/** Patches an object's ownerReferences as its current version has them; undefined when it is gone. */
async function patchOwners(
  registry: Registry, info: ResourceInfo, writer: WriteContext, obj: JsonObject, change: (refs: JsonObject[]) => JsonObject[],
): Promise<JsonObject | undefined> {
  const meta = metadataOf(obj);
  try {
    const result = await registry.patch(info, meta['namespace'] as string | undefined, String(meta['name']), (current) => {
      const cur = current as JsonObject;
      const cmeta = metadataOf(cur);
      const refs = Array.isArray(cmeta['ownerReferences']) ? (cmeta['ownerReferences'] as JsonObject[]) : [];
      const next = change(refs);
      const metadata: JsonObject = { ...cmeta, ownerReferences: next };
      if (next.length === 0) delete metadata['ownerReferences'];
      return { ...cur, metadata };
    }, undefined, writer);
    return decodeJson(result.body);
  } catch (err) {
    if (err instanceof StatusError && err.code === 404) return undefined;
    throw err;
  }
}
