// capstan storing in a real etcd (Debian's 3.4, one member, fresh data dir): creates with 32
// keep-alive clients, gets, and lists of 10,000 ConfigMaps (served from the watch cache), next to
// the etcd client's own range of the same 10,000 keys; then creates again on a fresh etcd with
// values kept as JSON (--storage-media-type application/json) instead of the reference's Protobuf
// envelope. Skipped when /usr/bin/etcd is absent.
import autocannon, { type Result } from 'autocannon';
import { EtcdClient, prefixRangeEnd } from '../src/storage/etcd/client.js';
import { EtcdProcess, etcdMissing } from '../test/storage/etcd-process.js';
import { configMapCreates, createMany, createNamespace, figure, http, keepAliveAgent, startCapstan } from './common.js';

const CONNECTIONS = 32;
const DURATION = Number(process.env['BENCH_SECONDS'] ?? 5);
const LIST_SIZE = 10_000;
const LISTS = 10;

function run(opts: autocannon.Options): Promise<Result> {
  return new Promise((resolve, reject) => {
    autocannon({ connections: CONNECTIONS, duration: DURATION, ...opts }, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

const rate = (r: Result): string => `${r.requests.average.toFixed(0)} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms${r.non2xx + r.errors ? ` (non-2xx ${r.non2xx}, errors ${r.errors})` : ''}`;

export async function etcd(): Promise<void> {
  if (etcdMissing) {
    console.log(`\n== etcd: ${etcdMissing}`);
    return;
  }
  const server = await EtcdProcess.start();
  const capstan = await startCapstan(['--storage', 'etcd', '--etcd-servers', server.url]);
  const agent = keepAliveAgent(CONNECTIONS);
  try {
    const ns = `${capstan.url}/api/v1/namespaces/default/configmaps`;
    const creates = configMapCreates(ns);
    const create = await run(creates.options);
    const get = await run({ url: `${ns}/c-0` });

    await createNamespace(agent, capstan.url, 'bench-list');
    const listUrl = `${capstan.url}/api/v1/namespaces/bench-list/configmaps`;
    const fill = await createMany(agent, listUrl, LIST_SIZE, CONNECTIONS, (i) => ({ metadata: { name: `l-${i}` }, data: { k: 'v'.repeat(200) } }));
    let started = performance.now();
    let bytes = 0;
    for (let i = 0; i < LISTS; i++) {
      const r = await http(agent, listUrl);
      if (r.status !== 200) throw new Error(`list: ${r.status}`);
      bytes = r.body.length;
    }
    const listMs = (performance.now() - started) / LISTS;

    // The same 10,000 objects read by the etcd client alone (one range), capstan's fallback path.
    const client = new EtcdClient({ endpoints: [server.url] });
    const key = Buffer.from('/registry/configmaps/bench-list/');
    started = performance.now();
    let count = 0;
    for (let i = 0; i < LISTS; i++) count = (await client.range({ key, rangeEnd: prefixRangeEnd(key) })).kvs.length;
    const rangeMs = (performance.now() - started) / LISTS;
    client.close();
    if (count !== LIST_SIZE) throw new Error(`etcd range found ${count} keys, not ${LIST_SIZE}`);

    const createJson = await jsonCreates();

    console.log(`\n== etcd: capstan on one etcd 3.4 member, ${CONNECTIONS} keep-alive connections, ${DURATION} s each`);
    console.log(`create   ${rate(create)} (Protobuf values, the reference's)`);
    console.log(`create   ${rate(createJson)} (JSON values)`);
    console.log(`get      ${rate(get)}`);
    console.log(`fill     ${LIST_SIZE} creates in ${(fill.ms / 1000).toFixed(1)} s = ${((LIST_SIZE * 1000) / fill.ms).toFixed(0)}/s`);
    console.log(`list     ${LIST_SIZE} ConfigMaps (${(bytes / 1024 / 1024).toFixed(1)} MiB): ${listMs.toFixed(0)} ms = ${(1000 / listMs).toFixed(1)} lists/s (watch cache)`);
    console.log(`range    ${LIST_SIZE} keys from etcd by the client: ${rangeMs.toFixed(0)} ms = ${(1000 / rangeMs).toFixed(1)} ranges/s`);
    figure('etcd', 'create (32 clients)', rate(create));
    figure('etcd', 'create (32 clients, JSON values)', rate(createJson));
    figure('etcd', 'get', rate(get));
    figure('etcd', `list of ${LIST_SIZE}`, `${(1000 / listMs).toFixed(1)} lists/s (${listMs.toFixed(0)} ms each)`);
    figure('etcd', `etcd range of ${LIST_SIZE}`, `${(1000 / rangeMs).toFixed(1)} ranges/s (${rangeMs.toFixed(0)} ms each)`);
  } finally {
    agent.destroy();
    await capstan.stop();
    await server.destroy();
  }
}

/** ConfigMap creates on a fresh etcd with values kept as JSON. */
async function jsonCreates(): Promise<Result> {
  const server = await EtcdProcess.start();
  const capstan = await startCapstan(['--storage', 'etcd', '--etcd-servers', server.url, '--storage-media-type', 'application/json']);
  try {
    return await run(configMapCreates(`${capstan.url}/api/v1/namespaces/default/configmaps`).options);
  } finally {
    await capstan.stop();
    await server.destroy();
  }
}
