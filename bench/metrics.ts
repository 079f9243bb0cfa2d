// What recording metrics costs: GETs of one small ConfigMap (32 keep-alive connections, autocannon)
// on two servers alike but for their metrics, on and off, in alternating rounds so that other load
// on the machine falls on both. Two figures: throughput, and the server's CPU time per request
// (read from /proc), which other processes on a shared machine skew far less. The target (metrics
// cost at most 5%) is checked on the CPU per request pooled over all rounds; the metrics work of
// one GET is also timed directly, in this process, as a figure the machine's load barely moves.
import autocannon, { type Result } from 'autocannon';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuMsOf, figure, here, startNode, status, type Child } from './common.js';
import { dryRunLabel, metricScope, reportedVerb, watchParameter } from '../src/metrics/request-labels.js';
import { ServerMetrics } from '../src/metrics/server-metrics.js';

/**
 * The metrics work of one GET, timed in this process without the server around it: its labels, its
 * endpoint's series, the observation, the authentication and in-flight counts. A figure the
 * machine's other load barely moves, to set beside the server's CPU per request.
 */
function directMetricsWorkUs(): number {
  const metrics = new ServerMetrics({ major: '1', minor: '25', gitVersion: 'v1.25.0', gitCommit: '', gitTreeState: '', buildDate: '', goVersion: '', compiler: '', platform: '' });
  const info = { group: '', version: 'v1', resource: 'configmaps' };
  const query = new URLSearchParams('');
  const url = '/api/v1/namespaces/default/configmaps/bench-get';
  const once = () => {
    const started = performance.now();
    metrics.authenticated('success', 'system:admin', (performance.now() - started) / 1000);
    metrics.requests.enter(false);
    const scope = metricScope(true, 'get', 'bench-get', 'default');
    const verb = reportedVerb('GET', scope, watchParameter('GET', query), undefined);
    const endpoint = metrics.requests.endpoint(info, '', scope, () => ({ ...info, subresource: '', scope, component: 'apiserver' }));
    const dryRun = dryRunLabel(url, query);
    const seconds = (performance.now() - started) / 1000;
    endpoint.observe(verb, dryRun, 200, seconds, 420, seconds);
    metrics.requests.leave(false);
  };
  for (let i = 0; i < 100_000; i++) once();
  const n = 500_000;
  const t = performance.now();
  for (let i = 0; i < n; i++) once();
  const us = ((performance.now() - t) * 1000) / n;
  metrics.stop();
  return us;
}

const CONNECTIONS = 32;
const SECONDS = Number(process.env['BENCH_METRICS_SECONDS'] ?? 2);
const ROUNDS = Number(process.env['BENCH_METRICS_ROUNDS'] ?? 10);
const TARGET_COST = 0.05;

function run(url: string): Promise<Result> {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: CONNECTIONS, duration: SECONDS }, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

