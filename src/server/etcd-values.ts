// Values in etcd as kube-apiserver 1.25 keeps them: built-in kinds in the Protobuf envelope
// (`k8s\0` + runtime.Unknown) of their storage version, custom resources (and any kind without a
// Protobuf message) as JSON; neither with a resourceVersion (etcd's mod_revision is put in on every
// read). Then, for the resources --encryption-provider-config names, encrypted.
// Reading takes both encodings, so JSON written by an older capstan stays readable.
import type * as protobuf from 'protobufjs';
import { readDataJson } from '../api/data.js';
import { decodeProtobufEnvelope, decodeProtobufObject, INLINE_FIELDS, jsonName, protobufLibrary, protobufTypeFor, PROTOBUF_MAGIC } from '../encoding/protobuf.js';
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
    const obj = decodeStored(plain);
    metadataOf(obj)['resourceVersion'] = String(revision);
    return encodeKept(obj);
  }

  private encode(value: Buffer): Buffer {
    const obj = decodeJson(value);
    if (!isObject(obj)) return value;
    // The reference keeps no resourceVersion in etcd.
    if (isObject(obj['metadata'])) delete obj['metadata']['resourceVersion'];
    const apiVersion = typeof obj['apiVersion'] === 'string' ? obj['apiVersion'] : '';
    const kind = typeof obj['kind'] === 'string' ? obj['kind'] : '';
    if (this.encoding === 'protobuf' && canEncodeProtobuf(apiVersion, kind)) return encodeProtobufObject(obj);
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

/** Bytes etcd holds (decrypted): the Protobuf envelope or JSON. */
export function decodeStored(bytes: Buffer): JsonObject {
  if (bytes.length >= 4 && bytes.subarray(0, 4).equals(PROTOBUF_MAGIC)) {
    const obj = decodeProtobufObject(bytes).object as JsonObject;
    const { apiVersion, kind, raw } = decodeProtobufEnvelope(bytes);
    const type = protobufTypeFor(apiVersion, kind);
    if (type) restoreGoZeros(type, type.decode(raw) as unknown as Record<string, unknown>, obj);
    return obj;
  }
  return decodeJson(bytes);
}

/** Plain scalars Go writes even when zero (no omitempty): `<package>.<message>.<field>` (scripts/extract-go-zero-fields.mjs). */
let writtenWhenZero: Set<string> | undefined;
const goWritesZero = (qualified: string): boolean => (writtenWhenZero ??= new Set(readDataJson<string[]>('go-zero-fields-1.25.json'))).has(qualified);

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
function restoreGoZeros(type: protobuf.Type, msg: Record<string, unknown>, json: JsonObject): void {
  const pkg = type.parent?.fullName.slice(1) ?? '';
  for (const field of type.fieldsArray) {
    const v = msg[field.name];
    const nested = field.resolvedType;
    if (!nested && !field.repeated && !field.map) {
      // A zero scalar the decoding dropped, which Go writes.
      const key = jsonName(type.name, field.name);
      const zero = zeroOf(field.type);
      if (json[key] === undefined && zero !== undefined && goWritesZero(`${pkg}.${type.name}.${field.name}`)) json[key] = zero;
      continue;
    }
    if (v === undefined || v === null || !(nested instanceof protobufLibrary().Type)) continue;
    const key = jsonName(type.name, field.name);
    if (TIME_TYPES.has(nested.fullName)) {
      const time = v as { seconds?: unknown; nanos?: unknown };
      if (!field.repeated && !field.map && json[key] === undefined && isZeroNumber(time.seconds ?? 0) && isZeroNumber(time.nanos ?? 0)) json[key] = null;
      continue;
    }
    const target = INLINE_FIELDS.has(`${type.name}.${field.name}`) ? json : json[key];
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
      restoreGoZeros(nested, v as Record<string, unknown>, target);
    }
  }
}
