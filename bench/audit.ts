// The cost of audit logging: GET throughput of one small ConfigMap with every request audited at
// Metadata level to a log file (all stages; and without RequestReceived, as many policies have
// it), against the same server without an audit policy. The servers run at once and the rounds
// rotate among them, so that other load on the machine falls on all alike.
import autocannon, { type Result } from 'autocannon';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuMsOf, figure, startCapstan, status, type Capstan } from './common.js';

const CONNECTIONS = 32;
const ROUNDS = Number(process.env['BENCH_AUDIT_ROUNDS'] ?? 4);
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 3);
const TARGET_COST = 0.10;

const POLICY = 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n';
const POLICY_WITHOUT_RECEIVED = 'apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: Metadata\n';

type Variant = 'off' | 'metadata' | 'metadata, no RequestReceived';
const VARIANTS: Variant[] = ['off', 'metadata', 'metadata, no RequestReceived'];

function run(url: string): Promise<Result> {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: CONNECTIONS, duration: SECONDS }, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

async function seed(base: string): Promise<string> {
  const ns = `${base}/api/v1/namespaces/default/configmaps`;
  await fetch(ns, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'bench-get' }, data: { k: 'v' } }) });
  return `${ns}/bench-get`;
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
    let errors = 0;
    console.log(`\n== audit: GET of one ConfigMap, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s per server, rotating (audit at Metadata to a file vs no policy)`);
    for (let round = 0; round < ROUNDS; round++) {
      const order = VARIANTS.map((_, i) => VARIANTS[(i + round) % VARIANTS.length]!);
      const line: string[] = [];
      for (const v of order) {
        const before = cpuMsOf(servers[v].pid);
        const r = await run(urls[v]);
        cpu[v].ms += cpuMsOf(servers[v].pid) - before;
        cpu[v].requests += r.requests.total;
        totals[v] += r.requests.average;
        errors += r.non2xx + r.errors;
        line.push(`${v} ${r.requests.average.toFixed(0)}/s`);
      }
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
      const cost = 1 - rate(v) / rate('off');
      const cpuCost = usPerRequest(v) / usPerRequest('off') - 1;
      const met = cost <= TARGET_COST && errors === 0;
      console.log(`audit ${v}: ${rate(v).toFixed(0)} req/s vs ${rate('off').toFixed(0)} off: cost ${(cost * 100).toFixed(1)}% (target <= ${TARGET_COST * 100}%: ${status(met)}); CPU ${usPerRequest(v).toFixed(1)} vs ${usPerRequest('off').toFixed(1)} µs/request: ${(cpuCost * 100).toFixed(1)}%; ${lines} events, ${(files.reduce((sum, f) => sum + statSync(f).size, 0) / 1e6).toFixed(1)} MB in ${files.length} file(s)`);
      figure('audit', `GET, audit ${v}`, `${rate(v).toFixed(0)} req/s = ${(cost * 100).toFixed(1)}% cost; CPU/request +${(cpuCost * 100).toFixed(1)}%`, v === 'metadata' ? { text: `<= ${TARGET_COST * 100}% cost`, met } : undefined);
    }
  } finally {
    for (const v of VARIANTS) await servers[v]?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
