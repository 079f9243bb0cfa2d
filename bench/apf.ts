// What API Priority and Fairness costs: GETs of one small ConfigMap (32 keep-alive connections,
// autocannon) on two servers alike but for APF on (the client's requests classified to the
// Limited global-default level: a seat of its share, the apiserver_flowcontrol_* numbers) and off
// (the max-in-flight filter in its place, as the reference has one or the other), metrics on in
// both, in alternating rounds so that other load on the machine falls on both. As the metrics
// benchmark: throughput, and the server's CPU per request (from /proc), pooled over the rounds,
// against the target (at most 5%).
import autocannon, { type Result } from 'autocannon';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { cpuMsOf, figure, here, startNode, status, type Child } from './common.js';
import { bootstrapConfiguration } from '../src/server/flowcontrol/bootstrap.js';
import { FlowControl } from '../src/server/flowcontrol/controller.js';
import { priorityAndFairness } from '../src/server/filters/priority-and-fairness.js';
import { RequestContext } from '../src/server/filters/context.js';
import type { Registry } from '../src/registry/store.js';
import { ServerMetrics } from '../src/metrics/server-metrics.js';

/**
 * The APF work of one GET on a Limited level, timed in this process without the server around it:
 * the filter's classification, seat, headers and metrics around a handler that does nothing,
 * beside the same filter chain slot holding nothing. A figure the machine's other load barely moves.
 */
export async function directApfWorkUs(): Promise<number> {
  const metrics = new ServerMetrics({ major: '1', minor: '25', gitVersion: 'v1.25.0', gitCommit: '', gitTreeState: '', buildDate: '', goVersion: '', compiler: '', platform: '' });
  const flowControl = new FlowControl(undefined as unknown as Registry, { serverConcurrencyLimit: 600, waitLimitMs: 15_000 }, metrics.flowcontrol);
  const config = bootstrapConfiguration();
  const uid = (o: Record<string, unknown>, i: number) => ({ ...o, metadata: { ...(o['metadata'] as object), uid: `00000000-0000-0000-0000-${String(i).padStart(12, '0')}` } });
  flowControl.configure(config.schemas.map((e, i) => uid(e.object, i)), config.levels.map((e, i) => uid(e.object, 100 + i)));
  const filter = priorityAndFairness(flowControl, metrics.requests);
  const info = { isResourceRequest: true as const, path: '/api/v1/namespaces/default/configmaps/bench-get', verb: 'get', apiPrefix: 'api' as const, apiGroup: '', apiVersion: 'v1', namespace: 'default', resource: 'configmaps', name: 'bench-get', parts: ['configmaps', 'bench-get'] };
  const user = { name: 'alice', groups: ['system:authenticated'] };
  const req = new IncomingMessage(new Socket());
  const nothing = () => Promise.resolve();
  const once = async () => {
    const ctx = new RequestContext(req, new ServerResponse(req));
    ctx.info = info;
    ctx.user = { ...user, groups: [...user.groups] };
    await filter(ctx, nothing);
  };
  const baseline = async () => {
    const ctx = new RequestContext(req, new ServerResponse(req));
    ctx.info = info;
    ctx.user = { ...user, groups: [...user.groups] };
    await nothing();
  };
  const time = async (f: () => Promise<void>) => {
    for (let i = 0; i < 50_000; i++) await f();
    const n = 200_000;
    const t = performance.now();
    for (let i = 0; i < n; i++) await f();
    return ((performance.now() - t) * 1000) / n;
  };
  const us = (await time(once)) - (await time(baseline));
  metrics.stop();
  return us;
}

const CONNECTIONS = 32;
const SECONDS = Number(process.env['BENCH_APF_SECONDS'] ?? 2);
const ROUNDS = Number(process.env['BENCH_APF_ROUNDS'] ?? 10);
const TARGET_COST = 0.05;

type Mode = 'on' | 'off';

function run(url: string): Promise<Result> {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: CONNECTIONS, duration: SECONDS }, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

