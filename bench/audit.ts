// The cost of audit logging: GET throughput of one small ConfigMap with every request audited at
// Metadata level to a log file (all stages; and without RequestReceived, as many policies have
// it), against the same server without an audit policy. The servers run at once and the rounds
// rotate among them, so that other load on the machine falls on all alike. The cost is judged on
// the server's CPU per request (from /proc, all its threads), as on-off.ts judges metrics and APF:
// throughput on a 2-core machine shared with the client and other work scatters by ±30% from
// round to round; it is printed beside it. Where the cost goes is printed by thread and mode (the
// main thread's user and kernel time, the other threads': libuv's pool writes the log).
import autocannon, { type Result } from 'autocannon';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { addThreadCpu, cpuMsOf, figure, noThreadCpu, startCapstan, status, THREAD_PARTS, threadCpuMs, type Capstan, type ThreadCpu } from './common.js';
import { Auditor } from '../src/audit/auditor.js';
import { LogBackend } from '../src/audit/log-backend.js';
import { parsePolicy, PolicyEvaluator } from '../src/audit/policy.js';
import { auditOf } from '../src/audit/record.js';
import { audit as auditFilter, auditId } from '../src/server/filters/audit.js';
import { RequestContext } from '../src/server/filters/context.js';
import { addAnswerHeader, AnswerResponse } from '../src/endpoints/response.js';

const CONNECTIONS = 32;
// A multiple of the variants' count, so that each goes first, second and last as often as the others.
const ROUNDS = Number(process.env['BENCH_AUDIT_ROUNDS'] ?? 6);
const SECONDS = Number(process.env['BENCH_AUDIT_SECONDS'] ?? process.env['BENCH_SECONDS'] ?? 2);
const TARGET_COST = 0.10;

const POLICY = 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n';
const POLICY_WITHOUT_RECEIVED = 'apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: Metadata\n';

type Variant = 'off' | 'metadata' | 'metadata, no RequestReceived';
const VARIANTS: Variant[] = ['off', 'metadata', 'metadata, no RequestReceived'];

/** BENCH_AUDIT_RATE=<requests per second>: every server offered the same load (as on-off.ts), not as much as it takes. */
const RATE = Number(process.env['BENCH_AUDIT_RATE'] ?? 0);

function run(url: string): Promise<Result> {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: CONNECTIONS, duration: SECONDS, ...(RATE > 0 ? { overallRate: RATE } : {}) }, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

async function seed(base: string): Promise<string> {
  const ns = `${base}/api/v1/namespaces/default/configmaps`;
  await fetch(ns, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'bench-get' }, data: { k: 'v' } }) });
  return `${ns}/bench-get`;
}

/**
 * The audit work of one GET at Metadata level, timed in this process without the server around it:
 * the audit ID and audit filters, the authorizer's annotations, both events built and encoded into
 * the log's queue (written to /dev/null), beside the same request with only its Audit-Id header set
 * (what a server without a policy does), in CPU time. A figure the machine's other load barely moves.
 */
