// The cost of audit logging: GET throughput of one small ConfigMap with every request audited at
// Metadata level to a log file, against the same server without an audit policy. Both run at
// once; the rounds alternate between them so that other load on the machine falls on both alike.
import autocannon, { type Result } from 'autocannon';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { figure, startCapstan, status } from './common.js';

const CONNECTIONS = 32;
const ROUNDS = Number(process.env['BENCH_AUDIT_ROUNDS'] ?? 4);
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 3);
const TARGET_COST = 0.10;

const POLICY = 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n';

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
  const policyDir = mkdtempSync(join(tmpdir(), 'capstan-bench-audit-'));
  const off = await startCapstan();
  writeFileSync(join(policyDir, 'audit-policy.yaml'), POLICY);
  const log = join(policyDir, 'audit.log');
  const on = await startCapstan(['--audit-policy-file', join(policyDir, 'audit-policy.yaml'), '--audit-log-path', log]);
  try {
    const urls = { off: await seed(off.url), on: await seed(on.url) };
    const totals = { off: 0, on: 0 };
    const errors = { off: 0, on: 0 };
    console.log(`\n== audit: GET of one ConfigMap, ${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${SECONDS} s (audit at Metadata to a file vs no policy)`);
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which goes first, too.
      const order: Array<'off' | 'on'> = round % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
      const line: string[] = [];
      for (const which of order) {
        const r = await run(urls[which]);
        totals[which] += r.requests.average;
        errors[which] += r.non2xx + r.errors;
        line.push(`${which} ${r.requests.average.toFixed(0)} req/s (p99 ${r.latency.p99} ms)`);
      }
      console.log(`round ${round + 1}: ${line.join(', ')}`);
    }
    const offRate = totals.off / ROUNDS;
    const onRate = totals.on / ROUNDS;
    const cost = 1 - onRate / offRate;
    // Stopping the server writes what it still holds.
    await on.stop();
    const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean).length;
    const met = cost <= TARGET_COST && errors.on + errors.off === 0;
    console.log(`audit off ${offRate.toFixed(0)} req/s, at Metadata ${onRate.toFixed(0)} req/s: cost ${(cost * 100).toFixed(1)}% (target <= ${TARGET_COST * 100}%: ${status(met)}); ${lines} events (2 per request), ${(statSync(log).size / 1e6).toFixed(1)} MB written`);
    figure('audit', 'GET, audit off', `${offRate.toFixed(0)} req/s`);
    figure('audit', 'GET, audit at Metadata', `${onRate.toFixed(0)} req/s = ${(cost * 100).toFixed(1)}% cost`, { text: `<= ${TARGET_COST * 100}% cost`, met });
  } finally {
    await on.stop();
    await off.stop();
    rmSync(policyDir, { recursive: true, force: true });
  }
}
