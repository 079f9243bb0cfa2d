// Values in etcd as kube-apiserver 1.25 keeps them: built-in kinds in the Protobuf envelope
// (`k8s\0` + runtime.Unknown) of their storage version, custom resources (and any kind without a
// Protobuf message) as JSON; neither with a resourceVersion (etcd's mod_revision is put in on every
// read). Then, for the resources --encryption-provider-config names, encrypted.
// Reading takes both encodings, so JSON written by an older capstan stays readable.
import { decodeProtobufObject, PROTOBUF_MAGIC } from '../encoding/protobuf.js';
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
  if (bytes.length >= 4 && bytes.subarray(0, 4).equals(PROTOBUF_MAGIC)) return decodeProtobufObject(bytes).object as JsonObject;
  return decodeJson(bytes);
}
