// Small helpers on API objects as plain JSON: metadata access, canonical key order, encoding.
import { isObject, type JsonObject } from '../encoding/decode.js';

export type { JsonObject };

export function metadataOf(obj: JsonObject): JsonObject {
  if (!isObject(obj['metadata'])) obj['metadata'] = {};
  return obj['metadata'] as JsonObject;
}

export function stringField(obj: JsonObject, key: string): string | undefined {
  const v = obj[key];
  return typeof v === 'string' ? v : undefined;
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

/** RFC 3339 at second precision, as metav1.Time. */
export function now(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function encode(obj: JsonObject): Buffer {
  return Buffer.from(JSON.stringify(obj));
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

export function decode(bytes: Buffer): JsonObject {
  return JSON.parse(bytes.toString('utf8')) as JsonObject;
}

/** Deep equality of JSON values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => jsonEqual(v, b[i]));
  }
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => jsonEqual(a[k], b[k]));
  }
  return false;
}

/** Everything but metadata and status: what a generation bump watches. */
export function specOf(obj: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const k of Object.keys(obj)) if (k !== 'metadata' && k !== 'status' && k !== 'kind' && k !== 'apiVersion') out[k] = obj[k];
  return out;
}