async function server(mode: Mode): Promise<{ child: Child; url: string; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), `capstan-bench-apf-${mode}-`));
  const prof = process.env['BENCH_PROF'];
  const child = await startNode([join(here, 'apf-server.js'), dir, mode], /serving on (http:\/\/127\.0\.0\.1:\d+)/, prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}/apf-${mode}`] : []);
  const url = child.match[1]!;
  const created = await fetch(`${url}/api/v1/namespaces/default/configmaps`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'bench-get' }, data: { k: 'v' } }),
  });
  if (created.status !== 201) throw new Error(`creating the ConfigMap answered ${created.status}`);
  return { child, url: `${url}/api/v1/namespaces/default/configmaps/bench-get`, dir };
}

export async function apf(): Promise<void> {
  const on = await server('on');
  const off = await server('off');
  try {
    await run(off.url);
    await run(on.url);
    const rates: Record<Mode, number[]> = { on: [], off: [] };
    const cpu: Record<Mode, { ms: number; requests: number }> = { on: { ms: 0, requests: 0 }, off: { ms: 0, requests: 0 } };
    const ratios: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const);
      const perRequest: Record<string, number> = {};
      for (const mode of order) {
        const s = mode === 'on' ? on : off;
        const cpuBefore = cpuMsOf(s.child.child.pid!);
        const r = await run(s.url);
        const used = cpuMsOf(s.child.child.pid!) - cpuBefore;
        perRequest[mode] = used / r.requests.total;
        cpu[mode].ms += used;
        cpu[mode].requests += r.requests.total;
        if (process.env['BENCH_VERBOSE']) console.log(`round ${round} apf ${mode}: ${r.requests.average.toFixed(0)} req/s, ${((used * 1000) / r.requests.total).toFixed(1)} µs CPU/request`);
        if (r.non2xx + r.errors > 0) throw new Error(`apf ${mode}: non-2xx ${r.non2xx}, errors ${r.errors}`);
        rates[mode].push(r.requests.average);
      }
      ratios.push(perRequest['on']! / perRequest['off']!);
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const rateOn = mean(rates.on);
    const rateOff = mean(rates.off);
    const throughputCost = 1 - rateOn / rateOff;
    const usPerRequest = (mode: Mode): number => (cpu[mode].ms * 1000) / cpu[mode].requests;
    const sorted = [...ratios].sort((a, b) => a - b);
    const median = (sorted[Math.floor((sorted.length - 1) / 2)]! + sorted[Math.ceil((sorted.length - 1) / 2)]!) / 2;
    const cost = usPerRequest('on') / usPerRequest('off') - 1;
    const met = cost <= TARGET_COST;
    const directUs = await directApfWorkUs();
    const directShare = directUs / usPerRequest('off');
    const show = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');
    console.log(`\n== apf: GET of one ConfigMap, ${CONNECTIONS} keep-alive connections, ${ROUNDS} rounds of ${SECONDS} s per server (metrics on in both)`);
    console.log(`APF off (max-in-flight)  ${rateOff.toFixed(0).padStart(7)} req/s  ${usPerRequest('off').toFixed(1)} µs of server CPU per request  (rounds: ${show(rates.off)})`);
    console.log(`APF on (global-default)  ${rateOn.toFixed(0).padStart(7)} req/s  ${usPerRequest('on').toFixed(1)} µs of server CPU per request  (rounds: ${show(rates.on)})`);
    console.log(`per-round cost (on/off CPU per request − 1): ${sorted.map((x) => `${((x - 1) * 100).toFixed(1)}%`).join(', ')}`);
    console.log(`cost of APF: ${(cost * 100).toFixed(1)}% CPU per request over all rounds (median of the rounds' ratios ${((median - 1) * 100).toFixed(1)}%; throughput ${(-throughputCost * 100).toFixed(1)}%)  target <= ${TARGET_COST * 100}%: ${status(met)}`);
    console.log(`APF work of one GET on a Limited level, timed directly: ${directUs.toFixed(2)} µs = ${(directShare * 100).toFixed(1)}% of the CPU of a GET with APF off`);
    figure('apf', 'APF work per GET (direct)', `${directUs.toFixed(2)} µs = ${(directShare * 100).toFixed(1)}% of a GET's CPU`);
    figure('apf', 'GET, APF off (max-in-flight)', `${rateOff.toFixed(0)} req/s, ${usPerRequest('off').toFixed(1)} µs CPU/request`);
    figure('apf', 'GET, APF on (Limited level)', `${rateOn.toFixed(0)} req/s, ${usPerRequest('on').toFixed(1)} µs CPU/request`);
    figure('apf', 'cost of APF on GET (CPU per request)', `${(cost * 100).toFixed(1)}% (median of rounds ${((median - 1) * 100).toFixed(1)}%, throughput ${(-throughputCost * 100).toFixed(1)}%)`, { text: `<= ${TARGET_COST * 100}%`, met });
  } finally {
    for (const s of [on, off]) {
      const exited = new Promise((r) => s.child.child.once('exit', r));
      s.child.child.kill('SIGTERM');
      await exited;
      rmSync(s.dir, { recursive: true, force: true });
    }
  }
}
