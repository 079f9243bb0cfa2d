// A TCP relay to etcd on loopback for tests that cut a client off from an etcd that stays up.
import { createServer, Socket, type Server } from 'node:net';
import { freePort } from './etcd-process.js';

/** A TCP relay to etcd that a test can cut (every connection dropped, new ones refused) and restore. */
export class Relay {
  private readonly sockets = new Set<Socket>();
  private cut = false;
  private constructor(private readonly server: Server, readonly port: number) {}

  static async start(targetPort: number): Promise<Relay> {
    const port = await freePort();
    let relay: Relay | undefined;
    const server = createServer((client) => {
      if (!relay || relay.cut) return void client.destroy();
      const upstream = new Socket();
      upstream.connect(targetPort, '127.0.0.1');
      for (const s of [client, upstream]) {
        relay.sockets.add(s);
        s.on('close', () => relay?.sockets.delete(s));
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    relay = new Relay(server, port);
    return relay;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  drop(): void {
    this.cut = true;
    for (const s of this.sockets) s.destroy();
  }

  restore(): void {
    this.cut = false;
  }

  close(): Promise<void> {
    this.drop();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
