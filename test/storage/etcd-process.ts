// A real etcd for tests: Debian's /usr/bin/etcd (3.4) on free loopback ports with a temporary data
// dir, started, waited for until it answers, stopped (or killed) and started again on the same
// ports and data. Tests skip with `etcdMissing` as their reason when etcd is not installed.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, closeSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EtcdClient, type EtcdTls } from '../../src/storage/etcd/client.js';

export const ETCD_BINARY = process.env['CAPSTAN_TEST_ETCD'] ?? '/usr/bin/etcd';

/** Why etcd tests are skipped here, or undefined when they run. */
export const etcdMissing: string | undefined = existsSync(ETCD_BINARY)
  ? undefined
  : `etcd is not installed (${ETCD_BINARY}; Debian: apt-get install etcd-server) — etcd tests skipped`;

/** Ports this process has handed out: never handed out twice (see freePort). */
const handedOut = new Set<number>();

/**
 * A free TCP port on 127.0.0.1 (free when asked; its user binds it right after). Never one handed
 * out before in this process, as envtest's addr.Suggest keeps the ports it suggested: a port is
 * free again between this close and its user's bind, and a second caller in that moment (twenty
 * environments started at once) was given the same one.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const srv = createServer();
      srv.once('error', reject);
      srv.listen(0, '127.0.0.1', () => {
        const address = srv.address();
        const given = typeof address === 'object' && address ? address.port : 0;
        srv.close(() => resolve(given));
      });
    });
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
}

export interface EtcdServerTls {
  certFile: string;
  keyFile: string;
  /** Client certificates must be signed by this CA. */
  trustedCaFile: string;
}

export interface EtcdProcessOptions {
  /** Serve clients over TLS (https://). */
  tls?: EtcdServerTls;
  /** A member of a cluster: every member's name and peer URL (`name=http://…,…`) and the cluster's token. */
  cluster?: { initial: string; token: string; name: string };
  /** What the readiness check connects with, for a TLS etcd. */
  clientTls?: EtcdTls;
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

let seq = 0;

export class EtcdProcess {
  readonly name: string;
  readonly dataDir = mkdtempSync(join(tmpdir(), 'capstan-etcd-'));
  private child: ChildProcess | undefined;

  private constructor(
    readonly clientPort: number,
    readonly peerPort: number,
    private readonly options: EtcdProcessOptions,
  ) {
    this.name = options.cluster?.name ?? `capstan-test-${process.pid}-${++seq}`;
  }

  static async start(options: EtcdProcessOptions = {}): Promise<EtcdProcess> {
    const p = new EtcdProcess(await freePort(), await freePort(), options);
    await p.start();
    return p;
  }

  /** A cluster of `size` members on loopback, started together (a member answers once a quorum elects a leader). */
  static async cluster(size: number): Promise<EtcdProcess[]> {
    const token = `capstan-cluster-${process.pid}-${++seq}`;
    const ports = [];
    for (let i = 0; i < size; i++) ports.push({ name: `${token}-${i}`, client: await freePort(), peer: await freePort() });
    const initial = ports.map((p) => `${p.name}=http://127.0.0.1:${p.peer}`).join(',');
    const members = ports.map((p) => new EtcdProcess(p.client, p.peer, { cluster: { initial, token, name: p.name } }));
    await Promise.all(members.map((m) => m.start()));
    return members;
  }

  get url(): string {
    return `${this.options.tls ? 'https' : 'http'}://127.0.0.1:${this.clientPort}`;
  }

  /** Starts (again) on the same ports and data dir; resolves once it answers a Status request. */
  async start(): Promise<void> {
    if (this.child) return;
    const peer = `http://127.0.0.1:${this.peerPort}`;
    const args = [
      '--name', this.name,
      '--data-dir', join(this.dataDir, 'data'),
      '--listen-client-urls', this.url,
      '--advertise-client-urls', this.url,
      '--listen-peer-urls', peer,
      '--initial-advertise-peer-urls', peer,
      '--initial-cluster', this.options.cluster?.initial ?? `${this.name}=${peer}`,
      '--initial-cluster-state', 'new',
      '--initial-cluster-token', this.options.cluster?.token ?? this.name,
      // One member elects itself; short timeouts make that quick (a cluster's members, on a busy machine, get more slack).
      '--heartbeat-interval', this.options.cluster ? '50' : '10',
      '--election-timeout', this.options.cluster ? '500' : '100',
      '--logger', 'zap',
      '--log-outputs', join(this.dataDir, 'etcd.log'),
    ];
    const tls = this.options.tls;
    if (tls) args.push('--cert-file', tls.certFile, '--key-file', tls.keyFile, '--client-cert-auth', '--trusted-ca-file', tls.trustedCaFile);
    const log = openSync(join(this.dataDir, 'etcd.out'), 'a');
    const child = spawn(ETCD_BINARY, args, { stdio: ['ignore', log, log] });
    closeSync(log);
    this.child = child;
    running.add(child);
    child.once('exit', () => {
      running.delete(child);
      if (this.child === child) this.child = undefined;
    });
    await this.waitReady(this.options.clientTls);
  }

  /** Stops it: SIGTERM (a clean stop) or SIGKILL (a crash). */
  async stop(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
    const child = this.child;
    if (!child) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    await exited;
  }

  /** Stops it and removes its data. */
  async destroy(): Promise<void> {
    await this.stop('SIGKILL');
    rmSync(this.dataDir, { recursive: true, force: true });
  }

  private async waitReady(clientTls: EtcdTls | undefined): Promise<void> {
    const client = new EtcdClient({ endpoints: [this.url], tls: clientTls, requestTimeoutMs: 1_000 });
    const deadline = Date.now() + 20_000;
    try {
      for (;;) {
        if (!this.child) throw new Error(`etcd exited during start; see ${join(this.dataDir, 'etcd.out')}`);
        try {
          const s = await client.status();
          if (s.leader !== '0') return;
        } catch (err) {
          if (Date.now() > deadline) throw new Error(`etcd did not answer within 20 s: ${String(err)}`);
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      client.close();
    }
  }
}
