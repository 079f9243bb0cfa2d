// A TCP proxy on loopback for tests that cut a client off from a server that stays up (etcd): while
// cut, every open connection is dropped and new ones are refused at once; restored, it forwards again.
import { createServer, connect, type Server, type Socket } from 'node:net';

export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  private cutOff = false;

  private constructor(private readonly server: Server, readonly port: number) {}

  static async start(targetPort: number): Promise<TcpProxy> {
    let proxy: TcpProxy | undefined;
    const server = createServer((client) => {
      if (!proxy || proxy.cutOff) {
        client.destroy();
        return;
      }
      const upstream = connect(targetPort, '127.0.0.1');
      const pair = proxy;
      for (const s of [client, upstream]) {
        pair.sockets.add(s);
        s.once('close', () => pair.sockets.delete(s));
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    proxy = new TcpProxy(server, typeof address === 'object' && address ? address.port : 0);
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Drops every connection and refuses new ones. */
  cut(): void {
    this.cutOff = true;
    for (const s of this.sockets) s.destroy();
  }

  restore(): void {
    this.cutOff = false;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
