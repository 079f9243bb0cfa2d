// Start and size (issue 22 item 6): from spawning `capstan` to its first /readyz 200, with
// --storage memory and on an existing SQLite data folder of 10,000 objects, beside a bare
// node:https server's spawn → first answer in the same run; the idle RSS of each, 2 s after ready
// and at rest: V8 keeps the young generation a start grew (16 MiB) until its memory reducer runs,
// some 20-25 s later, with the server untouched.
// Targets: ready <= 100 ms (memory), <= 200 ms (SQLite, 10,000 objects); idle RSS (at rest) <= 80 MB
// empty, and what 10,000 objects add to it <= 2x their JSON.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CERT_FILES, ensureServingMaterial, type ServingMaterial } from '../src/server/certs.js';
import { cpuMsOf, figure, here, memoryOf, ms, quantile, sleep, status } from './common.js';

const RUNS = Number(process.env['BENCH_START_RUNS'] ?? 5);
const OBJECTS = Number(process.env['BENCH_START_OBJECTS'] ?? 10_000);
const IDLE_MS = 2000;
/** How long the RSS at rest is waited for, at most (BENCH_START_REST_S). */
const REST_MAX_MS = Number(process.env['BENCH_START_REST_S'] ?? 45) * 1000;
const MB = 1_000_000;

interface Started {
  child: ChildProcess;
  url: string;
  /** Spawn → the first 200 from `path`. */
  readyMs: number;
  /** What capstan itself says ("ready in N ms", from its own start). */
  says?: number;
  /** CPU time (ms) the process had used when ready: hardly skewed by other load, unlike readyMs. */
  cpuMs: number;
}

