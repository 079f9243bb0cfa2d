// Keeps an etcd lease alive: a keep-alive every third of its TTL on a LeaseKeepAlive stream,
// reopened (on the next member) when it breaks. The lease is lost when etcd answers TTL <= 0 (it
// expired or was revoked) or when no keep-alive succeeded for a whole TTL.

import type { ClientDuplexStream } from '@grpc/grpc-js';
import type { EtcdClient } from './client.js';
import type { WireLeaseKeepAliveRequest, WireLeaseKeepAliveResponse } from './proto.js';

export class LeaseKeeper {
  private stream: ClientDuplexStream<WireLeaseKeepAliveRequest, WireLeaseKeepAliveResponse> | undefined;
  private endpoint = 0;
  private readonly ticker: NodeJS.Timeout;
  private lastRenewed = Date.now();
  private stopped = false;

  constructor(
    private readonly client: EtcdClient,
    readonly id: string,
    private readonly ttlSeconds: number,
    private readonly onLost: (reason: string) => void = () => {},
  ) {
    const period = Math.max(100, (ttlSeconds * 1000) / 3);
    this.ticker = setInterval(() => this.tick(), period);
    this.ticker.unref();
    this.tick();
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.ticker);
    this.stream?.cancel();
    this.stream = undefined;
  }

  private tick(): void {
    if (this.stopped) return;
    if (Date.now() - this.lastRenewed > this.ttlSeconds * 1000) return this.lost('no keep-alive succeeded within the TTL');
    if (this.client.isClosed) return this.stop();
    this.stream ??= this.open();
    this.stream.write({ ID: this.id });
  }

  private open(): ClientDuplexStream<WireLeaseKeepAliveRequest, WireLeaseKeepAliveResponse> {
    const { stream, endpoint } = this.client.openStream<WireLeaseKeepAliveRequest, WireLeaseKeepAliveResponse>('Lease', 'LeaseKeepAlive');
    this.endpoint = endpoint;
    const broken = (): void => {
      if (this.stream !== stream) return;
      this.stream = undefined; // the next tick opens another
      stream.cancel();
      this.client.streamFailed(this.endpoint);
    };
    stream.on('data', (res: WireLeaseKeepAliveResponse) => {
      if (Number(res.TTL) <= 0) this.lost('etcd says the lease has expired');
      else this.lastRenewed = Date.now();
    });
    stream.on('error', broken);
    stream.on('end', broken);
    return stream;
  }

  private lost(reason: string): void {
    this.stop();
    this.onLost(reason);
  }
}
