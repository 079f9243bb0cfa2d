// capstan as a test environment (issue 17). Servers run in the shared host (one process per user
// and build) unless said otherwise.
// 1. startCapstan(): from the call to the first successful request: with no host running yet, in
//    a test process that has not loaded capstan (the first start of a test file), and later in
//    the same process. Target <= 150 ms. Baseline: a bare node:http process, spawn to first answer.
// 2. The envtest drop-in: `kube-apiserver` (from `capstan envtest-assets`) with envtest's argv,
//    spawn to /healthz 200; memory per idle server: the launcher's RSS plus its share of the host
//    (20 servers). Target <= 80 MB. Baseline: the bare process's RSS. Also the RSS one more idle
//    server adds inside a test process (startCapstan({ process: 'same' }), ten in one).
// 3. 20 at once: 20 startCapstan(); 20 kube-apiserver; target all ready <= 3 s. And 20 whole
//    envtest environments (etcd stand-in, then kube-apiserver: 40 Node processes), no target.
// 4. reset() after what a test leaves (a namespace, 40 ConfigMaps, 5 Services, a CRD) on a server
//    seeded with 10 CRDs: target <= 50 ms (median of 20).
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureServingMaterial } from '../src/server/certs.js';
import { writeEnvtestAssets } from '../src/cmd/envtest-assets.js';
import { figure, here, memoryOf, message, mib, ms, quantile, sleep, startNode, status } from './common.js';
import { freePort } from '../test/storage/etcd-process.js';

const START_TARGET_MS = 150;
const RSS_TARGET = 80 * 1024 * 1024;
const PARALLEL = 20;
const PARALLEL_TARGET_MS = 3000;
const RESET_TARGET_MS = 50;
const repo = join(here, '..', '..');

function median(values: number[]): number {
  return quantile([...values].sort((a, b) => a - b), 0.5);
}

/** The status of one GET (TLS unverified, as envtest's probe), 0 when nothing answers. */
function probe(url: string): Promise<number> {
  return new Promise((resolve) => {
    const get = url.startsWith('https:') ? httpsGet : httpGet;
    get(url, { rejectUnauthorized: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on('error', () => resolve(0));
  });
}

/** Polls every 25 ms until `url` answers 200; resolves with the time it did. */
async function until200(url: string, limitMs = 30_000): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < limitMs) {
    if ((await probe(url)) === 200) return performance.now();
    await sleep(25);
  }
  throw new Error(`${url} did not answer 200 in ${limitMs} ms`);
}