function get(url: string, ca: string, agent?: Agent): Promise<number> {
  return new Promise((resolve) => {
    const req = request(url, { ca, agent, timeout: 2000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

/** Spawns `node args`, waits for the line naming its URL, then asks `path` every 2 ms until a 200. */
async function spawnUntilReady(args: string[], urlLine: RegExp, path: string, ca: string): Promise<Started> {
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stderr!.resume();
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = urlLine.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}: ${out}`)));
  });
  while ((await get(`${url}${path}`, ca)) !== 200) {
    if (performance.now() - t0 > 60_000) throw new Error(`${url}${path} not ready in 60 s`);
    await sleep(2);
  }
  const readyMs = performance.now() - t0;
  const cpuMs = cpuMsOf(child.pid!);
  const says = /ready in (\d+) ms/.exec(out);
  return { child, url, readyMs, cpuMs, says: says ? Number(says[1]) : undefined };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

function capstanArgs(certDir: string, dataDir: string, extra: string[]): string[] {
  return [process.env['BENCH_CAPSTAN'] ?? join(here, '../src/cmd/capstan.js'), '--data-dir', dataDir, '--cert-dir', certDir, '--secure-port', '0', '--bind-address', '127.0.0.1', ...extra];
}

const CAPSTAN_URL = /serving on (https:\/\/127\.0\.0\.1:\d+)/;

interface Starts {
  ready: number[];
  says: number[];
  cpu: number[];
  /** RSS of the last start 2 s after it was ready. */
  idleRss: number;
  /** Its RSS once V8 has given back what the start grew (or REST_MAX_MS later), and when (ms after ready). */
  restingRss: number;
  restingAfterMs: number;
}

/** Samples `pid`'s RSS each second until it has fallen 5% below `from` and held for a second, or `maxMs` passed. */
async function restingRss(pid: number, from: number, maxMs: number): Promise<{ rss: number; afterMs: number }> {
  const started = performance.now();
  let last = from;
  let fallen = false;
  while (performance.now() - started < maxMs) {
    await sleep(1000);
    const rss = memoryOf(pid).rss;
    if (fallen && Math.abs(rss - last) < 0.01 * last) return { rss, afterMs: performance.now() - started };
    fallen = rss < from * 0.95;
    last = rss;
  }
  return { rss: last, afterMs: performance.now() - started };
}

/** `RUNS` starts of `args` (a fresh data folder each time unless `dataDir` is given); readiness times sorted, idle RSS of the last. */
async function starts(certDir: string, material: ServingMaterial, extra: string[], dataDir?: string): Promise<Starts> {
  const ready: number[] = [];
  const cpu: number[] = [];
  const says: number[] = [];
  let idleRss = NaN;
  let resting = { rss: NaN, afterMs: NaN };
  for (let i = 0; i < RUNS; i++) {
    const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'capstan-bench-start-'));
    const s = await spawnUntilReady(capstanArgs(certDir, dir, extra), CAPSTAN_URL, '/readyz', material.caCert);
    ready.push(s.readyMs);
    cpu.push(s.cpuMs);
    if (s.says !== undefined) says.push(s.says);
    if (i === RUNS - 1) {
      await sleep(IDLE_MS);
      idleRss = memoryOf(s.child.pid!).rss;
      resting = await restingRss(s.child.pid!, idleRss, REST_MAX_MS);
    }
    await stop(s.child);
    if (!dataDir) rmSync(dir, { recursive: true, force: true });
  }
  return { ready: ready.sort((a, b) => a - b), says: says.sort((a, b) => a - b), cpu: cpu.sort((a, b) => a - b), idleRss, restingRss: resting.rss, restingAfterMs: IDLE_MS + resting.afterMs };
}

/** Fills a SQLite data folder with `count` ConfigMaps of ~1 KiB through the API, then stops the server; their JSON's size as served (a list's bytes). */
async function fill(certDir: string, material: ServingMaterial, dataDir: string, count: number): Promise<number> {
  const s = await spawnUntilReady(capstanArgs(certDir, dataDir, []), CAPSTAN_URL, '/readyz', material.caCert);
  const agent = new Agent({ keepAlive: true, maxSockets: 32, ca: material.caCert, cert: material.adminCert, key: material.adminKey });
  let next = 0;
  const post = (i: number) => new Promise<void>((resolve, reject) => {
    const body = Buffer.from(JSON.stringify({ metadata: { name: `cm-${i}` }, data: { payload: 'x'.repeat(600) } }));
    const req = request(`${s.url}/api/v1/namespaces/default/configmaps`, { method: 'POST', agent, headers: { 'Content-Type': 'application/json', 'Content-Length': body.length } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 201 ? resolve() : reject(new Error(`create ${i}: ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
  await Promise.all(Array.from({ length: 32 }, async () => {
    while (next < count) await post(next++);
  }));
  const served = await new Promise<number>((resolve, reject) => {
    request(`${s.url}/api/v1/namespaces/default/configmaps`, { agent }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => resolve(bytes));
    }).on('error', reject).end();
  });
  agent.destroy();
  await stop(s.child);
  return served;
}

/** Spawn → exit of `node -e ''` (the least any Node process takes here), p50 of RUNS, in `env`. */
async function nodeAlone(env: NodeJS.ProcessEnv): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore', env });
    await new Promise((resolve) => child.once('exit', resolve));
    times.push(performance.now() - t0);
  }
  return quantile(times.sort((a, b) => a - b), 0.5);
}

/**
 * What Node itself takes to start here. NODE_EXTRA_CA_CERTS (set on some machines: on these, to the
 * system's whole bundle) makes every Node process parse those certificates before it runs any
 * code, which the servers below pay too; without it, a process pays for Node's own root
 * certificates when it first makes a TLS context with a CA (as a server asking for client
 * certificates does).
 */
async function nodeFloor(): Promise<void> {
  const asIs = await nodeAlone(process.env);
  const extra = process.env['NODE_EXTRA_CA_CERTS'];
  let value = `p50 ${ms(asIs)}`;
  if (extra) {
    const { NODE_EXTRA_CA_CERTS: _, ...without } = process.env;
    value += ` with NODE_EXTRA_CA_CERTS=${extra} (as this environment sets it), ${ms(await nodeAlone(without))} without`;
  }
  console.log(`node -e '' spawn → exit: ${value}`);
  figure('start', "node -e '' spawn → exit", value);
}

/**
 * One start's figures. The idle RSS target (<= 80 MB) is the empty server's (`empty` absent); a
 * server holding objects is judged by what they add over it, against their JSON (the memory
 * bench's target: <= 2x), as the same objects cost whatever the server's own size.
 */
