// What the persistentvolume-binder reads from claims, volumes and classes, and the names the
// reference writes: annotations, phases, event reasons.
import { annotationsIn as annotationsOf, metadataOf } from '../../registry/objects.js';
import { type JsonObject, isObject } from '../../json.js';

export const ANN_BIND_COMPLETED = 'pv.kubernetes.io/bind-completed';
export const ANN_BOUND_BY_CONTROLLER = 'pv.kubernetes.io/bound-by-controller';
export const ANN_PROVISIONED_BY = 'pv.kubernetes.io/provisioned-by';
export const ANN_MIGRATED_TO = 'pv.kubernetes.io/migrated-to';
export const ANN_SELECTED_NODE = 'volume.kubernetes.io/selected-node';
export const ANN_STORAGE_PROVISIONER = 'volume.kubernetes.io/storage-provisioner';
export const ANN_BETA_STORAGE_PROVISIONER = 'volume.beta.kubernetes.io/storage-provisioner';
/** The deprecated class annotation, which wins over spec.storageClassName. */
const ANN_BETA_STORAGE_CLASS = 'volume.beta.kubernetes.io/storage-class';

export type VolumePhase = 'Pending' | 'Available' | 'Bound' | 'Released' | 'Failed';
export type ClaimPhase = 'Pending' | 'Bound' | 'Lost';

export function specOf(obj: JsonObject): JsonObject {
  return isObject(obj['spec']) ? obj['spec'] : {};
}

export function statusOf(obj: JsonObject): JsonObject {
  return isObject(obj['status']) ? obj['status'] : {};
}

/** metadata.annotations to read (registry/objects.ts annotationsIn). */
export { annotationsOf };

export function hasAnnotation(obj: JsonObject, key: string): boolean {
  return Object.hasOwn(annotationsOf(obj), key);
}

/** The object with `key: value` among its annotations, kept in key order as the reference's maps serialize. */
export function withAnnotation(obj: JsonObject, key: string, value: string): JsonObject {
  const merged: Record<string, unknown> = { ...annotationsOf(obj), [key]: value };
  const annotations = Object.fromEntries(Object.keys(merged).sort().map((k) => [k, merged[k]]));
  return { ...obj, metadata: { ...metadataOf(obj), annotations } };
}

export function withoutAnnotation(obj: JsonObject, key: string): JsonObject {
  const rest = { ...annotationsOf(obj) };
  delete rest[key];
  const metadata = { ...metadataOf(obj) };
  if (Object.keys(rest).length) metadata['annotations'] = rest;
  else delete metadata['annotations'];
  return { ...obj, metadata };
}

export function nameOf(obj: JsonObject): string {
  return String(metadataOf(obj)['name'] ?? '');
}

export function namespaceOf(obj: JsonObject): string {
  return String(metadataOf(obj)['namespace'] ?? '');
}

export function uidOf(obj: JsonObject): string {
  return String(metadataOf(obj)['uid'] ?? '');
}

export function resourceVersionOf(obj: JsonObject): string {
  return String(metadataOf(obj)['resourceVersion'] ?? '');
}

export function isDeleting(obj: JsonObject): boolean {
  return Boolean(metadataOf(obj)['deletionTimestamp']);
}

/** `namespace/name`, as the reference names claims in its messages. */
export function claimKey(claim: JsonObject): string {
  return `${namespaceOf(claim)}/${nameOf(claim)}`;
}

export function claimClass(claim: JsonObject): string {
  const ann = annotationsOf(claim)[ANN_BETA_STORAGE_CLASS];
  if (typeof ann === 'string') return ann;
  const cls = specOf(claim)['storageClassName'];
  return typeof cls === 'string' ? cls : '';
}

export function volumeClass(volume: JsonObject): string {
  const ann = annotationsOf(volume)[ANN_BETA_STORAGE_CLASS];
  if (typeof ann === 'string') return ann;
  const cls = specOf(volume)['storageClassName'];
  return typeof cls === 'string' ? cls : '';
}

export function volumeName(claim: JsonObject): string {
  const v = specOf(claim)['volumeName'];
  return typeof v === 'string' ? v : '';
}

export interface ClaimRef {
  namespace: string;
  name: string;
  uid: string;
}

export function claimRefOf(volume: JsonObject): ClaimRef | undefined {
  const ref = specOf(volume)['claimRef'];
  if (!isObject(ref)) return undefined;
  return { namespace: String(ref['namespace'] ?? ''), name: String(ref['name'] ?? ''), uid: String(ref['uid'] ?? '') };
}

export function phaseOf(obj: JsonObject): string {
  return String(statusOf(obj)['phase'] ?? '');
}

export function accessModesOf(obj: JsonObject): string[] {
  const m = specOf(obj)['accessModes'];
  return Array.isArray(m) ? m.map(String) : [];
}

/** The volume mode, Filesystem when unset (the reference's default for an older server's objects). */
export function volumeModeOf(obj: JsonObject): string {
  const m = specOf(obj)['volumeMode'];
  return typeof m === 'string' && m ? m : 'Filesystem';
}

/** Whether the volume's claimRef names this claim (and, once it has a uid, this very claim). */
export function isVolumeBoundToClaim(volume: JsonObject, claim: JsonObject): boolean {
  const ref = claimRefOf(volume);
  if (!ref || ref.name !== nameOf(claim) || ref.namespace !== namespaceOf(claim)) return false;
  return ref.uid === '' || ref.uid === uidOf(claim);
}

/** The claim reference the reference's GetReference makes. */
export function referenceTo(claim: JsonObject): JsonObject {
  return {
    kind: 'PersistentVolumeClaim', namespace: namespaceOf(claim), name: nameOf(claim), uid: uidOf(claim),
    apiVersion: 'v1', resourceVersion: resourceVersionOf(claim),
  };
}
