// One etcd watch on its own gRPC stream, kept open across broken connections: after an error it is
// opened again (on the next member, after a short backoff) from the revision after the last event
// it delivered, so no event is lost or repeated. When etcd no longer has that history (compacted
// meanwhile) the watch ends with `compacted`.
//
// Only event revisions move the resume point. Debian's etcd 3.4.23 may send a catching-up watch a
// header revision beyond the events it has sent so far (fixed in later 3.4 releases), so header
// revisions, like progress notifications, are not trusted here.

import type { ClientDuplexStream } from '@grpc/grpc-js';
import { kvOf, type EtcdClient, type KeyValue } from './client.js';
import type { WireWatchRequest, WireWatchResponse } from './proto.js';

export interface WatchEvent {
  type: 'put' | 'delete';
  /** For a delete: the key, with modRevision the delete's revision. */
  kv: KeyValue;
  /** The value before this event (when the watch asked for it and etcd still had it). */
  prevKv: KeyValue | undefined;
}

export interface EtcdWatchOptions {
  key: Buffer;
  /** Exclusive end of the watched range ([0]: every key from `key` on); absent: `key` alone. */
  rangeEnd?: Buffer;
  /** The first revision wanted. */
  startRevision: number;
  prevKv?: boolean;
}

export interface EtcdWatchHandlers {
  /** Events of one or more revisions, in revision order. */
  events(events: WatchEvent[]): void;
  /** etcd no longer has the history after the last delivered revision; the watch has ended. */
  compacted(compactRevision: number): void;
  /** The watch is registered (after each (re)connect). */
  created?(): void;
  /** The stream broke; the watch is being opened again. */
  interrupted?(err: unknown): void;
}

const MAX_BACKOFF_MS = 2_000;

export class EtcdWatch {
  private next: number;
  private stream: ClientDuplexStream<WireWatchRequest, WireWatchResponse> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private backoff = 50;
  private stopped = false;

  constructor(
    private readonly client: EtcdClient,
    private readonly options: EtcdWatchOptions,
    private readonly handlers: EtcdWatchHandlers,
  ) {
    this.next = options.startRevision;
    this.open();
  }

  /** The revision a reconnect would start from (one past the last delivered event). */
  get resumeRevision(): number {
    return this.next;
  }

  cancel(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.timer);
    this.stream?.cancel();
    this.stream = undefined;
  }

  private open(): void {
    if (this.stopped) return;
    if (this.client.isClosed) {
      this.stopped = true;
      return;
    }
    const { stream, endpoint } = this.client.openStream<WireWatchRequest, WireWatchResponse>('Watch', 'Watch');
    this.stream = stream;
    let ended = false;
    const broken = (err: unknown): void => {
      if (ended) return;
      ended = true;
      stream.removeAllListeners('data');
      stream.cancel();
      if (this.stopped || this.stream !== stream) return;
      this.stream = undefined;
      this.client.streamFailed(endpoint);
      this.handlers.interrupted?.(err);
      this.timer = setTimeout(() => this.open(), this.backoff);
      this.backoff = Math.min(this.backoff * 2, MAX_BACKOFF_MS);
    };
    stream.on('data', (res: WireWatchResponse) => {
      if (this.stopped || ended) return;
      const compactRevision = Number(res.compact_revision);
      if (compactRevision > 0) {
        ended = true;
        this.stopped = true;
        stream.cancel();
        this.handlers.compacted(compactRevision);
        return;
      }
      if (res.canceled) {
        broken(new Error(`etcd canceled the watch: ${res.cancel_reason || 'no reason given'}`));
        return;
      }
      if (res.created) {
        this.backoff = 50;
        this.handlers.created?.();
      }
      if (res.events.length === 0) return;
      const events = res.events.map(
        (e): WatchEvent => ({ type: e.type === 'DELETE' ? 'delete' : 'put', kv: kvOf(e.kv), prevKv: e.prev_kv ? kvOf(e.prev_kv) : undefined }),
      );
      this.next = (events[events.length - 1] as WatchEvent).kv.modRevision + 1;
      this.handlers.events(events);
    });
    stream.on('error', broken);
    stream.on('end', () => broken(new Error('etcd closed the watch stream')));
    stream.write({
      create_request: {
        key: this.options.key,
        range_end: this.options.rangeEnd,
        start_revision: this.next,
        prev_kv: this.options.prevKv ?? false,
      },
    });
  }
}
