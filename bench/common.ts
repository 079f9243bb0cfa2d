// Shared pieces of the benchmarks: the capstan server as a child process (so the load generator
// does not steal its CPU on a small machine), its memory from /proc, keep-alive HTTP helpers
// towards 127.0.0.1 only, percentiles and the summary every benchmark adds its figures to.
import type { ClientResult, WriteRecord } from './watch-client.js';
import type autocannon from 'autocannon';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ProbeReport } from './server-probe.js';

export const here = dirname(fileURLToPath(import.meta.url));

/** A figure of the final summary; `met` is set where the figure has a target. */
export interface Figure {
  bench: string;
  name: string;
  value: string;
  target?: string;
  met?: boolean;
}

export const summary: Figure[] = [];

export function figure(bench: string, name: string, value: string, target?: { text: string; met: boolean }): void {
  summary.push({ bench, name, value, target: target?.text, met: target?.met });
}

export function status(met: boolean): string {
  return met ? 'met' : 'MISSED';
}

export function printSummary(): void {
  const width = Math.max(...summary.map((f) => `${f.bench} ${f.name}`.length));
  const valueWidth = Math.max(...summary.map((f) => f.value.length));
  console.log('\n==== summary ====');
  for (const f of summary) {
    const target = f.target !== undefined ? `  target ${f.target}: ${status(f.met ?? false)}` : '';
    console.log(`${`${f.bench} ${f.name}`.padEnd(width)}  ${f.value.padEnd(valueWidth)}${target}`);
  }
  const targets = summary.filter((f) => f.target !== undefined);
  const missed = targets.filter((f) => !f.met);
  console.log(`targets: ${targets.length - missed.length}/${targets.length} met${missed.length ? ` (MISSED: ${missed.map((f) => `${f.bench} ${f.name}`).join(', ')})` : ''}`);
}

// ---- processes ----

export interface Child {
  child: ChildProcess;
  match: RegExpExecArray;
}

/** Starts `node <args>` (under `launcher`, such as valgrind and its flags, when given) and resolves once its stdout matches `ready`. */
export function startNode(args: string[], ready: RegExp, nodeFlags: string[] = [], env: Record<string, string> = {}, launcher: string[] = []): Promise<Child> {
  const command = [...launcher, process.execPath, ...nodeFlags, ...args];
  const child = spawn(command[0]!, command.slice(1), { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = ready.exec(out);
      if (m) resolve({ child, match: m });
    });
    child.once('exit', (code) => reject(new Error(`${args[0]} exited ${code}: ${out}`)));
  });
}

export interface Capstan {
  /** http://127.0.0.1:port */
  url: string;
  pid: number;
  dir: string;
  /** With `probe`: a full GC in the server, then its memory breakdown (see server-probe.ts). */
  probe(): Promise<ProbeReport>;
  stop(): Promise<void>;
}

/**
 * The real command, `capstan --data-dir <tmp> --secure-port 0`, in its own process. BENCH_PROF=<dir>
 * runs it under --cpu-prof (and --heap-prof with BENCH_HEAP_PROF=1), one .cpuprofile per server;
 * BENCH_CAPSTAN=<path of another build's dist/src/cmd/capstan.js> benchmarks that build instead.
 */
export interface CapstanOptions {
  /** Preloads bench/server-probe.ts (with --expose-gc) for `probe()`. */
  probe?: boolean;
  /** Starts on this data folder (a restart) instead of a new one. */
  dataDir?: string;
  /** Leaves the data folder in place when stopped (to start again on it). */
  keepData?: boolean;
}

