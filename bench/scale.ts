// The Kubernetes 5,000-node SLO scale in one process (issue 22 item 7): 5,000 Nodes, 150,000 Pods
// and 5,000 node Leases renewed every 10 s (500 writes/s) while 100 watchers follow all pods and a
// client lists pods by node with a spec.nodeName field selector. Figures: single-object GET/PUT p99
// during the renewals beside the same on the idle server (the baseline of the same run), a LIST of
// all pods as JSON and Protobuf, the list by node, the Lease renewals kept up, RSS, the server's
// event-loop delay meanwhile (from its /metrics) and this process's own (part of every latency).
// The watchers read in a process of their own (pod-watchers.ts), as they are other clients than
// the one measured.
// SCALE=0.1 shrinks every count (not the 10 s renewal period): figures that grow with the object
// count (full lists, RSS) are then also given scaled to the full size, linearly.
// Plain HTTP, SQLite (durable writes), the API path only for loading (no direct writes to storage).
import { fork, type ChildProcess } from 'node:child_process';
import { request, type Agent } from 'node:http';
import { dirname, join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { figure, http, message, profiled, keepAliveAgent, memoryOf, mib, ms, quantile, sleep, startCapstan, status, type Capstan } from './common.js';
import type { PodWatchersStart } from './pod-watchers.js';
import { parsePrometheusText, sampleValue } from '../test/prometheus-text.js';

const here = dirname(fileURLToPath(import.meta.url));

/** SCALE=<fraction>; `npm run bench` (every benchmark) runs it at 0.1 unless SCALE is given, to stay within minutes. */
let SCALE = 1;
let NODES = 5000;
let PODS = 150_000;
let WATCHERS = 100;
const RENEW_PERIOD_S = 10;

function setScale(whole: boolean): void {
  SCALE = Number(process.env['SCALE'] ?? (whole ? 0.1 : 1));
  NODES = Math.round(5000 * SCALE);
  PODS = Math.round(150_000 * SCALE);
  WATCHERS = Math.max(1, Math.round(100 * Math.min(1, SCALE * 10)));
}
const NAMESPACES = 10;
const MEASURE_S = Number(process.env['BENCH_SCALE_SECONDS'] ?? 15);
const LOAD_CONCURRENCY = 64;
const P99_TARGET_MS = 10;
const LIST_TARGET_MS = 1000;

function microTime(): string {
  return new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

function pod(i: number): unknown {
  const node = `node-${i % NODES}`;
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name: `pod-${i}`, labels: { app: `app-${i % 500}`, tier: 'scale' } },
    spec: {
      nodeName: node,
      containers: [{ name: 'app', image: `example/app:1.${i % 20}`, ports: [{ containerPort: 8080, protocol: 'TCP' }], resources: { requests: { cpu: '100m', memory: '128Mi' } }, env: [{ name: 'INDEX', value: String(i) }] }],
    },
  };
}

function lease(i: number): unknown {
  return { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: `node-${i}` }, spec: { holderIdentity: `node-${i}`, leaseDurationSeconds: 40, renewTime: microTime() } };
}

/** Runs `task(i)` for i in [0, count) with `width` in flight. */
async function inParallel(count: number, width: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(width, count) }, async () => {
    while (next < count) await task(next++);
  }));
}

async function mustCreate(agent: Agent, url: string, body: unknown): Promise<void> {
  const r = await http(agent, url, 'POST', body, false);
  if (r.status !== 201 && r.status !== 409) throw new Error(`POST ${url}: ${r.status}`);
}

/** GET `url` with `accept`; the time to its last byte and its size. */
function timedGet(agent: Agent, url: string, accept: string): Promise<{ ms: number; bytes: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    request(url, { agent, headers: { Accept: accept } }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => (res.statusCode === 200 ? resolve({ ms: performance.now() - started, bytes }) : reject(new Error(`GET ${url}: ${res.statusCode}`))));
    }).on('error', reject).end();
  });
}

