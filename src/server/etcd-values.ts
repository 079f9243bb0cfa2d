// Values in etcd as kube-apiserver 1.25 keeps them: built-in kinds in the Protobuf envelope
// (`k8s\0` + runtime.Unknown) of their storage version, custom resources (and any kind without a
// Protobuf message) as JSON; neither with a resourceVersion (etcd's mod_revision is put in on every
// read). Then, for the resources --encryption-provider-config names, encrypted.
// Reading takes both encodings, so JSON written by an older capstan stays readable.
import type * as protobuf from 'protobufjs';
import { readDataJson } from '../api/data.js';
import { decodeProtobufEnvelope, decodeProtobufObject, INLINE_FIELDS, jsonName, messageToJson, protobufLibrary, protobufTypeFor, PROTOBUF_MAGIC } from '../encoding/protobuf.js';
import { canEncodeProtobuf, encodeProtobufObject } from '../encoding/protobuf-encode.js';
import { decodeJson, isObject, type JsonObject } from '../json.js';
import { encodeKept, metadataOf } from '../registry/objects.js';
import type { EtcdKeyMapping, EtcdValueCodec } from '../storage/etcd/layout.js';
import type { EncryptionTransformers, ValueTransformer } from './encryption-config.js';

export type ValueEncoding = 'protobuf' | 'json';

export interface EtcdValuesOptions {
  /** The etcd prefix (--etcd-prefix) keys begin with. */
  prefix: string;
  keys: EtcdKeyMapping;
  /** Groups without a dot that are groups (apps, batch, …): the rest of a key's first segment is a core resource. */
  groups: ReadonlySet<string>;
  /** protobuf (the reference's) by default; json stores every kind as JSON (for comparison). */
  encoding?: ValueEncoding;
  encryption?: EncryptionTransformers;
}

export class EtcdValues implements EtcdValueCodec {
  private readonly encoding: ValueEncoding;
  private readonly encryption: EncryptionTransformers;

  constructor(private readonly options: EtcdValuesOptions) {
    this.encoding = options.encoding ?? 'protobuf';
    this.encryption = options.encryption ?? new Map();
  }

  toEtcd(value: Buffer, etcdKey: string): Buffer {
    const bytes = this.encode(value);
    const transformer = this.transformerOf(etcdKey);
    return transformer ? transformer.toStorage(bytes, etcdKey) : bytes;
  }

  fromEtcd(bytes: Buffer, revision: number, etcdKey: string): Buffer {
    const transformer = this.transformerOf(etcdKey);
    const plain = transformer ? transformer.fromStorage(bytes, etcdKey) : bytes;
    const resourceVersion = String(revision);
    const obj = decodeStored(plain, resourceVersion);
    metadataOf(obj)['resourceVersion'] = resourceVersion; // JSON values (custom resources) get it here
    return encodeKept(obj);
  }

  private encode(value: Buffer): Buffer {
    let obj: unknown;
    try {
      obj = decodeJson(value);
    } catch {
      return value; // not an object of the API: kept as given
    }
    if (!isObject(obj)) return value;
    // The reference keeps no resourceVersion in etcd.
    if (isObject(obj['metadata'])) delete obj['metadata']['resourceVersion'];
    const apiVersion = typeof obj['apiVersion'] === 'string' ? obj['apiVersion'] : '';
    const kind = typeof obj['kind'] === 'string' ? obj['kind'] : '';
    if (this.encoding === 'protobuf' && canEncodeProtobuf(apiVersion, kind)) {
      try {
        return encodeProtobufObject(obj);
      } catch (err) {
        // A value the message cannot hold: kept as JSON (which reads back) rather than lost.
        process.emitWarning(`etcd values: ${apiVersion} ${kind} kept as JSON: ${err instanceof Error ? err.message : String(err)}`, 'StorageWarning');
      }
    }
    return encodeKept(obj);
  }