export async function startCapstan(extraArgs: string[] = [], options: CapstanOptions = {}): Promise<Capstan> {
  const dir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'capstan-bench-'));
  const flags: string[] = [];
  const probeFile = join(dir, 'probe.json');
  if (options.probe) flags.push('--expose-gc', '--import', pathToFileURL(join(here, 'server-probe.js')).href);
  const prof = process.env['BENCH_PROF'];
  if (prof) {
    flags.push('--cpu-prof', `--cpu-prof-dir=${prof}`);
    if (process.env['BENCH_HEAP_PROF']) flags.push('--heap-prof', `--heap-prof-dir=${prof}`);
  }
  // BENCH_NODE_FLAGS="--trace-gc …": more flags for the server's node (to see inside a run).
  flags.push(...(process.env['BENCH_NODE_FLAGS']?.split(' ').filter(Boolean) ?? []));
  let started: Child;
  try {
    const command = process.env['BENCH_CAPSTAN'] ?? join(here, '../src/cmd/capstan.js');
    started = await startNode([command, '--data-dir', dir, '--secure-port', '0', '--bind-address', '127.0.0.1', ...(process.env['BENCH_TLS'] ? [] : ['--insecure-serving']), ...extraArgs], /serving on (http:\/\/127\.0\.0\.1:\d+)/, flags, {
      CAPSTAN_PROBE_FILE: probeFile,
      ...(process.env['BENCH_HEAP_SNAPSHOT'] ? { CAPSTAN_PROBE_SNAPSHOT: process.env['BENCH_HEAP_SNAPSHOT'] } : {}),
    });
  } catch (err) {
    if (!options.keepData) rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const { child } = started;
  return {
    url: started.match[1]!,
    pid: child.pid!,
    dir,
    async probe() {
      if (!options.probe) throw new Error('started without probe');
      rmSync(probeFile, { force: true });
      child.kill('SIGUSR2');
      for (let i = 0; i < 600; i++) {
        await sleep(50);
        if (existsSync(probeFile)) return JSON.parse(readFileSync(probeFile, 'utf8')) as ProbeReport;
      }
      throw new Error('no probe report from the server');
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      if (!options.keepData) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Memory {
  /** Current resident set (bytes). */
  rss: number;
  /** Peak resident set since the process started (bytes). */
  hwm: number;
}

/** VmRSS and VmHWM of a process, from /proc/<pid>/status. */
export function memoryOf(pid: number): Memory {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/**
 * Binds a process, every thread of it (and the threads it makes later), to the CPUs of `cpuList`
 * ("0", "1-3") with util-linux's taskset; false where that cannot be done.
 */
export function pinProcess(pid: number, cpuList: string): boolean {
  try {
    execFileSync('taskset', ['-a', '-p', '-c', cpuList, String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The audit benchmark's policy: every request at Metadata level, RequestReceived left out when asked. */
export function metadataAuditPolicy(omitReceived = false): string {
  return `apiVersion: audit.k8s.io/v1\nkind: Policy\n${omitReceived ? 'omitStages: [RequestReceived]\n' : ''}rules:\n- level: Metadata\n`;
}

/** CPU time (user + system, ms) a process has used so far, from /proc/<pid>/stat. */
export function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 (utime, stime) of stat(5), counted from after the command name (field 3 = index 0).
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** CPU time (ms) of a process's threads so far: its main thread's and the others' (libuv's pool, which writes the log; V8's helpers), user and kernel apart. */
export interface ThreadCpu {
  mainUser: number;
  mainKernel: number;
  otherUser: number;
  otherKernel: number;
}
export const THREAD_PARTS: Array<keyof ThreadCpu> = ['mainUser', 'mainKernel', 'otherUser', 'otherKernel'];

export function noThreadCpu(): ThreadCpu {
  return { mainUser: 0, mainKernel: 0, otherUser: 0, otherKernel: 0 };
}

/** Adds to `into` what each part grew by from `before` to `after`. */
export function addThreadCpu(into: ThreadCpu, before: ThreadCpu, after: ThreadCpu): void {
  for (const k of THREAD_PARTS) into[k] += after[k] - before[k];
}

export function threadCpuMs(pid: number): ThreadCpu {
  const cpu = noThreadCpu();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended meanwhile
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime (stat(5) fields 14 and 15) in clock ticks of 10 ms.
    const user = Number(fields[11]) * 10;
    const kernel = Number(fields[12]) * 10;
    if (tid === String(pid)) {
      cpu.mainUser += user;
      cpu.mainKernel += kernel;
    } else {
      cpu.otherUser += user;
      cpu.otherKernel += kernel;
    }
  }
  return cpu;
}

/** CLOCK_MONOTONIC in microseconds, the clock V8 stamps profile samples with. */
export function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/** Runs `phase`; under BENCH_PROF prints its window for `profile.js --window`. */
export async function profiled<T>(name: string, phase: () => Promise<T>): Promise<T> {
  const from = monotonicUs();
  try {
    return await phase();
  } finally {
    if (process.env['BENCH_PROF']) console.log(`profile window ${name}: ${from},${monotonicUs()}`);
  }
}

/** CPU time (ms) the whole machine has been busy (every core, /proc/stat: all but idle and iowait). */
export function machineBusyMs(): number {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = f as [number, number, number, number, number, number, number, number];
  return ((user + nice + system + irq + softirq + steal) * 1000) / 100;
}

/** CPU time (ms) of this process plus its children that have exited and been reaped. */
export function ownTreeMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
  // utime, stime, cutime, cstime: fields 14-17 of stat(5).
  return ((f[11]! + f[12]! + f[13]! + f[14]!) * 1000) / 100;
}

/**
 * Waits (at most `maxMs`) for the machine to be quiet — under `threshold` of a core busy over half
 * a second — since other work on a small machine skews every figure. Returns the last busy level.
 */
export async function waitForQuiet(maxMs: number, threshold = 0.3): Promise<{ waitedMs: number; busy: number }> {
  const started = performance.now();
  let busy = Infinity;
  while (true) {
    const before = machineBusyMs();
    await sleep(500);
    busy = (machineBusyMs() - before) / 500;
    if (busy < threshold || performance.now() - started >= maxMs) return { waitedMs: performance.now() - started, busy };
  }
}

// ---- HTTP ----

export interface Response {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** performance.now() when the request was sent, its first body byte (or headers) came, and its last byte came. */
  sentAt: number;
  firstByteAt: number;
  endAt: number;
}

/**
 * One request over `agent` (keep-alive); the body is read whole (with keepBody false it is only
 * counted, and `body` holds its byte count as text). Only 127.0.0.1 is ever targeted.
 */
export function http(agent: Agent, url: string, method = 'GET', body?: unknown, keepBody = true): Promise<Response> {
  const u = new URL(url);
  if (u.hostname !== '127.0.0.1') throw new Error(`benchmarks only target 127.0.0.1, not ${u.hostname}`);
  const payload = body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { Accept: 'application/json' };
    if (payload) {
      headers['Content-Type'] = 'application/json';
      headers['Content-Length'] = payload.length;
    }
    const sentAt = performance.now();
    const req = request({ agent, host: u.hostname, port: u.port, path: u.pathname + u.search, method, headers }, (res) => {
      let firstByteAt = performance.now();
      let first = true;
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        if (first) {
          firstByteAt = performance.now();
          first = false;
        }
        size += c.length;
        if (keepBody) chunks.push(c);
      });
      res.on('end', () => {
        const endAt = performance.now();
        const all = keepBody ? Buffer.concat(chunks) : Buffer.alloc(0);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: keepBody ? all : Buffer.from(String(size)), sentAt, firstByteAt, endAt });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

export async function ok(agent: Agent, url: string, method = 'GET', body?: unknown): Promise<Response> {
  const r = await http(agent, url, method, body);
  if (r.status >= 300) throw new Error(`${method} ${url}: ${r.status} ${r.body.toString().slice(0, 300)}`);
  return r;
}

export async function createNamespace(agent: Agent, base: string, name: string): Promise<void> {
  await ok(agent, `${base}/api/v1/namespaces`, 'POST', { metadata: { name } });
}

/**
 * Creates `count` objects with `concurrency` requests in flight; `body(i)` builds the i-th.
 * Returns the total bytes of the created objects as the server answered them (the object as served).
 */
export async function createMany(agent: Agent, url: string, count: number, concurrency: number, body: (i: number) => unknown): Promise<{ bytes: number; ms: number }> {
  let next = 0;
  let bytes = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const r = await http(agent, url, 'POST', body(i));
      if (r.status !== 201) throw new Error(`create #${i}: ${r.status} ${r.body.toString().slice(0, 300)}`);
      bytes += r.body.length;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return { bytes, ms: performance.now() - started };
}

export function keepAliveAgent(maxSockets: number): Agent {
  return new Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
}

// ---- numbers ----

/** The q-quantile (0..1) of sorted values, nearest rank. */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i]!;
}

export function ms(v: number): string {
  return `${v.toFixed(v < 10 ? 2 : 1)} ms`;
}

export function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

export function sleep(msec: number): Promise<void> {
  return new Promise((r) => setTimeout(r, msec));
}

/** The next message a forked client process sends (its report); rejects if it exits first. */
export function message<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`client process exited ${code}`));
    child.once('exit', onExit);
    child.once('message', (m) => {
      child.off('exit', onExit);
      resolve(m as T);
    });
  });
}

/**
 * Hands each watch client (watch-client.ts) the writes made, in resourceVersion order, and gathers
 * what each saw of them. `writes` is sorted in place: the reports index their arrivals in that order.
 */
export function watchReports(clients: readonly ChildProcess[], writes: WriteRecord[]): Promise<ClientResult[]> {
  const records: WriteRecord[] = writes.sort((a, b) => a.rv - b.rv).map((w) => ({ rv: w.rv, type: w.type }));
  return Promise.all(clients.map((c) => {
    const answer = message<ClientResult>(c);
    c.send(records);
    return answer;
  }));
}

/**
 * autocannon options creating ConfigMaps c-0, c-1, … (200-byte data) in the collection `url` (the
 * create load of the CRUD and etcd benches), and how many it has sent.
 */
export function configMapCreates(url: string): { options: autocannon.Options; created: () => number } {
  let created = 0;
  const options: autocannon.Options = {
    url,
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    requests: [{ setupRequest: (req) => ({ ...req, body: JSON.stringify({ metadata: { name: `c-${created++}` }, data: { k: 'v'.repeat(200) } }) }) }],
  };
  return { options, created: () => created };
}