/**
 * The PUTs' label values, never the same twice in a run: a PUT that changes nothing writes nothing
 * and sends no watch event (as the reference), and the idle baseline and the busy phase each
 * counting from 0 sometimes put a pod's own value back (every watcher then "missed" that event).
 */
let touches = 0;

/**
 * The server's own event-loop delay since the last call, from its /metrics (prom-client's
 * nodejs_eventloop_lag_*, whose histogram each scrape starts over): what requests waited for the
 * server to be free, apart from what the client and the machine add.
 */
async function serverLoopDelay(agent: Agent, base: string): Promise<{ p99: number; max: number }> {
  const r = await http(agent, `${base}/metrics`);
  if (r.status !== 200) throw new Error(`GET /metrics: ${r.status}`);
  const families = parsePrometheusText(r.body.toString());
  const millis = (name: string) => (sampleValue(families, name, {}) ?? NaN) * 1000;
  return { p99: millis('nodejs_eventloop_lag_p99_seconds'), max: millis('nodejs_eventloop_lag_max_seconds') };
}

/** Single-object reads and writes of random pods, one at a time, for `seconds`; latencies sorted. */
async function singleObjects(agent: Agent, base: string, seconds: number, stopAt = performance.now() + seconds * 1000): Promise<{ get: number[]; put: number[]; byNode: number[] }> {
  const get: number[] = [];
  const put: number[] = [];
  const byNode: number[] = [];
  let n = 0;
  while (performance.now() < stopAt) {
    const i = Math.floor(Math.random() * PODS);
    const url = `${base}/api/v1/namespaces/scale-${i % NAMESPACES}/pods/pod-${i}`;
    const g = await http(agent, url);
    if (g.status !== 200) throw new Error(`GET ${url}: ${g.status}`);
    get.push(g.endAt - g.sentAt);
    const object = JSON.parse(g.body.toString()) as { metadata: { labels: Record<string, string> } };
    object.metadata.labels['touched'] = String(touches++);
    n++;
    const p = await http(agent, url, 'PUT', object);
    if (p.status !== 200) throw new Error(`PUT ${url}: ${p.status} ${p.body.toString().slice(0, 200)}`);
    put.push(p.endAt - p.sentAt);
    if (n % 5 === 0) {
      const l = await http(agent, `${base}/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-${i % NODES}`, 'GET', undefined, false);
      if (l.status !== 200) throw new Error(`list by node: ${l.status}`);
      byNode.push(l.endAt - l.sentAt);
    }
  }
  const sort = (a: number[]) => a.sort((x, y) => x - y);
  return { get: sort(get), put: sort(put), byNode: sort(byNode) };
}

/** Renews every Lease once per RENEW_PERIOD_S, spread evenly, until `stopAt`; renewal latencies and how far behind it fell. */
async function renewLeases(agent: Agent, base: string, stopAt: number): Promise<{ latencies: number[]; done: number; due: number; failed: number }> {
  const latencies: number[] = [];
  const perSecond = NODES / RENEW_PERIOD_S;
  const started = performance.now();
  let done = 0;
  let failed = 0;
  let next = 0;
  const inFlight = new Set<Promise<void>>();
  while (performance.now() < stopAt) {
    const due = Math.floor(((performance.now() - started) / 1000) * perSecond);
    while (next < due && inFlight.size < 64) {
      const i = next++ % NODES;
      const p = http(agent, `${base}/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-${i}`, 'PUT', lease(i), false).then((r) => {
        if (r.status === 200) {
          done++;
          latencies.push(r.endAt - r.sentAt);
        } else failed++;
      });
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
    }
    await sleep(5);
  }
  await Promise.all(inFlight);
  return { latencies: latencies.sort((a, b) => a - b), done, due: Math.floor(((stopAt - started) / 1000) * perSecond), failed };
}

function p(sorted: number[], q: number): string {
  return ms(quantile(sorted, q));
}