export async function directAuditWorkUs(): Promise<number> {
  const backend = new LogBackend({ path: '/dev/null', format: 'json', maxSizeMb: 0, maxBackups: 0, maxAgeDays: 0, compress: false, bufferSize: 1_000_000, maxBatchSize: 1 });
  await backend.open();
  const auditor = new Auditor(new PolicyEvaluator(parsePolicy(POLICY)), backend, false);
  const outer = auditId(auditor);
  const inner = auditFilter(auditor);
  const info = { isResourceRequest: true as const, path: '/api/v1/namespaces/default/configmaps/bench-get', verb: 'get', apiPrefix: 'api' as const, apiGroup: '', apiVersion: 'v1', namespace: 'default', resource: 'configmaps', name: 'bench-get', parts: ['configmaps', 'bench-get'] };
  const user = { name: 'system:anonymous', groups: ['system:unauthenticated'] };
  const socket = new Socket();
  Object.defineProperty(socket, 'remoteAddress', { value: '127.0.0.1' });
  const handler = (ctx: RequestContext): Promise<void> => {
    const record = auditOf(ctx.res);
    record?.annotate('authorization.k8s.io/decision', 'allow');
    record?.annotate('authorization.k8s.io/reason', '');
    ctx.res.end();
    return Promise.resolve();
  };
  const context = (): RequestContext => {
    const req = new IncomingMessage(socket);
    // HTTP/1.1, as the server's requests here (a connection's state is kept on its socket).
    req.httpVersionMajor = 1;
    req.httpVersionMinor = 1;
    req.url = info.path;
    req.headers = { 'user-agent': 'autocannon' };
    const ctx = new RequestContext(req, new AnswerResponse(req));
    ctx.info = info;
    // A user object of its own, as every authenticator hands out per request (one shared object
    // hid the cost of writing the user into the event: its cache by object always hit).
    ctx.user = { ...user, groups: [...user.groups] };
    return ctx;
  };
  const audited = async () => {
    const ctx = context();
    await outer(ctx, () => inner(ctx, () => handler(ctx)));
  };
  const plain = async () => {
    const ctx = context();
    addAnswerHeader(ctx.res, 'Audit-Id', '00000000-0000-0000-0000-000000000000');
    await handler(ctx);
  };
  // CPU time of the whole process (the log is written by libuv's threads), not the wall clock,
  // which other processes on a shared machine stretch.
  const time = async (f: () => Promise<void>) => {
    const n = 100_000;
    const before = process.cpuUsage();
    // A turn of the event loop now and then, so that the log's queue is written as in a server.
    for (let i = 0; i < n; i++) {
      await f();
      if (i % 64 === 0) await new Promise((r) => setImmediate(r));
    }
    const used = process.cpuUsage(before);
    return (used.user + used.system) / n;
  };
  await time(audited);
  await time(plain);
  const us = (await time(audited)) - (await time(plain));
  await auditor.close();
  return us;
}