  /** The transformer of the resource a key belongs to (the config names `secrets`, `deployments.apps`). */
  private transformerOf(etcdKey: string): ValueTransformer | undefined {
    if (this.encryption.size === 0) return undefined;
    const own = this.options.keys.fromEtcd(etcdKey.slice(this.options.prefix.length));
    const [first = '', second = ''] = own.slice(1).split('/', 2);
    const grouped = first.includes('.') || this.options.groups.has(first);
    return this.encryption.get(grouped ? `${second}.${first}` : first);
  }
}

/**
 * Bytes etcd holds (decrypted): the Protobuf envelope or JSON. A `resourceVersion` is put into a
 * Protobuf object's metadata before it becomes JSON, so it takes its place in ObjectMeta's order.
 */
export function decodeStored(bytes: Buffer, resourceVersion?: string): JsonObject {
  if (bytes.length >= 4 && bytes.subarray(0, 4).equals(PROTOBUF_MAGIC)) {
    const { apiVersion, kind, raw, contentType, contentEncoding } = decodeProtobufEnvelope(bytes);
    const type = kind && !contentType && !contentEncoding ? protobufTypeFor(apiVersion, kind) : undefined;
    // Anything unusual (raw JSON inside, an unknown kind) is the request decoder's to read or refuse.
    if (!type) return decodeProtobufObject(bytes).object as JsonObject;
    // Decoded once: the message gives the JSON and, with it, the zeros Go writes.
    const message = type.decode(raw) as unknown as Record<string, unknown>;
    if (resourceVersion !== undefined && isObject(message['metadata'])) message['metadata']['resourceVersion'] = resourceVersion;
    const obj: JsonObject = { kind, apiVersion, ...(messageToJson(type, message) as JsonObject) };
    restoreGoZeros(type, message, obj);
    return obj;
  }
  return decodeJson(bytes);
}

/** Plain scalars Go writes even when zero (no omitempty): `<package>.<message>.<field>` (scripts/extract-go-zero-fields.mjs). */
let writtenWhenZero: Set<string> | undefined;
const goWritesZero = (qualified: string): boolean => (writtenWhenZero ??= new Set(readDataJson<string[]>('go-zero-fields-1.25.json'))).has(qualified);

/** Slices, maps and struct pointers without omitempty (scripts/extract-go-zero-fields.mjs). */
let writtenNullWhenNil: Set<string> | undefined;
const goWritesNull = (qualified: string): boolean => (writtenNullWhenNil ??= new Set(readDataJson<{ nulls: string[] }>('go-nil-fields-1.25.json').nulls)).has(qualified);

/** The zero value of a scalar proto type as Go's JSON writes it (bytes have none: nil is null, and omitted). */
function zeroOf(protoType: string): string | number | boolean | undefined {
  if (protoType === 'string') return '';
  if (protoType === 'bool') return false;
  if (protoType === 'bytes') return undefined;
  return 0;
}

const TIME_TYPES = new Set(['.k8s.io.apimachinery.pkg.apis.meta.v1.Time', '.k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime']);

const isZeroNumber = (v: unknown): boolean => Number(typeof v === 'object' && v !== null ? String(v) : v) === 0;

/**
 * Go writes a zero metav1.Time as `null` (a struct, which omitempty does not omit): the
 * `creationTimestamp: null` of every pod template, a condition's `lastProbeTime: null`; and it
 * writes zero scalars that have no omitempty (a StatefulSet's `availableReplicas: 0`). The
 * Protobuf decoding drops both (right for request bodies); a stored object read back is shown as
 * the reference shows it, so they are put back here.
 */
