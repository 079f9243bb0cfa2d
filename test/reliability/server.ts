// The server a probe runs against: the real capstan command in its own process (HTTPS, HTTP/2
// and HTTP/1.1, as users run it), on a data folder that outlives kill -9 and restarts.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubeconfigTls, repoRoot, type ClientTls } from '../helpers.js';
import { memoryOf } from '../../bench/common.js';

export interface ProbeServer {
  /** https://127.0.0.1:<port> */
  url: string;
  pid: number;
  dataDir: string;
  /** The CA and the admin's client certificate (from the kubeconfig capstan wrote). */
  admin: ClientTls;
  /** What the server wrote on stderr so far. */
  stderr(): string;
  /** Resident set of the server process (bytes). */
  rss(): number;
  /** The highest resident set since the last resetPeak (bytes). */
  peakRss(): number;
  /** Starts a new peak: Linux's clear_refs "5" resets VmHWM to the current resident set. */
  resetPeak(): void;
  /** Whether the process is still running. */
  alive(): boolean;
  /** SIGKILL, no goodbye; resolves once the process is gone. */
  kill9(): Promise<void>;
  /** SIGTERM (SIGKILL after 10 s); the data folder stays. */
  stop(): Promise<void>;
}

/** A fresh data folder; `remove` deletes it and everything in it. */
export function scratchDir(name: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), `capstan-probe-${name}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Starts `capstan --data-dir <dataDir> --secure-port 0 --bind-address 127.0.0.1 <extra>`. */
export async function startProbeServer(dataDir: string, extra: string[] = []): Promise<ProbeServer> {
  const child: ChildProcess = spawn(process.execPath, [process.env['PROBE_CAPSTAN'] ?? join(repoRoot, 'dist/src/cmd/capstan.js'), '--data-dir', dataDir, '--secure-port', '0', '--bind-address', '127.0.0.1', ...extra], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_OPTIONS: process.env['SERVER_NODE_OPTIONS'] ?? '' } });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const [url, kubeconfig] = await new Promise<[string, string]>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`capstan did not start in 30 s: ${stdout}${stderr}`)), 30_000);
    child.stdout!.on('data', (c: Buffer) => {
      stdout += c.toString();
      const m = /serving on (\S+) [^]*kubeconfig: (.+)\n/.exec(stdout);
      if (m) {
        clearTimeout(timer);
        resolve([m[1]!, m[2]!]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`capstan exited with ${code}: ${stdout}${stderr}`));
    });
  });
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  return {
    url,
    pid: child.pid!,
    dataDir,
    admin: kubeconfigTls(kubeconfig),
    stderr: () => stderr,
    rss: () => memoryOf(child.pid!).rss,
    peakRss: () => memoryOf(child.pid!).hwm,
    resetPeak: () => writeFileSync(`/proc/${child.pid!}/clear_refs`, '5'),
    alive: () => !gone(),
    async kill9() {
      if (!gone()) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (gone()) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