function worker<T>(args: string[]): Promise<T> {
  const child = fork(join(here, 'test-env-worker.js'), args, { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  return message<T>(child).finally(() => child.kill());
}

interface Environment {
  etcd: ChildProcess;
  apiserver: ChildProcess;
  /** When the etcd was spawned, and when the kube-apiserver answered /healthz. */
  spawnedAt: number;
  etcdReadyAt: number;
  readyAt: number;
}

/** The etcd and kube-apiserver processes running: killed when the bench ends, failed or not (they are detached, as envtest's). */
const running = new Set<ChildProcess>();

/** `child`, counted among the running until it exits. */
function tracked(child: ChildProcess): ChildProcess {
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

/** An envtest environment as envtest starts one: etcd, then kube-apiserver with its argv. */
async function environment(assets: string, certs: string): Promise<Environment> {
  const [etcdPort, peerPort, port] = [await freePort(), await freePort(), await freePort()];
  const etcdUrl = `http://127.0.0.1:${etcdPort}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'k8s_test_framework_'));
  const spawnedAt = performance.now();
  const etcd = tracked(spawn(join(assets, 'etcd'), [`--advertise-client-urls=${etcdUrl}`, `--data-dir=${dataDir}`, `--listen-client-urls=${etcdUrl}`, `--listen-peer-urls=http://127.0.0.1:${peerPort}`, '--unsafe-no-fsync=true'], { stdio: 'ignore', detached: true }));
  const etcdReadyAt = await until200(`${etcdUrl}/health`);
  const apiserver = tracked(spawn(join(assets, 'kube-apiserver'), [
    '--allow-privileged=true', '--authorization-mode=RBAC', '--bind-address=127.0.0.1', `--cert-dir=${certs}`, `--client-ca-file=${certs}/client-cert-auth-ca.crt`,
    '--disable-admission-plugins=ServiceAccount', `--etcd-servers=${etcdUrl}`, `--secure-port=${port}`, `--service-account-issuer=https://127.0.0.1:${port}/`,
    `--service-account-key-file=${certs}/sa-signer.crt`, `--service-account-signing-key-file=${certs}/sa-signer.key`, '--service-cluster-ip-range=10.0.0.0/24',
  ], { stdio: 'ignore', detached: true }));
  const readyAt = await until200(`https://127.0.0.1:${port}/healthz`);
  rmSync(dataDir, { recursive: true, force: true });
  return { etcd, apiserver, spawnedAt, etcdReadyAt, readyAt };
}

async function stopEnvironment(e: Environment): Promise<void> {
  for (const p of [e.apiserver, e.etcd]) {
    const exited = new Promise((resolve) => p.once('exit', resolve));
    p.kill('SIGTERM');
    await exited;
  }
}

export async function testEnv(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'capstan-bench-testenv-'));
  try {
    // Baseline: a bare node:http server process, spawn to first answer, and its RSS.
    const bareTimes: number[] = [];
    let bareRss = 0;
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      const bare = await startNode([join(here, 'bare-server.js')], /listening (\d+)/);
      await until200(`http://127.0.0.1:${bare.match[1]}/`);
      bareTimes.push(performance.now() - t);
      await sleep(200);
      bareRss = memoryOf(bare.child.pid!).rss;
      bare.child.kill();
    }
    const bareMs = median(bareTimes);
    figure('test-env', 'baseline: bare node:http process, spawn to first answer', `${ms(bareMs)} (median of 5); idle RSS ${mib(bareRss)}`);

    // 1. startCapstan: with no host running (the first start after a minute of no test servers),
    // then with the host running (every other), and in a process that already started one.
    await worker(['stop-host']);
    const cold = await worker<{ first: number; firstFromImport: number; warm: number[] }>(['starts']);
    const runs = [] as Array<{ first: number; firstFromImport: number; warm: number[] }>;
    for (let i = 0; i < 3; i++) runs.push(await worker(['starts']));
    const first = median(runs.map((r) => r.first));
    const fromImport = median(runs.map((r) => r.firstFromImport));
    const warm = median(runs.flatMap((r) => r.warm));
    figure('test-env', 'startCapstan() to first request, no host running yet', `${ms(cold.first)} (the host starts and loads capstan: once per minute of test runs)`);
    figure('test-env', 'startCapstan() to first request, first in a test process', `${ms(first)} median of 3 (${ms(fromImport)} with importing capstan; + node's own start, the baseline ${ms(bareMs)})`, { text: `<= ${START_TARGET_MS} ms`, met: first <= START_TARGET_MS });
    figure('test-env', 'startCapstan() to first request, later in the process', `${ms(warm)} median of 30 (${(warm / bareMs).toFixed(2)}x the bare process start)`, { text: `<= ${START_TARGET_MS} ms`, met: warm <= START_TARGET_MS });

    // 2. The envtest drop-in, one environment.
    const assets = join(work, 'assets');
    writeEnvtestAssets(assets);
    const certs = join(work, 'certs');
    const [serving, signer, clients] = await Promise.all(['serving', 'signer', 'clients'].map((n) => ensureServingMaterial(join(work, n), [])));
    mkdirSync(certs, { recursive: true });
    writeFileSync(join(certs, 'apiserver.crt'), serving!.serverCert);
    writeFileSync(join(certs, 'apiserver.key'), serving!.serverKey);
    writeFileSync(join(certs, 'sa-signer.crt'), signer!.caCert);
    writeFileSync(join(certs, 'sa-signer.key'), signer!.caKey);
    writeFileSync(join(certs, 'client-cert-auth-ca.crt'), clients!.caCert);
    const singles: Environment[] = [];
    for (let i = 0; i < 3; i++) {
      const e = await environment(assets, certs);
      singles.push(e);
      if (i < 2) await stopEnvironment(e);
    }
    const apiserverMs = median(singles.map((e) => e.readyAt - e.etcdReadyAt));
    const etcdMs = median(singles.map((e) => e.etcdReadyAt - e.spawnedAt));
    figure('test-env', 'envtest kube-apiserver: spawn to /healthz 200', `${ms(apiserverMs)} median of 3 (${(apiserverMs / bareMs).toFixed(1)}x the bare process; the reference with etcd: 5-15 s); etcd stand-in ${ms(etcdMs)}`);
    await sleep(2000);
    const idle = singles[2]!;
    // The launcher is a shell that execs node: the pid is node's. Its server lives in the host.
    const launcherRss = memoryOf(idle.apiserver.pid!).rss;
    await stopEnvironment(idle);
    const host = await worker<{ one: number; twenty: number }>(['host-idle']);
    const hostShare = host.twenty / 20;
    figure('test-env', 'envtest kube-apiserver: launcher RSS + its share of the host (20 servers)', `${mib(launcherRss + hostShare)} = launcher ${mib(launcherRss)} (${(launcherRss / bareRss).toFixed(1)}x the bare process) + host ${mib(host.twenty)} / 20 (host with one server: ${mib(host.one)}, each more: ${mib((host.twenty - host.one) / 19)})`, { text: '<= 80 MB', met: launcherRss + hostShare <= RSS_TARGET });
    const inProcess = await worker<{ one: number; ten: number }>(['idle']);
    figure('test-env', 'startCapstan({ process: same }): RSS each more idle server adds', `${mib((inProcess.ten - inProcess.one) / 9)} (one server: process ${mib(inProcess.one)}, ten: ${mib(inProcess.ten)})`, { text: '<= 80 MB', met: (inProcess.ten - inProcess.one) / 9 <= RSS_TARGET });

    // 3. Twenty at once.
    const t = performance.now();
    const many = await Promise.all(Array.from({ length: PARALLEL }, () => environment(assets, certs)));
    const allMs = Math.max(...many.map((e) => e.readyAt)) - t;
    await sleep(1000);
    const rssEach = many.map((e) => memoryOf(e.apiserver.pid!).rss);
    await Promise.all(many.map(stopEnvironment));
    // envtest spawns 2 Node processes per environment; Node's own start costs about 0.11 s of CPU.
    figure('test-env', `${PARALLEL} envtest environments at once (${2 * PARALLEL} processes), all ready`, `${ms(allMs)} (launcher RSS each: median ${mib(median(rssEach))}; Node's own start alone, ${2 * PARALLEL} times on ${cpus().length} cores, is about ${ms((2 * PARALLEL * 110) / cpus().length)})`);
    // What 20 processes cost here at all: 20 bare Node processes (load node:http and node:net, exit) at once.
    const t0 = performance.now();
    await Promise.all(Array.from({ length: PARALLEL }, () => new Promise((resolve) => spawn(process.execPath, ['-e', "require('node:http'); require('node:net')"], { stdio: 'ignore' }).once('exit', resolve))));
    const bareProcessesMs = performance.now() - t0;
    figure('test-env', `baseline: ${PARALLEL} bare Node processes at once, started and ended`, ms(bareProcessesMs));
    const launchers = await Promise.all(Array.from({ length: PARALLEL }, () => freePort()));
    const t2 = performance.now();
    const children = launchers.map((port) => tracked(spawn(join(assets, 'kube-apiserver'), [`--secure-port=${port}`, '--allow-privileged=true'], { stdio: 'ignore' })));
    await Promise.all(launchers.map((port) => until200(`https://127.0.0.1:${port}/healthz`)));
    const launchersMs = performance.now() - t2;
    await Promise.all(children.map((c) => new Promise((resolve) => {
      c.once('exit', resolve);
      c.kill('SIGTERM');
    })));
    figure('test-env', `${PARALLEL} kube-apiserver at once (no etcd), all ready`, `${ms(launchersMs)} (${(launchersMs / bareProcessesMs).toFixed(1)}x ${PARALLEL} bare Node processes)`, { text: `<= ${PARALLEL_TARGET_MS} ms`, met: launchersMs <= PARALLEL_TARGET_MS });
    const parallel = await worker<{ ms: number }>(['parallel', String(PARALLEL), 'host']);
    figure('test-env', `${PARALLEL} startCapstan() at once, all ready`, ms(parallel.ms), { text: `<= ${PARALLEL_TARGET_MS} ms`, met: parallel.ms <= PARALLEL_TARGET_MS });

    // 4. Reset.
    const reset = await worker<{ timings: number[] }>(['reset', join(repo, 'test', 'fixtures', 'crds')]);
    const resetMs = median(reset.timings);
    figure('test-env', 'reset() after a test (ns, 40 ConfigMaps, 5 Services, a CRD)', `${ms(resetMs)} median of 20, max ${ms(Math.max(...reset.timings))}`, { text: `<= ${RESET_TARGET_MS} ms`, met: resetMs <= RESET_TARGET_MS });
    console.log(`test-env: start ${ms(first)} first in a process / ${ms(warm)} later; kube-apiserver ${ms(apiserverMs)}; ${PARALLEL} at once ${ms(parallel.ms)}; reset ${ms(resetMs)} (${status(resetMs <= RESET_TARGET_MS)})`);
  } finally {
    for (const child of running) child.kill('SIGKILL');
    rmSync(work, { recursive: true, force: true });
  }
}
