// etcd's v3 gRPC API as capstan uses it: the vendored definitions (data/etcd/, etcd v3.4) loaded
// once, the methods' paths and (de)serialisers, and the wire shapes of the messages we send and read.
// int64 fields travel as decimal strings (lease IDs do not fit in a double); the client turns
// revisions into numbers, which is safe up to 2^53.

import { fileURLToPath } from 'node:url';
import { loadSync, type MethodDefinition, type PackageDefinition } from '@grpc/proto-loader';

/** dist/src/storage/etcd/ → the repository's data/etcd/. */
const PROTO_DIR = fileURLToPath(new URL('../../../../data/etcd/', import.meta.url));

let loaded: PackageDefinition | undefined;

function definitions(): PackageDefinition {
  loaded ??= loadSync('rpc.proto', {
    includeDirs: [PROTO_DIR],
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  return loaded;
}

export type Service = 'KV' | 'Watch' | 'Lease' | 'Maintenance';

/** A method's definition: its path (/etcdserverpb.KV/Range) and serialisers. */
export function method<Req, Res>(service: Service, name: string): MethodDefinition<Req, Res> {
  const svc = definitions()[`etcdserverpb.${service}`] as unknown as Record<string, MethodDefinition<Req, Res>> | undefined;
  const m = svc?.[name];
  if (!m) throw new Error(`etcd API: no method ${service}.${name} in data/etcd/rpc.proto`);
  return m;
}

/** int64 as sent: a decimal string or a number. */
export type Int64 = string | number;

export interface WireHeader {
  cluster_id: string;
  member_id: string;
  revision: string;
  raft_term: string;
}

export interface WireKeyValue {
  key: Buffer;
  create_revision: string;
  mod_revision: string;
  version: string;
  value: Buffer;
  lease: string;
}

export interface WireRangeRequest {
  key: Buffer;
  range_end?: Buffer;
  limit?: Int64;
  revision?: Int64;
  serializable?: boolean;
  keys_only?: boolean;
  count_only?: boolean;
}

export interface WireRangeResponse {
  header: WireHeader;
  kvs: WireKeyValue[];
  more: boolean;
  count: string;
}

export interface WirePutRequest {
  key: Buffer;
  value: Buffer;
  lease?: Int64;
  prev_kv?: boolean;
}

export interface WirePutResponse {
  header: WireHeader;
  prev_kv: WireKeyValue | null;
}

export interface WireDeleteRangeRequest {
  key: Buffer;
  range_end?: Buffer;
  prev_kv?: boolean;
}

export interface WireDeleteRangeResponse {
  header: WireHeader;
  deleted: string;
  prev_kvs: WireKeyValue[];
}

export interface WireCompare {
  result: 'EQUAL' | 'GREATER' | 'LESS' | 'NOT_EQUAL';
  target: 'VERSION' | 'CREATE' | 'MOD' | 'VALUE' | 'LEASE';
  key: Buffer;
  range_end?: Buffer;
  version?: Int64;
  create_revision?: Int64;
  mod_revision?: Int64;
  value?: Buffer;
  lease?: Int64;
}

export type WireRequestOp =
  | { request_range: WireRangeRequest }
  | { request_put: WirePutRequest }
  | { request_delete_range: WireDeleteRangeRequest };

export interface WireResponseOp {
  response?: 'response_range' | 'response_put' | 'response_delete_range' | 'response_txn';
  response_range?: WireRangeResponse | null;
  response_put?: WirePutResponse | null;
  response_delete_range?: WireDeleteRangeResponse | null;
}

export interface WireTxnRequest {
  compare: WireCompare[];
  success: WireRequestOp[];
  failure: WireRequestOp[];
}

export interface WireTxnResponse {
  header: WireHeader;
  succeeded: boolean;
  responses: WireResponseOp[];
}

export interface WireCompactionRequest {
  revision: Int64;
  physical?: boolean;
}

export interface WireCompactionResponse {
  header: WireHeader;
}

export interface WireWatchCreateRequest {
  key: Buffer;
  range_end?: Buffer;
  start_revision?: Int64;
  progress_notify?: boolean;
  prev_kv?: boolean;
}

export type WireWatchRequest =
  | { create_request: WireWatchCreateRequest }
  | { cancel_request: { watch_id: Int64 } }
  | { progress_request: Record<string, never> };

export interface WireEvent {
  type: 'PUT' | 'DELETE';
  kv: WireKeyValue;
  prev_kv: WireKeyValue | null;
}

export interface WireWatchResponse {
  header: WireHeader;
  watch_id: string;
  created: boolean;
  canceled: boolean;
  compact_revision: string;
  cancel_reason: string;
  fragment: boolean;
  events: WireEvent[];
}

export interface WireLeaseGrantRequest {
  TTL: Int64;
  ID?: Int64;
}

export interface WireLeaseGrantResponse {
  header: WireHeader;
  ID: string;
  TTL: string;
  error: string;
}

export interface WireLeaseRevokeRequest {
  ID: Int64;
}

export interface WireLeaseKeepAliveRequest {
  ID: Int64;
}

export interface WireLeaseKeepAliveResponse {
  header: WireHeader;
  ID: string;
  TTL: string;
}

export interface WireStatusResponse {
  header: WireHeader;
  version: string;
  dbSize: string;
  leader: string;
  raftIndex: string;
  raftTerm: string;
  raftAppliedIndex: string;
  errors: string[];
  dbSizeInUse: string;
  isLearner: boolean;
}
