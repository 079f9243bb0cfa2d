// What a feature costs a GET: two server processes alike but for the feature, on and off, each
// serving one small ConfigMap to 32 keep-alive connections (autocannon). The cost is the server's
// CPU time per request (read from /proc), on over off, pooled over all rounds; throughput is
// printed beside it. Used by the metrics, APF and audit benches, and to compare two builds.
//
// The two servers are measured at once: both bound to one CPU (taskset), which the scheduler shares
// between them, the clients on the other CPUs. Whatever else happens to the machine then falls on
// both alike, within milliseconds. On this shared 2-core VM a server's CPU per request moves by up
// to ±40% from one second to the next (other tenants' memory traffic: a tight loop's time does not
// move); measured in alternating rounds, one server at a time, each round's on/off ratio scattered
// by as much, and the pooled cost from one run to the next by ±5% — as large as the costs to tell.
// Measured at once, the rounds' ratios stay within a few per cent even while the machine runs 3×
// slower. Sharing its CPU, each server takes about half the throughput it would alone.
// BENCH_<NAME>_SEQUENTIAL=1 measures in alternating rounds instead (one server at a time, unbound).
//
// The rounds are shared among several pairs of fresh processes (BENCH_<NAME>_PAIRS, 6), started in
// turn in either order: two processes of one build differ by up to ±5% in CPU per request over a
// whole run (how V8 happened to optimize each, which started first). Measured at once, that is the
// larger part of what still scatters, so the pairs are many and their rounds few.
// BENCH_<NAME>_RATE=<requests per second> offers both servers the same load instead of as much as
// they take: their CPU per request is then compared at one pace (at saturation, the slower server
// also reads more requests per turn of its event loop, which moves its CPU per request too).
import autocannon, { type Result } from 'autocannon';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { addThreadCpu, cpuMsOf, figure, here, noThreadCpu, pinProcess, startNode, status, THREAD_PARTS, threadCpuMs, type Child, type ThreadCpu } from './common.js';

export type Mode = 'on' | 'off';

const CONNECTIONS = 32;

/** A feature's two servers: a script of bench/ started as `node <script> <data dir> on|off`. */
export interface OnOffServers {
  /** The bench's name (figures, temporary folders, profiles, BENCH_<NAME>_SECONDS/_ROUNDS). */
  readonly name: string;
  /** The server script in bench/ (given its data folder and the mode; prints `serving on http://…`). */
  readonly script: string;
  /** How each side is printed ("metrics on", "APF on (global-default)"). */
  readonly labels: Record<Mode, string>;
  /** Allowed cost (0.05: 5%); none for a comparison without a target. */
  readonly targetCost?: number;
}

export interface OnOffBench extends OnOffServers {
  /** The feature's work of one GET timed directly, in this process: µs (none when `on` is no feature, as another build). */
  direct?(): Promise<number> | number;
  /** Said in the heading after the connections and rounds. */
  readonly note?: string;
  /** What a server left in its data folder, looked at once it has stopped (the audit bench counts its log's events). */
  stopped?(dir: string, mode: Mode): void;
}

interface Server {
  child: Child;
  url: string;
  dir: string;
  mode: Mode;
}

/** The CPU both servers share when measured at once; the clients have the others. */
const SERVERS_CPU = '0';
const allCpus = (): string => `0-${cpus().length - 1}`;
const clientCpus = (): string => `1-${cpus().length - 1}`;

