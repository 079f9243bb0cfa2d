// A thin etcd v3 client: Range, Txn, Compact, Status, leases and watches (watch.ts, lease.ts), over
// one or several endpoints with failover. Unary calls go over plain HTTP/2 (unary.ts, for their CPU
// cost), streams over @grpc/grpc-js.
//
// Endpoints are used one at a time: requests go to the current one; when it is unreachable
// (UNAVAILABLE) the next becomes current. Reads and compactions are retried, with backoff, until the
// request's deadline. A write is retried only when the error says it never left this process (no
// connection was established); otherwise it may have been applied, and retrying a create or a
// compare-and-swap could report a false KeyExists or Conflict, so the error is the caller's.

import { Client, Metadata, credentials, status, type ChannelCredentials, type ClientDuplexStream, type ServiceError } from '@grpc/grpc-js';
import {
  method,
  type Service,
  type WireCompactionRequest,
  type WireCompactionResponse,
  type WireCompare,
  type WireKeyValue,
  type WireLeaseGrantRequest,
  type WireLeaseGrantResponse,
  type WireLeaseRevokeRequest,
  type WireRangeRequest,
  type WireRangeResponse,
  type WireRequestOp,
  type WireResponseOp,
  type WireStatusResponse,
  type WireTxnRequest,
  type WireTxnResponse,
} from './proto.js';
import { UnaryChannel } from './unary.js';

export interface EtcdTls {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
}

export interface EtcdClientOptions {
  /** Member URLs: http://host:port, https://host:port (TLS), or host:port (plain). */
  endpoints: readonly string[];
  /** CA and client certificate for https endpoints (the system's CAs when no CA is given). */
  tls?: EtcdTls;
  /** How long one request may take, retries included (ms). */
  requestTimeoutMs?: number;
}

export interface KeyValue {
  key: Buffer;
  value: Buffer;
  createRevision: number;
  modRevision: number;
  /** Number of writes since the key's creation (1 for a create). */
  version: number;
  /** Lease ID ("0": none), a decimal string: IDs use all 64 bits. */
  lease: string;
}

export interface RangeArgs {
  key: Buffer;
  /** Exclusive end; [0] means "every key from key on"; absent: key alone. */
  rangeEnd?: Buffer;
  /** Read at this revision (0 or absent: the newest). */
  revision?: number;
  limit?: number;
  keysOnly?: boolean;
  countOnly?: boolean;
}

export interface RangeResult {
  /** The store's revision the range was read at (the newest, unless one was asked). */
  revision: number;
  kvs: KeyValue[];
  more: boolean;
  count: number;
}

export type TxnOp =
  | { range: RangeArgs }
  | { put: { key: Buffer; value: Buffer; lease?: string; prevKv?: boolean } }
  | { deleteRange: { key: Buffer; rangeEnd?: Buffer; prevKv?: boolean } };

export type TxnOpResult =
  | { range: RangeResult }
  | { put: { prevKv: KeyValue | undefined } }
  | { deleteRange: { deleted: number; prevKvs: KeyValue[] } };

export interface TxnArgs {
  compare: WireCompare[];
  success: TxnOp[];
  failure?: TxnOp[];
}

export interface TxnResult {
  succeeded: boolean;
  /** The revision of the transaction's writes when it wrote; the store's revision otherwise. */
  revision: number;
  results: TxnOpResult[];
}

export interface MemberStatus {
  version: string;
  revision: number;
  leader: string;
  memberId: string;
  dbSize: number;
}

export type Compare = WireCompare;

/** `key`'s create_revision compared with `revision` (0: the key does not exist). */
export function compareCreate(key: Buffer, result: WireCompare['result'], revision: number): Compare {
  return { key, target: 'CREATE', result, create_revision: revision };
}

/** `key`'s mod_revision compared with `revision`. */
export function compareMod(key: Buffer, result: WireCompare['result'], revision: number): Compare {
  return { key, target: 'MOD', result, mod_revision: revision };
}

/** The end of the key range of every key starting with `prefix` (etcd's rule: bytes, last one + 1). */
export function prefixRangeEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if ((end[i] as number) < 0xff) {
      end[i] = (end[i] as number) + 1;
      return end.subarray(0, i + 1);
    }
  }
  return Buffer.from([0]); // an empty prefix, or all 0xff: every key from prefix on
}

/** grpc's status code of an error, or undefined for an error that is not grpc's. */
export function grpcCode(err: unknown): number | undefined {
  return typeof err === 'object' && err !== null && typeof (err as ServiceError).code === 'number' ? (err as ServiceError).code : undefined;
}