async function server(mode: 'on' | 'off'): Promise<{ child: Child; url: string; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), `capstan-bench-metrics-${mode}-`));
  const prof = process.env['BENCH_PROF'];
  const child = await startNode([join(here, 'metrics-server.js'), dir, mode], /serving on (http:\/\/127\.0\.0\.1:\d+)/, prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}/${mode}`] : []);
  const url = child.match[1]!;
  const created = await fetch(`${url}/api/v1/namespaces/default/configmaps`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'bench-get' }, data: { k: 'v' } }),
  });
  if (created.status !== 201) throw new Error(`creating the ConfigMap answered ${created.status}`);
  return { child, url: `${url}/api/v1/namespaces/default/configmaps/bench-get`, dir };
}

export async function metrics(): Promise<void> {
  // Started in either order (BENCH_METRICS_OFF_FIRST=1 for the other) to rule out an effect of the order.
  const offFirst = process.env['BENCH_METRICS_OFF_FIRST'] === '1';
  const off = offFirst ? await server('off') : undefined;
  const on = await server('on');
  const offServer = off ?? await server('off');
  try {
    // One warm-up each, not counted.
    await run(offServer.url);
    await run(on.url);
    const rates: Record<'on' | 'off', number[]> = { on: [], off: [] };
    const cpu: Record<'on' | 'off', { ms: number; requests: number }> = { on: { ms: 0, requests: 0 }, off: { ms: 0, requests: 0 } };
    // Each round's on/off ratio of CPU per request: the two runs of a round share the machine's state.
    const ratios: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Alternating which goes first, so a trend in the machine's load falls on both.
      const order = round % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const);
      const perRequest: Record<string, number> = {};
      for (const mode of order) {
        const s = mode === 'on' ? on : offServer;
        const cpuBefore = cpuMsOf(s.child.child.pid!);
        const r = await run(s.url);
        const used = cpuMsOf(s.child.child.pid!) - cpuBefore;
        perRequest[mode] = used / r.requests.total;
        cpu[mode].ms += used;
        cpu[mode].requests += r.requests.total;
        if (process.env['BENCH_VERBOSE']) console.log(`round ${round} metrics ${mode}: ${r.requests.average.toFixed(0)} req/s, ${((used * 1000) / r.requests.total).toFixed(1)} µs CPU/request`);
        if (r.non2xx + r.errors > 0) throw new Error(`metrics ${mode}: non-2xx ${r.non2xx}, errors ${r.errors}`);
        rates[mode].push(r.requests.average);
      }
      ratios.push(perRequest['on']! / perRequest['off']!);
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const rateOn = mean(rates.on);
    const rateOff = mean(rates.off);
    const throughputCost = 1 - rateOn / rateOff;
    const usPerRequest = (mode: 'on' | 'off'): number => (cpu[mode].ms * 1000) / cpu[mode].requests;
    const sortedRatios = [...ratios].sort((a, b) => a - b);
    const median = (sortedRatios[Math.floor((sortedRatios.length - 1) / 2)]! + sortedRatios[Math.ceil((sortedRatios.length - 1) / 2)]!) / 2;
    // Pooled over every round: the per-round ratios scatter (±30% on a shared 2-core machine).
    const cost = usPerRequest('on') / usPerRequest('off') - 1;
    const met = cost <= TARGET_COST;
    const directUs = directMetricsWorkUs();
    const directShare = directUs / usPerRequest('off');
    const show = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');
    console.log(`\n== metrics: GET of one ConfigMap, ${CONNECTIONS} keep-alive connections, ${ROUNDS} rounds of ${SECONDS} s per server`);
    console.log(`metrics off  ${rateOff.toFixed(0).padStart(7)} req/s  ${usPerRequest('off').toFixed(1)} µs of server CPU per request  (rounds: ${show(rates.off)})`);
    console.log(`metrics on   ${rateOn.toFixed(0).padStart(7)} req/s  ${usPerRequest('on').toFixed(1)} µs of server CPU per request  (rounds: ${show(rates.on)})`);
    console.log(`per-round cost (on/off CPU per request − 1): ${sortedRatios.map((x) => `${((x - 1) * 100).toFixed(1)}%`).join(', ')}`);
    console.log(`cost of metrics: ${(cost * 100).toFixed(1)}% CPU per request over all rounds (median of the rounds' ratios ${((median - 1) * 100).toFixed(1)}%; throughput ${(-throughputCost * 100).toFixed(1)}%)  target <= ${TARGET_COST * 100}%: ${status(met)}`);
    console.log(`metrics work of one GET, timed directly: ${directUs.toFixed(2)} µs = ${(directShare * 100).toFixed(1)}% of the CPU of a GET without metrics`);
    figure('metrics', 'metrics work per GET (direct)', `${directUs.toFixed(2)} µs = ${(directShare * 100).toFixed(1)}% of a GET's CPU`);
    figure('metrics', 'GET, metrics off', `${rateOff.toFixed(0)} req/s, ${usPerRequest('off').toFixed(1)} µs CPU/request`);
    figure('metrics', 'GET, metrics on', `${rateOn.toFixed(0)} req/s, ${usPerRequest('on').toFixed(1)} µs CPU/request`);
    figure('metrics', 'cost of metrics on GET (CPU per request)', `${(cost * 100).toFixed(1)}% (median of rounds ${((median - 1) * 100).toFixed(1)}%, throughput ${(-throughputCost * 100).toFixed(1)}%)`, { text: `<= ${TARGET_COST * 100}%`, met });
  } finally {
    for (const s of [on, offServer]) {
      const exited = new Promise((r) => s.child.child.once('exit', r));
      s.child.child.kill('SIGTERM');
      await exited;
      rmSync(s.dir, { recursive: true, force: true });
    }
  }
}
