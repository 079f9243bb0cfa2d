// npm run bench: CRUD throughput and latency of capstan (SQLite store, durable writes) with 32
// concurrent keep-alive clients, next to a bare node:http server measured in the same run.
import autocannon, { type Result } from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const CONNECTIONS = 32;
const DURATION = Number(process.env['BENCH_SECONDS'] ?? 5);

function start(args: string[], ready: RegExp): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = ready.exec(out);
      if (m) resolve({ child, match: m });
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}

function run(opts: autocannon.Options): Promise<Result> {
  return new Promise((resolve, reject) => {
    autocannon({ connections: CONNECTIONS, ...(opts.amount ? {} : { duration: DURATION }), ...opts }, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

function line(name: string, r: Result, baseline?: Result): string {
  const ratio = baseline ? `  ${((r.requests.average / baseline.requests.average) * 100).toFixed(0)}% of bare` : '';
  const errors = r.non2xx + r.errors ? `  (non-2xx ${r.non2xx}, errors ${r.errors})` : '';
  return `${name.padEnd(8)} ${r.requests.average.toFixed(0).padStart(7)} req/s  p50 ${String(r.latency.p50).padStart(3)} ms  p99 ${String(r.latency.p99).padStart(3)} ms${ratio}${errors}`;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-bench-'));
  const bare = await start([join(here, 'bare-server.js')], /listening (\d+)/);
  const capstan = await start([join(here, '../src/cmd/capstan.js'), '--data-dir', dir, '--secure-port', '0'], /serving on (http:\/\/[^ ]+)/);
  const base = capstan.match[1]!;
  const ns = `${base}/api/v1/namespaces/default/configmaps`;
  try {
    const bareResult = await run({ url: `http://127.0.0.1:${bare.match[1]}/` });
    // One small object to read.
    await fetch(ns, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'bench-get' }, data: { k: 'v' } }) });
    const get = await run({ url: `${ns}/bench-get` });
    let created = 0;
    const create = await run({
      url: ns,
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      requests: [{ setupRequest: (req) => ({ ...req, body: JSON.stringify({ metadata: { name: `c-${created++}` }, data: { k: 'v'.repeat(200) } }) }) }],
    });
    let updated = 0;
    const update = await run({
      url: ns,
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      requests: [{
        setupRequest: (req) => {
          const name = `c-${updated++ % Math.max(1, created)}`;
          return { ...req, path: `${new URL(ns).pathname}/${name}`, body: JSON.stringify({ metadata: { name }, data: { k: `u${updated}` } }) };
        },
      }],
    });
    let deleted = 0;
    const remove = await run({
      url: ns,
      method: 'DELETE',
      amount: Math.max(CONNECTIONS, created),
      requests: [{ setupRequest: (req) => ({ ...req, path: `${new URL(ns).pathname}/c-${deleted++}` }) }],
    });
    console.log(`capstan CRUD, ${CONNECTIONS} keep-alive connections, ${DURATION} s each (SQLite, fsync per group commit)`);
    console.log(line('bare', bareResult));
    console.log(line('get', get, bareResult));
    console.log(line('create', create, bareResult));
    console.log(line('update', update, bareResult));
    console.log(line('delete', remove, bareResult));
    console.log(`targets: get >= 50% of bare: ${get.requests.average >= bareResult.requests.average / 2 ? 'met' : 'MISSED'}; creates >= 3000/s: ${create.requests.average >= 3000 ? 'met' : 'MISSED'}`);
  } finally {
    bare.child.kill();
    capstan.child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
