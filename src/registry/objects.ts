// Small helpers on API objects as plain JSON: metadata access, canonical key order, encoding.
import { decodeJson, isObject, type JsonObject } from '../json.js';

export function metadataOf(obj: JsonObject): JsonObject {
  if (!isObject(obj['metadata'])) obj['metadata'] = {};
  return obj['metadata'] as JsonObject;
}

export function stringField(obj: JsonObject, key: string): string | undefined {
  const v = obj[key];
  return typeof v === 'string' ? v : undefined;
}

/** An object-valued field; {} when absent or not an object (a copy's root to read, or to write back). */
export function objectField(obj: JsonObject, key: string): JsonObject {
  const v = obj[key];
  return isObject(v) ? v : {};
}

// ObjectMeta fields in the order the reference serializes them.
const METADATA_ORDER = [
  'name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp',
  'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'managedFields',
];

function orderedMetadata(meta: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const k of METADATA_ORDER) if (meta[k] !== undefined) out[k] = meta[k];
  for (const k of Object.keys(meta)) if (!(k in out) && meta[k] !== undefined) out[k] = meta[k];
  return out;
}

/** kind, apiVersion and metadata first (as the reference's structs), the rest in the order given. */
export function canonical(obj: JsonObject, kind: string, apiVersion: string): JsonObject {
  const out: JsonObject = { kind, apiVersion, metadata: orderedMetadata(metadataOf(obj)) };
  for (const k of Object.keys(obj)) if (!(k in out) && k !== 'status') out[k] = obj[k];
  // status last, as it comes after spec in the reference's types.
  if (obj['status'] !== undefined) out['status'] = obj['status'];
  return out;
}

/**
 * Bytes that will be kept (stored values): in an allocation of their own, so that a long-lived
 * object does not pin an 8 KiB slab of Node's shared pool along with it.
 */
export function encodeKept(obj: JsonObject): Buffer {
  const text = JSON.stringify(obj);
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text);
  return bytes;
}

/** Everything but metadata and status: what a generation bump watches. */
export function specOf(obj: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const k of Object.keys(obj)) if (k !== 'metadata' && k !== 'status' && k !== 'kind' && k !== 'apiVersion') out[k] = obj[k];
  return out;
}

/** metadata.annotations to read: a new empty object when there are none, and nothing added to `obj`. */
export function annotationsIn(obj: JsonObject | undefined): Record<string, unknown> {
  const meta = obj?.['metadata'];
  return isObject(meta) && isObject(meta['annotations']) ? meta['annotations'] : {};
}

/** annotationsIn for an object read from the store, whose annotations were validated as strings. */
export function storedAnnotationsIn(obj: JsonObject): Record<string, string> {
  return annotationsIn(obj) as Record<string, string>;
}

/** metadata.annotations, made an object when it was none (to be written into). */
export function annotationsOf(obj: JsonObject): Record<string, string> {
  const meta = metadataOf(obj);
  const annotations = (typeof meta['annotations'] === 'object' && meta['annotations'] !== null ? meta['annotations'] : {}) as Record<string, string>;
  meta['annotations'] = annotations;
  return annotations;
}

/** Stored bytes again with their resourceVersion at `revision` (a delete's last state, a restored object). */
export function withResourceVersion(bytes: Buffer, revision: number): Buffer {
  const obj = decodeJson(bytes);
  const meta = isObject(obj['metadata']) ? obj['metadata'] : {};
  meta['resourceVersion'] = String(revision);
  obj['metadata'] = meta;
  return Buffer.from(JSON.stringify(obj));
}