export async function audit(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-bench-audit-'));
  writeFileSync(join(dir, 'all.yaml'), POLICY);
  writeFileSync(join(dir, 'omit.yaml'), POLICY_WITHOUT_RECEIVED);
  const logs: Record<Variant, string | undefined> = { off: undefined, metadata: join(dir, 'all.log'), 'metadata, no RequestReceived': join(dir, 'omit.log') };
  const servers = {} as Record<Variant, Capstan>;
  try {
    servers.off = await startCapstan();
    servers.metadata = await startCapstan(['--audit-policy-file', join(dir, 'all.yaml'), '--audit-log-path', logs.metadata!]);
    servers['metadata, no RequestReceived'] = await startCapstan(['--audit-policy-file', join(dir, 'omit.yaml'), '--audit-log-path', logs['metadata, no RequestReceived']!]);
    const urls = {} as Record<Variant, string>;
    for (const v of VARIANTS) urls[v] = await seed(servers[v].url);
    const totals: Record<Variant, number> = { off: 0, metadata: 0, 'metadata, no RequestReceived': 0 };
    // The server's CPU (all its threads: the log is written by libuv's) per request: the figure
    // other load on a shared machine skews least.
    const cpu: Record<Variant, { ms: number; requests: number }> = { off: { ms: 0, requests: 0 }, metadata: { ms: 0, requests: 0 }, 'metadata, no RequestReceived': { ms: 0, requests: 0 } };
    // The same by thread and mode: where an audited request's CPU goes.
    const parts = Object.fromEntries(VARIANTS.map((v) => [v, noThreadCpu()])) as Record<Variant, ThreadCpu>;
    // Each round's CPU per request of every variant, for the per-round ratios to `off`.
    const perRound: Array<Record<Variant, number>> = [];
    let errors = 0;
    // One warm-up each, not counted (the first seconds of a server are its code being compiled).
    for (const v of VARIANTS) await run(urls[v]);
    console.log(`\n== audit: GET of one ConfigMap, ${CONNECTIONS} connections${RATE > 0 ? ` offering ${RATE} req/s` : ''}, ${ROUNDS} rounds of ${SECONDS} s per server, rotating (audit at Metadata to a file vs no policy)`);
    for (let round = 0; round < ROUNDS; round++) {
      const order = VARIANTS.map((_, i) => VARIANTS[(i + round) % VARIANTS.length]!);
      const line: string[] = [];
      const us = {} as Record<Variant, number>;
      for (const v of order) {
        const before = cpuMsOf(servers[v].pid);
        const threadsBefore = threadCpuMs(servers[v].pid);
        const r = await run(urls[v]);
        const used = cpuMsOf(servers[v].pid) - before;
        addThreadCpu(parts[v], threadsBefore, threadCpuMs(servers[v].pid));
        cpu[v].ms += used;
        cpu[v].requests += r.requests.total;
        us[v] = (used * 1000) / r.requests.total;
        totals[v] += r.requests.average;
        errors += r.non2xx + r.errors;
        line.push(`${v} ${r.requests.average.toFixed(0)}/s ${us[v].toFixed(1)} µs`);
      }
      perRound.push(us);
      console.log(`round ${round + 1}: ${line.join(', ')}`);
    }
    const rate = (v: Variant) => totals[v] / ROUNDS;
    const usPerRequest = (v: Variant) => (cpu[v].ms * 1000) / cpu[v].requests;
    figure('audit', 'GET, audit off', `${rate('off').toFixed(0)} req/s, ${usPerRequest('off').toFixed(1)} µs CPU/request`);
    for (const v of VARIANTS.slice(1)) {
      // Stopping the server writes what it still holds.
      await servers[v].stop();
      // Past 100 MB the log has rotated: its backups count too.
      const files = readdirSync(dir).filter((n) => n.startsWith(v === 'metadata' ? 'all' : 'omit') && n.endsWith('.log')).map((n) => join(dir, n));
      const lines = files.reduce((sum, f) => sum + readFileSync(f, 'utf8').split('\n').filter(Boolean).length, 0);
      const throughputCost = 1 - rate(v) / rate('off');
      const cpuCost = usPerRequest(v) / usPerRequest('off') - 1;
      const ratios = perRound.map((r) => r[v] / r.off - 1).sort((a, b) => a - b);
      const median = (ratios[Math.floor((ratios.length - 1) / 2)]! + ratios[Math.ceil((ratios.length - 1) / 2)]!) / 2;
      const met = cpuCost <= TARGET_COST && errors === 0;
      console.log(`audit ${v}: CPU ${usPerRequest(v).toFixed(1)} vs ${usPerRequest('off').toFixed(1)} µs/request: cost ${(cpuCost * 100).toFixed(1)}% (per round ${ratios.map((x) => `${(x * 100).toFixed(1)}%`).join(', ')}; median ${(median * 100).toFixed(1)}%) (target <= ${TARGET_COST * 100}%: ${status(met)}); ${rate(v).toFixed(0)} req/s vs ${rate('off').toFixed(0)} off: throughput −${(throughputCost * 100).toFixed(1)}%; ${lines} events, ${(files.reduce((sum, f) => sum + statSync(f).size, 0) / 1e6).toFixed(1)} MB in ${files.length} file(s)`);
      figure('audit', `GET, audit ${v}`, `CPU/request +${(cpuCost * 100).toFixed(1)}% (median of rounds ${(median * 100).toFixed(1)}%); ${rate(v).toFixed(0)} req/s = throughput −${(throughputCost * 100).toFixed(1)}%`, v === 'metadata' ? { text: `<= ${TARGET_COST * 100}% CPU/request`, met } : undefined);
    }
    const split = (v: Variant) => THREAD_PARTS.map((k) => (parts[v][k] * 1000) / cpu[v].requests);
    for (const v of VARIANTS) {
      const [mu, mk, ou, ok] = split(v);
      const [bmu, bmk, bou, bok] = split('off');
      const delta = v === 'off' ? '' : ` (${[mu! - bmu!, mk! - bmk!, ou! - bou!, ok! - bok!].map((d) => `${d >= 0 ? '+' : ''}${d.toFixed(2)}`).join(', ')} vs off)`;
      console.log(`audit ${v}: µs/request by thread: main user ${mu!.toFixed(2)}, main kernel ${mk!.toFixed(2)}, other threads user ${ou!.toFixed(2)}, kernel ${ok!.toFixed(2)}${delta}`);
    }
    const directUs = await directAuditWorkUs();
    const directShare = directUs / usPerRequest('off');
    console.log(`audit work of one GET at Metadata, timed directly: ${directUs.toFixed(2)} µs = ${(directShare * 100).toFixed(1)}% of the CPU of a GET with audit off (${usPerRequest('off').toFixed(1)} µs)`);
    figure('audit', 'audit work per GET at Metadata (direct)', `${directUs.toFixed(2)} µs = ${(directShare * 100).toFixed(1)}% of a GET's CPU`);
  } finally {
    for (const v of VARIANTS) await servers[v]?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
