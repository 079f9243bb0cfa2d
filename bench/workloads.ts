// The workload controllers at scale: 1,000 Deployments of 10 replicas created at once (32 clients),
// on the real server (SQLite, durable writes). Measured: the time from the first create until every
// ReplicaSet exists, and until all 10,000 pods exist, and a GET's latency meanwhile (one GET every
// 20 ms from a process of its own). Baseline, in the same run: the benchmark itself writing the
// same 1,000 ReplicaSets and 10,000 pods (32 clients) with the controllers off — what the
// controllers do, done by a client as fast as it can.
// Targets (issue 20): every ReplicaSet and pod within 30 s on 2 cores; GET p99 reported.
import { type Agent } from 'node:http';
import { createMany, createNamespace, figure, keepAliveAgent, ms, ok, quantile, sleep, startCapstan, status } from './common.js';
import { startGetTimer } from './get-timer.js';

const DEPLOYMENTS = Number(process.env['BENCH_DEPLOYMENTS'] ?? 1000);
const REPLICAS = Number(process.env['BENCH_REPLICAS'] ?? 10);
const CLIENTS = 32;
const LIMIT_MS = Number(process.env['BENCH_WORKLOADS_LIMIT_MS'] ?? 120_000);
const TARGET_MS = 30_000;

const POD_SPEC = { containers: [{ name: 'web', image: 'nginx:1.25', ports: [{ containerPort: 80 }] }] };

function template(app: string): unknown {
  return { metadata: { labels: { app } }, spec: POD_SPEC };
}

/** How many objects a collection holds: a one-item page and its remainingItemCount. */
async function count(agent: Agent, url: string): Promise<number> {
  const r = await ok(agent, `${url}?limit=1`);
  const list = JSON.parse(r.body.toString()) as { items: unknown[]; metadata: { remainingItemCount?: number } };
  return list.items.length + (list.metadata.remainingItemCount ?? 0);
}

interface Run {
  replicaSetsMs: number;
  podsMs: number;
  gets: number[];
}

/** Creates the objects with `create`, then waits until the collections hold them all, timing GETs meanwhile. */
async function measure(base: string, ns: string, create: (agent: Agent) => Promise<void>): Promise<Run> {
  const agent = keepAliveAgent(CLIENTS + 1);
  const timer = startGetTimer(base);
  const gets: number[] = [];
  let timing = true;
  const getLoop = (async () => {
    while (timing) {
      gets.push(await timer.time(`/api/v1/namespaces/${ns}/configmaps/probe`));
      await sleep(20);
    }
  })();
  const started = performance.now();
  let replicaSetsMs = NaN;
  let podsMs = NaN;
  const creating = create(agent);
  const polling = (async () => {
    while (performance.now() - started < LIMIT_MS && Number.isNaN(podsMs)) {
      await sleep(250);
      if (Number.isNaN(replicaSetsMs) && (await count(agent, `${base}/apis/apps/v1/namespaces/${ns}/replicasets`)) >= DEPLOYMENTS) replicaSetsMs = performance.now() - started;
      if (!Number.isNaN(replicaSetsMs) && (await count(agent, `${base}/api/v1/namespaces/${ns}/pods`)) >= DEPLOYMENTS * REPLICAS) podsMs = performance.now() - started;
    }
  })();
  await creating;
  await polling;
  timing = false;
  await getLoop;
  timer.close();
  agent.destroy();
  return { replicaSetsMs, podsMs, gets: gets.sort((a, b) => a - b) };
}

function report(label: string, run: Run, target: boolean): void {
  const seconds = (v: number) => (Number.isNaN(v) ? `not within ${LIMIT_MS / 1000} s` : `${(v / 1000).toFixed(1)} s`);
  console.log(`${label}: ReplicaSets ${seconds(run.replicaSetsMs)}, pods ${seconds(run.podsMs)}; GET p50 ${ms(quantile(run.gets, 0.5))} p99 ${ms(quantile(run.gets, 0.99))} (${run.gets.length} GETs)`);
  figure('workloads', `${label}: all ReplicaSets`, seconds(run.replicaSetsMs));
  const met = run.podsMs <= TARGET_MS;
  figure('workloads', `${label}: all ${DEPLOYMENTS * REPLICAS} pods`, seconds(run.podsMs), target ? { text: `<= ${TARGET_MS / 1000} s`, met } : undefined);
  figure('workloads', `${label}: GET p99 meanwhile`, ms(quantile(run.gets, 0.99)));
  if (target) console.log(`target: every pod within ${TARGET_MS / 1000} s: ${status(met)}`);
}

export async function workloads(): Promise<void> {
  console.log(`\n== workloads: ${DEPLOYMENTS} Deployments × ${REPLICAS} replicas created at once (${CLIENTS} clients)`);
  // Baseline: the client writes what the controllers would, with the controllers off.
  const bare = await startCapstan(['--controllers=*,-deployment,-replicaset']);
  try {
    const agent = keepAliveAgent(CLIENTS);
    await createNamespace(agent, bare.url, 'bench');
    await ok(agent, `${bare.url}/api/v1/namespaces/bench/configmaps`, 'POST', { metadata: { name: 'probe' }, data: { a: 'b' } });
    const run = await measure(bare.url, 'bench', async (a) => {
      await createMany(a, `${bare.url}/apis/apps/v1/namespaces/bench/replicasets`, DEPLOYMENTS, CLIENTS, (i) => ({
        metadata: { name: `app-${i}` }, spec: { replicas: REPLICAS, selector: { matchLabels: { app: `app-${i}` } }, template: template(`app-${i}`) },
      }));
      await createMany(a, `${bare.url}/api/v1/namespaces/bench/pods`, DEPLOYMENTS * REPLICAS, CLIENTS, (i) => ({
        metadata: { generateName: `app-${Math.floor(i / REPLICAS)}-`, labels: { app: `app-${Math.floor(i / REPLICAS)}` } }, spec: POD_SPEC,
      }));
    });
    report('baseline (the client writes them)', run, false);
    agent.destroy();
  } finally {
    await bare.stop();
  }
  const capstan = await startCapstan();
  try {
    const agent = keepAliveAgent(CLIENTS);
    await createNamespace(agent, capstan.url, 'bench');
    await ok(agent, `${capstan.url}/api/v1/namespaces/bench/configmaps`, 'POST', { metadata: { name: 'probe' }, data: { a: 'b' } });
    const run = await measure(capstan.url, 'bench', async (a) => {
      await createMany(a, `${capstan.url}/apis/apps/v1/namespaces/bench/deployments`, DEPLOYMENTS, CLIENTS, (i) => ({
        metadata: { name: `app-${i}` }, spec: { replicas: REPLICAS, selector: { matchLabels: { app: `app-${i}` } }, template: template(`app-${i}`) },
      }));
    });
    report('controllers', run, true);
    agent.destroy();
  } finally {
    await capstan.stop();
  }
}