export async function scale(whole = false): Promise<void> {
  setScale(whole);
  const server: Capstan = await startCapstan();
  const agent = keepAliveAgent(LOAD_CONCURRENCY);
  const base = server.url;
  let watchers: ChildProcess | undefined;
  try {
    console.log(`\n== scale: ${NODES} Nodes, ${PODS} Pods, ${NODES} Leases renewed every ${RENEW_PERIOD_S} s (${NODES / RENEW_PERIOD_S} writes/s), ${WATCHERS} pod watchers (SCALE=${SCALE}; SQLite, plain HTTP)`);
    await sleep(1000);
    const emptyRss = memoryOf(server.pid).rss;
    for (let n = 0; n < NAMESPACES; n++) await mustCreate(agent, `${base}/api/v1/namespaces`, { metadata: { name: `scale-${n}` } });
    await mustCreate(agent, `${base}/api/v1/namespaces`, { metadata: { name: 'kube-node-lease' } });
    const loadStarted = performance.now();
    await inParallel(NODES, LOAD_CONCURRENCY, (i) => mustCreate(agent, `${base}/api/v1/nodes`, { metadata: { name: `node-${i}`, labels: { 'kubernetes.io/hostname': `node-${i}` } } }));
    await inParallel(NODES, LOAD_CONCURRENCY, (i) => mustCreate(agent, `${base}/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases`, lease(i)));
    const podsStarted = performance.now();
    await profiled('scale.pods', () => inParallel(PODS, LOAD_CONCURRENCY, (i) => mustCreate(agent, `${base}/api/v1/namespaces/scale-${i % NAMESPACES}/pods`, pod(i))));
    const podsS = (performance.now() - podsStarted) / 1000;
    const loadS = (performance.now() - loadStarted) / 1000;
    console.log(`loaded through the API in ${loadS.toFixed(1)} s (${PODS} pods in ${podsS.toFixed(1)} s = ${(PODS / podsS).toFixed(0)}/s, ${LOAD_CONCURRENCY} in flight)`);
    figure('scale', `load ${NODES} nodes + ${NODES} leases + ${PODS} pods via the API`, `${loadS.toFixed(1)} s (pods ${(PODS / podsS).toFixed(0)}/s)`);

    // Full lists of all pods, JSON and Protobuf, three each taking turns; the first of each warms.
    const one = keepAliveAgent(1);
    const lists = { json: [] as number[], protobuf: [] as number[], bytes: { json: 0, protobuf: 0 } };
    for (let round = 0; round < 4; round++) {
      for (const [key, accept] of [['json', 'application/json'], ['protobuf', 'application/vnd.kubernetes.protobuf']] as const) {
        const r = await timedGet(one, `${base}/api/v1/pods`, accept);
        lists.bytes[key] = r.bytes;
        if (round > 0) lists[key].push(r.ms);
      }
    }
    one.destroy();

    // The idle baseline: single-object reads and writes before the renewals and watchers start.
    const idle = await singleObjects(agent, base, 3);

    const list = await http(agent, `${base}/api/v1/pods?limit=1`);
    const rv = (JSON.parse(list.body.toString()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    // In a process of their own: the watchers' reading is not part of the latencies measured here.
    watchers = fork(join(here, 'pod-watchers.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    watchers.send({ base, rv, count: WATCHERS } satisfies PodWatchersStart);
    await message<string>(watchers);
    await sleep(500);
    // This process's own event-loop delay is part of every latency it measures.
    const clientDelay = monitorEventLoopDelay({ resolution: 1 });
    clientDelay.enable();
    await serverLoopDelay(agent, base);
    const stopAt = performance.now() + MEASURE_S * 1000;
    const cpu = memoryOf(server.pid);
    const [busy, renewals] = await profiled('scale.renewals', () => Promise.all([singleObjects(keepAliveAgent(1), base, MEASURE_S, stopAt), renewLeases(agent, base, stopAt)]));
    clientDelay.disable();
    const serverDelay = await serverLoopDelay(agent, base);
    await sleep(1000);
    watchers.send('stop');
    const seen = await message<number[]>(watchers);
    const memory = memoryOf(server.pid);
    void cpu;

    const json = quantile(lists.json.sort((a, b) => a - b), 0.5);
    const protobuf = quantile(lists.protobuf.sort((a, b) => a - b), 0.5);
    const scaled = (v: number) => (SCALE === 1 ? '' : `, ×${(1 / SCALE).toFixed(1)} scaled: ${ms(v / SCALE)}`);
    const listMet = (v: number) => v / SCALE <= LIST_TARGET_MS;
    const getP99 = quantile(busy.get, 0.99);
    const putP99 = quantile(busy.put, 0.99);
    const lines: [string, string, { text: string; met: boolean }?][] = [
      [`LIST all ${PODS} pods, JSON (${mib(lists.bytes.json)})`, `p50 ${ms(json)}${scaled(json)}`, { text: `<= ${LIST_TARGET_MS} ms at full scale`, met: listMet(json) }],
      [`LIST all ${PODS} pods, Protobuf (${mib(lists.bytes.protobuf)})`, `p50 ${ms(protobuf)} (${(protobuf / json).toFixed(2)}× JSON)${scaled(protobuf)}`, { text: `<= ${LIST_TARGET_MS} ms at full scale`, met: listMet(protobuf) }],
      ['GET one pod p99 during renewals', `${ms(getP99)} (p50 ${p(busy.get, 0.5)}, ${busy.get.length} GETs; idle server p99 ${p(idle.get, 0.99)})`, { text: `<= ${P99_TARGET_MS} ms`, met: getP99 <= P99_TARGET_MS }],
      ['PUT one pod p99 during renewals', `${ms(putP99)} (p50 ${p(busy.put, 0.5)}; idle server p99 ${p(idle.put, 0.99)})`, { text: `<= ${P99_TARGET_MS} ms`, met: putP99 <= P99_TARGET_MS }],
      ['Lease renewal (PUT) p99', `${p(renewals.latencies, 0.99)} (p50 ${p(renewals.latencies, 0.5)}); ${renewals.done} of ${renewals.due} due in ${MEASURE_S} s = ${(renewals.done / MEASURE_S).toFixed(0)}/s${renewals.failed ? `, ${renewals.failed} failed` : ''}`, { text: `<= ${P99_TARGET_MS} ms, all due done`, met: quantile(renewals.latencies, 0.99) <= P99_TARGET_MS && renewals.done >= renewals.due * 0.98 && !renewals.failed }],
      ['the server\'s event-loop delay meanwhile', `p99 ${ms(serverDelay.p99)} (max ${ms(serverDelay.max)}; sampled every 10 ms: how long work waited for the server to be free)`],
      ['the bench client\'s event-loop delay meanwhile', `p99 ${ms(clientDelay.percentile(99) / 1e6)} (max ${ms(clientDelay.max / 1e6)}; in every latency above)`],
      ['LIST pods by spec.nodeName during renewals', `p50 ${p(busy.byNode, 0.5)} p99 ${p(busy.byNode, 0.99)} (${busy.byNode.length} lists; idle p50 ${p(idle.byNode, 0.5)})`],
      [`${WATCHERS} pod watchers`, `each saw ${seen[0]}–${seen[seen.length - 1]} events of ${busy.put.length} pod writes`, { text: 'every watcher every event', met: seen[0]! >= busy.put.length }],
      ['server RSS / peak', `${mib(memory.rss)} / ${mib(memory.hwm)}${SCALE === 1 ? '' : ` (empty server ${mib(emptyRss)}; at full scale about ${mib(emptyRss + (memory.rss - emptyRss) / SCALE)})`}`],
    ];
    for (const [name, value, target] of lines) {
      console.log(`${name.padEnd(46)} ${value}${target ? `   target ${target.text}: ${status(target.met)}` : ''}`);
      figure('scale', name, value, target);
    }
  } finally {
    watchers?.kill();
    agent.destroy();
    await server.stop();
  }
}