function line(name: string, r: Starts, bare: { ready: number; cpu: number }, targetMs?: number, holding?: { empty: Starts; jsonBytes: number }): void {
  const p50 = quantile(r.ready, 0.5);
  const says = r.says.length ? `, capstan says ${quantile(r.says, 0.5)} ms` : '';
  const target = targetMs === undefined ? undefined : { text: `<= ${targetMs} ms`, met: p50 <= targetMs };
  const cpu = quantile(r.cpu, 0.5);
  const value = `p50 ${ms(p50)} min ${ms(r.ready[0]!)} (${(p50 / bare.ready).toFixed(1)}× bare ${ms(bare.ready)}${says}); CPU used by then ${ms(cpu)} (bare ${ms(bare.cpu)})`;
  console.log(`${name.padEnd(40)} ${value}${target ? `   target ${target.text}: ${status(target.met)}` : ''}`);
  figure('start', name, value, target);
  let rss = `${(r.restingRss / MB).toFixed(1)} MB at rest (${(r.restingAfterMs / 1000).toFixed(0)} s after ready); ${(r.idleRss / MB).toFixed(1)} MB 2 s after ready`;
  let rssTarget = { text: '<= 80 MB', met: r.restingRss <= 80 * MB };
  if (holding) {
    const added = r.restingRss - holding.empty.restingRss;
    const ratio = added / holding.jsonBytes;
    rss += `; +${(added / MB).toFixed(1)} MB over the empty server for ${(holding.jsonBytes / MB).toFixed(1)} MB of JSON = ${ratio.toFixed(2)}x`;
    rssTarget = { text: 'objects <= 2x their JSON', met: ratio <= 2 };
  }
  console.log(`${`idle RSS, ${name.replace('ready, ', '')}`.padEnd(40)} ${rss}   target ${rssTarget.text}: ${status(rssTarget.met)}`);
  figure('start', `idle RSS, ${name.replace('ready, ', '')}`, rss, rssTarget);
}

export async function start(): Promise<void> {
  const certDir = mkdtempSync(join(tmpdir(), 'capstan-bench-pki-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'capstan-bench-start-data-'));
  try {
    const material = await ensureServingMaterial(certDir, []);
    // The ceiling: the least a Node HTTPS server takes from spawn to its first answer here.
    const bareTimes: number[] = [];
    const bareCpu: number[] = [];
    let bareRss = NaN;
    for (let i = 0; i < RUNS; i++) {
      const s = await spawnUntilReady([join(here, 'bare-https-server.js'), join(certDir, CERT_FILES.serverCert), join(certDir, CERT_FILES.serverKey)], /at (https:\/\/127\.0\.0\.1:\d+)/, '/', material.caCert).catch(() => undefined);
      if (!s) throw new Error('bare server did not start');
      bareTimes.push(s.readyMs);
      bareCpu.push(s.cpuMs);
      bareRss = memoryOf(s.child.pid!).rss;
      await stop(s.child);
    }
    bareTimes.sort((a, b) => a - b);
    const bare = { ready: quantile(bareTimes, 0.5), cpu: quantile(bareCpu.sort((a, b) => a - b), 0.5) };
    console.log(`\n== start: spawn → first /readyz 200 over HTTPS (certificates already in --cert-dir), ${RUNS} starts each; a bare node:https server spawn → first answer p50 ${ms(bare.ready)} (CPU ${ms(bare.cpu)}), RSS ${(bareRss / MB).toFixed(1)} MB`);
    figure('start', 'bare node:https spawn → first answer', `p50 ${ms(bare.ready)}, CPU ${ms(bare.cpu)}, RSS ${(bareRss / MB).toFixed(1)} MB`);
    await nodeFloor();
    const empty = await starts(certDir, material, ['--storage', 'memory']);
    line('ready, --storage memory', empty, bare, 100);
    const filled = performance.now();
    const jsonBytes = await fill(certDir, material, dataDir, OBJECTS);
    console.log(`(SQLite folder of ${OBJECTS} ConfigMaps of ~1 KiB filled in ${((performance.now() - filled) / 1000).toFixed(1)} s)`);
    line(`ready, SQLite with ${OBJECTS} objects`, await starts(certDir, material, [], dataDir), bare, 200, { empty, jsonBytes });
  } finally {
    rmSync(certDir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
}