/** etcd's answer to a read or watch below its compacted revision. */
export function isCompactedError(err: unknown): boolean {
  return grpcCode(err) === status.OUT_OF_RANGE && /compacted/.test((err as ServiceError).details ?? '');
}

export function isUnavailable(err: unknown): boolean {
  return grpcCode(err) === status.UNAVAILABLE;
}

/** No member answered in time: unavailable, or out of time. */
export function isUnreachable(err: unknown): boolean {
  const code = grpcCode(err);
  return code === status.UNAVAILABLE || code === status.DEADLINE_EXCEEDED;
}

/** An error raised before the request reached any server, so retrying it cannot apply it twice. */
function neverSent(err: unknown): boolean {
  const details = (err as ServiceError).details ?? '';
  return isUnavailable(err) && /No connection established|ECONNREFUSED|connect ENOENT|Failed to connect/i.test(details);
}

export function kvOf(w: WireKeyValue): KeyValue {
  return {
    key: w.key,
    value: w.value,
    createRevision: Number(w.create_revision),
    modRevision: Number(w.mod_revision),
    version: Number(w.version),
    lease: w.lease,
  };
}

function rangeRequest(a: RangeArgs): WireRangeRequest {
  return {
    key: a.key,
    range_end: a.rangeEnd,
    revision: a.revision ?? 0,
    limit: a.limit ?? 0,
    keys_only: a.keysOnly ?? false,
    count_only: a.countOnly ?? false,
  };
}

function rangeResult(r: WireRangeResponse): RangeResult {
  return { revision: Number(r.header.revision), kvs: r.kvs.map(kvOf), more: r.more, count: Number(r.count) };
}

function requestOp(op: TxnOp): WireRequestOp {
  if ('range' in op) return { request_range: rangeRequest(op.range) };
  if ('put' in op) {
    const p = op.put;
    return { request_put: { key: p.key, value: p.value, lease: p.lease ?? 0, prev_kv: p.prevKv ?? false } };
  }
  const d = op.deleteRange;
  return { request_delete_range: { key: d.key, range_end: d.rangeEnd, prev_kv: d.prevKv ?? false } };
}

function opResult(r: WireResponseOp): TxnOpResult {
  if (r.response_range) return { range: rangeResult(r.response_range) };
  if (r.response_put) return { put: { prevKv: r.response_put.prev_kv ? kvOf(r.response_put.prev_kv) : undefined } };
  const d = r.response_delete_range;
  return { deleteRange: { deleted: Number(d?.deleted ?? 0), prevKvs: (d?.prev_kvs ?? []).map(kvOf) } };
}

interface Endpoint {
  address: string;
  secure: boolean;
  /** grpc-js, for streams. */
  client?: Client;
  /** Plain HTTP/2, for unary calls (unary.ts). */
  unary?: UnaryChannel;
}

function parseEndpoint(url: string): Endpoint {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `http://${url}`;
  const u = new URL(withScheme);
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`etcd endpoint ${url}: only http:// and https:// are supported`);
  const secure = u.protocol === 'https:';
  return { address: u.port ? u.host : `${u.host}:2379`, secure };
}

const CHANNEL_OPTIONS = {
  // Watch and range answers can be large (a list of 10,000 objects): no receive limit.
  'grpc.max_receive_message_length': -1,
  'grpc.max_send_message_length': -1,
  // Find a dead connection under an open watch (etcd permits pings every 5 s).
  'grpc.keepalive_time_ms': 10_000,
  'grpc.keepalive_timeout_ms': 5_000,
  'grpc.keepalive_permit_without_calls': 1,
  // Reconnect soon after a member comes back (grpc's default backoff grows to two minutes).
  'grpc.initial_reconnect_backoff_ms': 100,
  'grpc.max_reconnect_backoff_ms': 2_000,
};

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export type Retry = 'always' | 'if-not-sent';

export class EtcdClient {
  private readonly endpoints: Endpoint[];
  private readonly insecure: ChannelCredentials;
  private readonly secure: ChannelCredentials | undefined;
  private readonly tls: EtcdTls;
  private current = 0;
  private closed = false;
  readonly requestTimeoutMs: number;

  constructor(options: EtcdClientOptions) {
    if (options.endpoints.length === 0) throw new Error('etcd: no endpoints given');
    this.endpoints = options.endpoints.map(parseEndpoint);
    this.insecure = credentials.createInsecure();
    this.tls = options.tls ?? {};
    if (this.endpoints.some((e) => e.secure)) {
      this.secure = credentials.createSsl(this.tls.ca ?? null, this.tls.key ?? null, this.tls.cert ?? null);
    }
    this.requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
  }

  /** The address requests go to now (for messages). */
  get currentAddress(): string {
    return (this.endpoints[this.current] as Endpoint).address;
  }

