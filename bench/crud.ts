// CRUD throughput and latency of capstan (SQLite store, durable writes) with 32 concurrent
// keep-alive clients (autocannon), next to a bare node:http server measured in the same run.
import autocannon, { type Result } from 'autocannon';
import { join } from 'node:path';
import { configMapCreates, figure, here, startCapstan, startNode, status } from './common.js';

const CONNECTIONS = 32;
const DURATION = Number(process.env['BENCH_SECONDS'] ?? 5);

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

export async function crud(): Promise<void> {
  const bare = await startNode([join(here, 'bare-server.js')], /listening (\d+)/);
  const capstan = await startCapstan();
  const ns = `${capstan.url}/api/v1/namespaces/default/configmaps`;
  try {
    const bareResult = await run({ url: `http://127.0.0.1:${bare.match[1]}/` });
    // One small object to read.
    await fetch(ns, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'bench-get' }, data: { k: 'v' } }) });
    const get = await run({ url: `${ns}/bench-get` });
    const creates = configMapCreates(ns);
    const create = await run(creates.options);
    let updated = 0;
    const update = await run({
      url: ns,
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      requests: [{
        setupRequest: (req) => {
          const name = `c-${updated++ % Math.max(1, creates.created())}`;
          return { ...req, path: `${new URL(ns).pathname}/${name}`, body: JSON.stringify({ metadata: { name }, data: { k: `u${updated}` } }) };
        },
      }],
    });
    let deleted = 0;
    const remove = await run({
      url: ns,
      method: 'DELETE',
      amount: Math.max(CONNECTIONS, creates.created()),
      requests: [{ setupRequest: (req) => ({ ...req, path: `${new URL(ns).pathname}/c-${deleted++}` }) }],
    });
    console.log(`\n== crud: ${CONNECTIONS} keep-alive connections, ${DURATION} s each (SQLite, fsync per group commit)`);
    console.log(line('bare', bareResult));
    console.log(line('get', get, bareResult));
    console.log(line('create', create, bareResult));
    console.log(line('update', update, bareResult));
    console.log(line('delete', remove, bareResult));
    const getMet = get.requests.average >= bareResult.requests.average / 2;
    const createMet = create.requests.average >= 3000;
    console.log(`targets: get >= 50% of bare: ${status(getMet)}; creates >= 3000/s: ${status(createMet)}`);
    const rate = (r: Result) => `${r.requests.average.toFixed(0)} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms${r.non2xx + r.errors ? ` (non-2xx ${r.non2xx}, errors ${r.errors})` : ''}`;
    figure('crud', 'bare', rate(bareResult));
    figure('crud', 'get', `${rate(get)} = ${((get.requests.average / bareResult.requests.average) * 100).toFixed(0)}% of bare`, { text: '>= 50% of bare', met: getMet });
    figure('crud', 'create', rate(create), { text: '>= 3000/s', met: createMet });
    figure('crud', 'update', rate(update));
    figure('crud', 'delete', rate(remove));
  } finally {
    bare.child.kill();
    await capstan.stop();
  }
}