async function server(bench: OnOffBench, mode: Mode, bound: boolean): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), `capstan-bench-${bench.name}-${mode}-`));
  const prof = process.env['BENCH_PROF'];
  const child = await startNode([join(here, bench.script), dir, mode], /serving on (http:\/\/127\.0\.0\.1:\d+)/, prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}/${bench.name}-${mode}`] : []);
  const url = child.match[1]!;
  if (bound) pinProcess(child.child.pid!, SERVERS_CPU);
  return { child, url: await createBenchObject(url), dir, mode };
}

/** Makes the one small ConfigMap the GETs read, on the server at `base`; its URL. */
export async function createBenchObject(base: string): Promise<string> {
  const created = await fetch(`${base}/api/v1/namespaces/default/configmaps`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'bench-get' }, data: { k: 'v' } }),
  });
  if (created.status !== 201) throw new Error(`creating the ConfigMap answered ${created.status}`);
  return `${base}/api/v1/namespaces/default/configmaps/bench-get`;
}

async function stop(bench: OnOffBench, s: Server): Promise<void> {
  const exited = new Promise((r) => s.child.child.once('exit', r));
  s.child.child.kill('SIGTERM');
  await exited;
  try {
    bench.stopped?.(s.dir, s.mode);
  } finally {
    rmSync(s.dir, { recursive: true, force: true });
  }
}

export async function compareOnOff(bench: OnOffBench): Promise<void> {
  // At once, bound to one CPU (see above), unless asked otherwise or the machine has one CPU or no taskset.
  const together = process.env[`BENCH_${bench.name.toUpperCase()}_SEQUENTIAL`] !== '1';
  const bound = together && cpus().length >= 2 && pinProcess(process.pid, clientCpus());
  try {
    await measureOnOff(bench, together, bound);
  } finally {
    if (bound) pinProcess(process.pid, allCpus());
  }
}

/** `together`: both servers measured at once (else in turn); `bound`: they are bound to SERVERS_CPU, this process to the others. */
async function measureOnOff(bench: OnOffBench, together: boolean, bound: boolean): Promise<void> {
  const env = bench.name.toUpperCase();
  const seconds = Number(process.env[`BENCH_${env}_SECONDS`] ?? 2);
  const rounds = Number(process.env[`BENCH_${env}_ROUNDS`] ?? 12);
  const rate = Number(process.env[`BENCH_${env}_RATE`] ?? 0);
  const run = (url: string): Promise<Result> => new Promise((resolve, reject) => {
    autocannon({ url, connections: CONNECTIONS, duration: seconds, ...(rate > 0 ? { overallRate: rate } : {}) }, (err, result) => (err ? reject(err) : resolve(result)));
  });
  const pairs = Math.max(1, Math.min(rounds, Number(process.env[`BENCH_${env}_PAIRS`] ?? 6)));
  const rates: Record<Mode, number[]> = { on: [], off: [] };
  const cpu: Record<Mode, { ms: number; requests: number }> = { on: { ms: 0, requests: 0 }, off: { ms: 0, requests: 0 } };
  // The same by thread and mode (the main thread's own code, its kernel work, V8's and libuv's helpers).
  const parts: Record<Mode, ThreadCpu> = { on: noThreadCpu(), off: noThreadCpu() };
  // Each round's on/off ratio of CPU per request: the two runs of a round share the machine's state.
  const ratios: number[] = [];
  // Each pair's own cost, pooled over its rounds: how far processes alike drift apart.
  const pairCosts: number[] = [];
  for (let pair = 0; pair < pairs; pair++) {
    // Started in either order, in turn (BENCH_<NAME>_OFF_FIRST=1 starts the first pair's off server first).
    const offFirst = (pair % 2 === 1) !== (process.env[`BENCH_${env}_OFF_FIRST`] === '1');
    const early = offFirst ? await server(bench, 'off', bound) : undefined;
    const servers: Record<Mode, Server> = { on: await server(bench, 'on', bound), off: early ?? await server(bench, 'off', bound) };
    try {
      // One warm-up each, not counted (at once too, when measured so).
      if (together) await Promise.all([run(servers.off.url), run(servers.on.url)]);
      else for (const s of [servers.off, servers.on]) await run(s.url);
      const own: Record<Mode, { ms: number; requests: number }> = { on: { ms: 0, requests: 0 }, off: { ms: 0, requests: 0 } };
      // The rounds spread evenly over the pairs (the first pairs take one more when they do not divide).
      const mine = Math.floor(rounds / pairs) + (pair < rounds % pairs ? 1 : 0);
      for (let round = 0; round < mine; round++) {
        // Alternating which goes first (or, at once, which starts first), so a trend in the machine's load falls on both.
        const order: readonly Mode[] = round % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
        const perRequest: Record<string, number> = {};
        const measure = async (mode: Mode): Promise<void> => {
          const pid = servers[mode].child.child.pid!;
          const cpuBefore = cpuMsOf(pid);
          const threadsBefore = threadCpuMs(pid);
          const r = await run(servers[mode].url);
          const used = cpuMsOf(pid) - cpuBefore;
          addThreadCpu(parts[mode], threadsBefore, threadCpuMs(pid));
          perRequest[mode] = used / r.requests.total;
          for (const total of [cpu[mode], own[mode]]) {
            total.ms += used;
            total.requests += r.requests.total;
          }
          if (process.env['BENCH_VERBOSE']) console.log(`pair ${pair} round ${round} ${bench.name} ${mode}: ${r.requests.average.toFixed(0)} req/s, ${((used * 1000) / r.requests.total).toFixed(1)} µs CPU/request`);
          if (r.non2xx + r.errors > 0) throw new Error(`${bench.name} ${mode}: non-2xx ${r.non2xx}, errors ${r.errors}`);
          rates[mode].push(r.requests.average);
        };
        if (together) await Promise.all(order.map(measure));
        else for (const mode of order) await measure(mode);
        ratios.push(perRequest['on']! / perRequest['off']!);
      }
      pairCosts.push(own.on.ms / own.on.requests / (own.off.ms / own.off.requests) - 1);
    } finally {
      for (const s of Object.values(servers)) await stop(bench, s);
    }
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const achieved = { on: mean(rates.on), off: mean(rates.off) };
  const throughputCost = 1 - achieved.on / achieved.off;
  const usPerRequest = (mode: Mode): number => (cpu[mode].ms * 1000) / cpu[mode].requests;
  const split = (mode: Mode) => THREAD_PARTS.map((k) => (parts[mode][k] * 1000) / cpu[mode].requests);
  const userUsPerRequest = (mode: Mode): number => ((parts[mode].mainUser + parts[mode].otherUser) * 1000) / cpu[mode].requests;
  const sorted = [...ratios].sort((a, b) => a - b);
  const median = (sorted[Math.floor((sorted.length - 1) / 2)]! + sorted[Math.ceil((sorted.length - 1) / 2)]!) / 2;
  const cost = usPerRequest('on') / usPerRequest('off') - 1;
  const target = bench.targetCost === undefined ? undefined : { text: `<= ${bench.targetCost * 100}%`, met: cost <= bench.targetCost };
  const show = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');
  const width = Math.max(bench.labels.on.length, bench.labels.off.length);
  console.log(`\n== ${bench.name}: GET of one ConfigMap, ${CONNECTIONS} keep-alive connections${rate > 0 ? ` offering ${rate} req/s` : ''}, ${rounds} rounds of ${seconds} s per server over ${pairs} pairs of processes, ${together ? `both servers at once${bound ? ` sharing CPU ${SERVERS_CPU}, the clients on CPU ${clientCpus()}` : ' (not bound to CPUs)'}` : 'one server at a time'}${bench.note ? ` (${bench.note})` : ''}`);
  for (const mode of ['off', 'on'] as const) {
    console.log(`${bench.labels[mode].padEnd(width)}  ${achieved[mode].toFixed(0).padStart(7)} req/s  ${usPerRequest(mode).toFixed(1)} µs of server CPU per request, ${userUsPerRequest(mode).toFixed(1)} µs of it in user mode  (rounds: ${show(rates[mode])})`);
  }
  console.log(`per-round cost (on/off CPU per request − 1): ${sorted.map((x) => `${((x - 1) * 100).toFixed(1)}%`).join(', ')}`);
  console.log(`per-pair cost (${pairs} pairs of processes, in the order started): ${pairCosts.map((x) => `${(x * 100).toFixed(1)}%`).join(', ')}`);
  console.log(`cost of ${bench.name}: ${(cost * 100).toFixed(1)}% CPU per request over all rounds (median of the rounds' ratios ${((median - 1) * 100).toFixed(1)}%; throughput ${(-throughputCost * 100).toFixed(1)}%)${target ? `  target ${target.text}: ${status(target.met)}` : ''}`);
  console.log(`user-mode CPU per request (the server's own code, without the kernel's TCP work): ${(userUsPerRequest('on') - userUsPerRequest('off')).toFixed(2)} µs more with ${bench.name} on = ${((userUsPerRequest('on') / userUsPerRequest('off') - 1) * 100).toFixed(1)}%`);
  const [mu, mk, ou, ok] = split('on').map((x, i) => x - split('off')[i]!);
  console.log(`µs/request more with ${bench.name} on, by thread: main user ${mu!.toFixed(2)}, main kernel ${mk!.toFixed(2)}, other threads user ${ou!.toFixed(2)}, kernel ${ok!.toFixed(2)} (off: ${split('off').map((x) => x.toFixed(2)).join(', ')})`);
  if (bench.direct) {
    const directUs = await bench.direct();
    const directShare = directUs / usPerRequest('off');
    console.log(`${bench.name} work of one GET, timed directly: ${directUs.toFixed(2)} µs = ${(directShare * 100).toFixed(1)}% of the CPU of a GET with it off`);
    figure(bench.name, `${bench.name} work per GET (direct)`, `${directUs.toFixed(2)} µs = ${(directShare * 100).toFixed(1)}% of a GET's CPU`);
  }
  for (const mode of ['off', 'on'] as const) figure(bench.name, `GET, ${bench.labels[mode]}`, `${achieved[mode].toFixed(0)} req/s, ${usPerRequest(mode).toFixed(1)} µs CPU/request`);
  figure(bench.name, `cost of ${bench.name} on GET (CPU per request)`, `${(cost * 100).toFixed(1)}% (median of rounds ${((median - 1) * 100).toFixed(1)}%, throughput ${(-throughputCost * 100).toFixed(1)}%)`, target);
}