  async range(args: RangeArgs): Promise<RangeResult> {
    const res = await this.unary<WireRangeRequest, WireRangeResponse>('KV', 'Range', rangeRequest(args), 'always');
    return rangeResult(res);
  }

  /** A transaction; read-only ones (no put, no delete) are retried like reads. */
  async txn(args: TxnArgs): Promise<TxnResult> {
    const failure = args.failure ?? [];
    const readOnly = [...args.success, ...failure].every((op) => 'range' in op);
    const req: WireTxnRequest = { compare: args.compare, success: args.success.map(requestOp), failure: failure.map(requestOp) };
    const res = await this.unary<WireTxnRequest, WireTxnResponse>('KV', 'Txn', req, readOnly ? 'always' : 'if-not-sent');
    return { succeeded: res.succeeded, revision: Number(res.header.revision), results: res.responses.map(opResult) };
  }

  /** Forgets history below `revision` (etcd keeps `revision` itself readable). */
  async compact(revision: number): Promise<void> {
    await this.unary<WireCompactionRequest, WireCompactionResponse>('KV', 'Compact', { revision, physical: false }, 'always');
  }

  async status(): Promise<MemberStatus> {
    const res = await this.unary<Record<string, never>, WireStatusResponse>('Maintenance', 'Status', {}, 'always');
    return {
      version: res.version,
      revision: Number(res.header.revision),
      leader: res.leader,
      memberId: res.header.member_id,
      dbSize: Number(res.dbSize),
    };
  }

  /** A lease of `ttlSeconds`; its ID as a decimal string. */
  async leaseGrant(ttlSeconds: number): Promise<{ id: string; ttl: number }> {
    const res = await this.unary<WireLeaseGrantRequest, WireLeaseGrantResponse>('Lease', 'LeaseGrant', { TTL: ttlSeconds, ID: 0 }, 'if-not-sent');
    if (res.error) throw new Error(`etcd lease grant: ${res.error}`);
    return { id: res.ID, ttl: Number(res.TTL) };
  }

  async leaseRevoke(id: string): Promise<void> {
    await this.unary<WireLeaseRevokeRequest, unknown>('Lease', 'LeaseRevoke', { ID: id }, 'always');
  }

  /**
   * A bidirectional stream on the current endpoint (watches, lease keep-alives). The caller
   * reopens it when it ends; `streamFailed` moves the next one to another endpoint.
   */
  openStream<Req, Res>(service: Service, name: string): { stream: ClientDuplexStream<Req, Res>; endpoint: number } {
    if (this.closed) throw new Error('etcd client is closed');
    const m = method<Req, Res>(service, name);
    const endpoint = this.current;
    // "hasleader": the member ends the stream when it loses its leader, rather than going quiet.
    const metadata = new Metadata();
    metadata.set('hasleader', 'true');
    const stream = this.clientOf(endpoint).makeBidiStreamRequest(m.path, m.requestSerialize, m.responseDeserialize, metadata, {});
    return { stream, endpoint };
  }

  /** A stream on `endpoint` broke: the next request or stream tries another member. */
  streamFailed(endpoint: number): void {
    this.failover(endpoint);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const e of this.endpoints) {
      e.client?.close();
      e.unary?.close();
    }
  }

  private clientOf(index: number): Client {
    const e = this.endpoints[index] as Endpoint;
    e.client ??= new Client(e.address, e.secure ? (this.secure as ChannelCredentials) : this.insecure, CHANNEL_OPTIONS);
    return e.client;
  }

  private unaryOf(index: number): UnaryChannel {
    const e = this.endpoints[index] as Endpoint;
    e.unary ??= new UnaryChannel(e.address, e.secure ? this.tls : undefined);
    return e.unary;
  }

  private failover(endpoint: number): void {
    if (this.current === endpoint) this.current = (endpoint + 1) % this.endpoints.length;
  }

  private async unary<Req, Res>(service: Service, name: string, request: Req, retry: Retry): Promise<Res> {
    const m = method<Req, Res>(service, name);
    const deadline = Date.now() + this.requestTimeoutMs;
    let delay = 25;
    for (;;) {
      if (this.closed) throw new Error('etcd client is closed');
      const endpoint = this.current;
      try {
        return await this.unaryOf(endpoint).call(m.path, m.requestSerialize, m.responseDeserialize, request, deadline);
      } catch (err) {
        if (!isUnavailable(err)) throw err;
        this.failover(endpoint);
        const again = retry === 'always' || neverSent(err);
        if (!again || this.closed || Date.now() + delay >= deadline) throw err;
        await sleep(delay);
        delay = Math.min(delay * 2, 1_000);
      }
    }
  }
}
