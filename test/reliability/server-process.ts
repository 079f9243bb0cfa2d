// A real capstan process to measure from outside: its URL and client credentials, and its
// memory as Linux counts it (resident set now, and the peak since the last reset).
import { readFileSync, writeFileSync } from 'node:fs';
import { startCapstan, type Capstan } from '../e2e/harness.js';
import { call, kubeconfigTls, type ClientTls, type Reply } from '../helpers.js';

export interface MeasuredServer {
  capstan: Capstan;
  pid: number;
  url: string;
  tls: ClientTls;
}

/** Starts `node dist/src/cmd/capstan.js --data-dir <dataDir> --secure-port 0 --bind-address 127.0.0.1`. */
export async function startMeasuredServer(dataDir: string): Promise<MeasuredServer> {
  const capstan = await startCapstan(dataDir, ['--bind-address', '127.0.0.1']);
  const server = /server: (\S+)/.exec(readFileSync(capstan.kubeconfig, 'utf8'));
  if (!server || capstan.process.pid === undefined) throw new Error('capstan started without a server URL or pid');
  return { capstan, pid: capstan.process.pid, url: server[1]!, tls: kubeconfigTls(capstan.kubeconfig) };
}

function statusKb(pid: number, key: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`${key}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no ${key} for process ${pid}`);
  return Number(m[1]);
}

/** The process's resident memory now, in MB (2^20 bytes). */
export function residentMb(pid: number): number {
  return statusKb(pid, 'VmRSS') / 1024;
}

/** The process's peak resident memory since the last {@link resetPeak}, in MB. */
export function peakMb(pid: number): number {
  return statusKb(pid, 'VmHWM') / 1024;
}

/** Starts counting the peak afresh (Linux: "5" to clear_refs resets VmHWM to the current RSS). */
export function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

export interface Measured {
  reply: Reply;
  /** From the first byte sent to the last byte of the answer. */
  ms: number;
  /** How far the server's resident memory rose above where it stood before the request. */
  growthMb: number;
}

/** Sends one request to the server and measures its time and the server's peak memory growth. */
export async function measure(server: MeasuredServer, method: string, path: string, body: Buffer, contentType: string): Promise<Measured> {
  resetPeak(server.pid);
  const before = residentMb(server.pid);
  const started = performance.now();
  const reply = await call(server.url, method, path, { body, headers: { 'Content-Type': contentType }, tls: server.tls });
  const ms = performance.now() - started;
  return { reply, ms, growthMb: Math.max(0, peakMb(server.pid) - before) };
}
