// How the store's keys and values look in etcd, handed to EtcdStorage by the server (which knows
// resources and encodings; storage/ does not). Without them keys keep their own names and values
// their own bytes (with a Stamp putting the revision in).

/**
 * Keys below the root (`/configmaps/ns/x`, `/apps/deployments/ns/x`) ↔ keys below the etcd prefix
 * (`/configmaps/ns/x`, `/deployments/ns/x`). Both ways, one table: what one writes the other reads,
 * and the events of etcd's watch come back with etcd's keys. Works on key prefixes too.
 */
export interface EtcdKeyMapping {
  toEtcd(key: string): string;
  fromEtcd(etcdKey: string): string;
}

/** A stored value ↔ the bytes etcd holds (the reference's encoding and encryption at rest). */
export interface EtcdValueCodec {
  /** The bytes for etcd of a value encoded without revision; `etcdKey` is its whole key in etcd. */
  toEtcd(value: Buffer, etcdKey: string): Buffer;
  /**
   * The value as the store serves it, with `revision` put in. Throws (an Error whose message is the
   * reason) when the bytes cannot be read: the store answers as the reference's storage does.
   */
  fromEtcd(bytes: Buffer, revision: number, etcdKey: string): Buffer;
}