function restoreGoZeros(type: protobuf.Type, msg: Record<string, unknown>, json: JsonObject, inlined = false): boolean {
  const plan = planOf(type);
  let added = false;
  for (const { key, zero } of plan.zeros) {
    if (json[key] === undefined) {
      json[key] = zero;
      added = true;
    }
  }
  for (const key of plan.nulls) {
    if (json[key] === undefined) {
      json[key] = null;
      added = true;
    }
  }
  for (const { field, key, nested, time, inline } of plan.messages) {
    const v = msg[field.name];
    if (v === undefined || v === null) continue;
    if (time) {
      const t = v as { seconds?: unknown; nanos?: unknown };
      if (json[key] === undefined && isZeroNumber(t.seconds ?? 0) && isZeroNumber(t.nanos ?? 0)) {
        json[key] = null;
        added = true;
      }
      continue;
    }
    const target = inline ? json : json[key];
    if (field.map) {
      if (!isObject(target)) continue;
      for (const [k, item] of Object.entries(v as Record<string, unknown>)) {
        const into = target[k];
        if (isObject(into) && isObject(item)) restoreGoZeros(nested, item, into);
      }
    } else if (field.repeated) {
      if (!Array.isArray(target) || !Array.isArray(v)) continue;
      v.forEach((item: unknown, i) => {
        const into = target[i];
        if (isObject(into) && isObject(item)) restoreGoZeros(nested, item, into);
      });
    } else if (isObject(target)) {
      // An inline message's keys are this object's: ordered here, with the rest.
      if (restoreGoZeros(nested, v as Record<string, unknown>, target, inline) && inline) added = true;
    }
  }
  if (added && !inlined) inDeclarationOrder(json, plan.order);
  return added;
}

/**
 * Puts a restored key where Go writes it: keys in the message's declaration order (generated.proto
 * lists fields in the Go struct's order); keys the message does not declare (kind, apiVersion) first.
 */
function inDeclarationOrder(json: JsonObject, order: ReadonlyMap<string, number>): void {
  const entries = Object.entries(json);
  const rank = (key: string): number => order.get(key) ?? -1;
  entries.sort(([a], [b]) => rank(a) - rank(b)); // stable: undeclared keys (-1) keep their order, first
  for (const [key] of entries) delete json[key];
  for (const [key, value] of entries) json[key] = value;
}

interface ZeroPlan {
  /** Scalars Go writes when zero, with the zero it writes. */
  zeros: { key: string; zero: string | number | boolean }[];
  /** Slices, maps and struct pointers Go writes as null when nil (a Protobuf decoding leaves them nil). */
  nulls: string[];
  /** Message fields: times (null when zero) and the rest, walked into. */
  messages: { field: protobuf.Field; key: string; nested: protobuf.Type; time: boolean; inline: boolean }[];
  /** Each JSON key's place in declaration order, an inline field's own keys in its place. */
  order: Map<string, number>;
}

/** What restoreGoZeros does with a message type, worked out once per type. */
const plans = new WeakMap<protobuf.Type, ZeroPlan>();

function planOf(type: protobuf.Type): ZeroPlan {
  let plan = plans.get(type);
  if (plan) return plan;
  plan = { zeros: [], nulls: [], messages: [], order: new Map() };
  const keys: string[] = [];
  const pkg = type.parent?.fullName.slice(1) ?? '';
  for (const field of type.fieldsArray) {
    const key = jsonName(type.name, field.name);
    const nested = field.resolvedType;
    const inline = INLINE_FIELDS.has(`${type.name}.${field.name}`);
    if (inline && nested instanceof protobufLibrary().Type) keys.push(...planOf(nested).order.keys());
    else keys.push(key);
    if (goWritesNull(`${pkg}.${type.name}.${field.name}`)) plan.nulls.push(key);
    if (nested instanceof protobufLibrary().Type) {
      const time = TIME_TYPES.has(nested.fullName);
      if (time && (field.repeated || field.map)) continue;
      plan.messages.push({ field, key, nested, time, inline });
    } else if (!nested && !field.repeated && !field.map) {
      const zero = zeroOf(field.type);
      if (zero !== undefined && goWritesZero(`${pkg}.${type.name}.${field.name}`)) plan.zeros.push({ key, zero });
    }
  }
  for (const [i, key] of keys.entries()) plan.order.set(key, i);
  plans.set(type, plan);
  return plan;
}
