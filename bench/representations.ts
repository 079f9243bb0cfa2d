// A list of 10,000 pods as JSON, Protobuf, Table (kubectl's: rows with PartialObjectMetadata),
// Table with whole objects and PartialObjectMetadataList: bytes, time to the last byte and the
// server's CPU for each, each beside the JSON list of the same run. The representations take turns
// (one list of each per round) so that load from elsewhere on a shared machine skews them alike.
import { cpuMsOf, createMany, createNamespace, figure, keepAliveAgent, memoryOf, mib, ms, profiled, quantile, startCapstan, status } from './common.js';
import { request, type Agent } from 'node:http';

const PODS = Number(process.env['BENCH_PODS'] ?? 10_000);
const ROUNDS = Number(process.env['BENCH_REPRESENTATION_ROUNDS'] ?? 10);

interface Representation {
  name: string;
  accept: string;
  query?: string;
  /** The most this representation may take, as a multiple of the JSON list's time. */
  target?: number;
}

const REPRESENTATIONS: Representation[] = [
  { name: 'json', accept: 'application/json' },
  { name: 'protobuf', accept: 'application/vnd.kubernetes.protobuf', target: 1 },
  { name: 'table', accept: 'application/json;as=Table;g=meta.k8s.io;v=v1', target: 2 },
  { name: 'table (objects)', accept: 'application/json;as=Table;g=meta.k8s.io;v=v1', query: 'includeObject=Object', target: 2 },
  { name: 'metadata list', accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1' },
];

function get(agent: Agent, url: string, accept: string): Promise<{ bytes: number; ms: number; type: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers: { Accept: accept }, timeout: 60_000 }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => {
        if (res.statusCode !== 200) reject(new Error(`${url} as ${accept}: ${res.statusCode}`));
        else resolve({ bytes, ms: performance.now() - started, type: String(res.headers['content-type']) });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${url} as ${accept}: no answer in 60 s (${performance.now() - started} ms)`)));
    req.on('error', reject).end();
  });
}

interface Measured {
  times: number[];
  cpu: number;
  bytes: number;
  type: string;
}

export async function representations(): Promise<void> {
  const capstan = await startCapstan([], { probe: true });
  const agent = keepAliveAgent(32);
  const one = keepAliveAgent(1);
  try {
    await createNamespace(agent, capstan.url, 'pods');
    const url = `${capstan.url}/api/v1/namespaces/pods/pods`;
    await createMany(agent, url, PODS, 32, (i) => ({
      metadata: { name: `pod-${i}`, labels: { app: 'bench', shard: String(i % 10) } },
      spec: { containers: [{ name: 'app', image: 'example/app:1.0', ports: [{ containerPort: 8080 }], env: [{ name: 'INDEX', value: String(i) }] }] },
    }));
    console.log(`\n== representations: list of ${PODS} pods, ${ROUNDS} rounds of one list in each representation`);
    // A warm-up list of each: derived forms (Protobuf messages, Table cells) are made once per object version.
    for (const r of REPRESENTATIONS) await get(one, `${url}${r.query ? `?${r.query}` : ''}`, r.accept);
    const before = await capstan.probe();
    const measured = new Map<string, Measured>(REPRESENTATIONS.map((r) => [r.name, { times: [], cpu: 0, bytes: 0, type: '' }]));
    await profiled('representations', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        for (const r of REPRESENTATIONS) {
          const m = measured.get(r.name)!;
          const cpu = cpuMsOf(capstan.pid);
          const res = await get(one, `${url}${r.query ? `?${r.query}` : ''}`, r.accept);
          m.cpu += cpuMsOf(capstan.pid) - cpu;
          m.times.push(res.ms);
          m.bytes = res.bytes;
          m.type = res.type;
        }
      }
    });
    const memory = memoryOf(capstan.pid);
    const after = await capstan.probe();
    // Each round's time against the same round's JSON list, the median of those: load from elsewhere
    // changes over seconds, and a pair taken together sees about the same.
    const jsonTimes = measured.get('json')!.times;
    const pairedRatio = (times: number[]) => quantile(times.map((t, i) => t / jsonTimes[i]!).sort((a, b) => a - b), 0.5);
    const ratios = new Map(REPRESENTATIONS.map((r) => [r.name, pairedRatio(measured.get(r.name)!.times)]));
    for (const m of measured.values()) m.times = [...m.times].sort((a, b) => a - b);
    const json = quantile(measured.get('json')!.times, 0.5);
    for (const r of REPRESENTATIONS) {
      const m = measured.get(r.name)!;
      const p50 = quantile(m.times, 0.5);
      const ratio = ratios.get(r.name)!;
      const target = r.target === undefined ? undefined : { text: `<= ${r.target}× JSON`, met: ratio <= r.target };
      const targetText = target ? `  target ${target.text}: ${status(target.met)}` : '';
      console.log(`${r.name.padEnd(16)} ${mib(m.bytes).padStart(9)}  p50 ${ms(p50)}  min ${ms(m.times[0]!)}  ${ratio.toFixed(2)}× JSON (median of rounds)  server CPU ${ms(m.cpu / ROUNDS)} per list${targetText}  (${m.type})`);
      figure('representations', `${PODS} pods as ${r.name}`, `${mib(m.bytes)}, p50 ${ms(p50)} (JSON ${ms(json)}): ${ratio.toFixed(2)}× JSON, CPU ${ms(m.cpu / ROUNDS)}`, target);
    }
    // Flat memory: lists are written from pieces kept with each version, so what stays after a
    // full GC does not grow with the lists served.
    const kept = (p: typeof before) => p.memory.heapUsed + p.memory.external;
    console.log(`server memory after a full GC: heap + external ${mib(kept(before))} after the warm-up lists, ${mib(kept(after))} after ${ROUNDS * REPRESENTATIONS.length} more (${mib(kept(after) - kept(before))}); RSS ${mib(memory.rss)}, peak (VmHWM) ${mib(memory.hwm)}`);
    figure('representations', 'server heap+external after GC: warm-up / all lists', `${mib(kept(before))} / ${mib(kept(after))}; peak RSS ${mib(memory.hwm)}`);
  } finally {
    one.destroy();
    agent.destroy();
    await capstan.stop();
  }
}
