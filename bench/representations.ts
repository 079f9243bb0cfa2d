// A list of 10,000 pods as JSON, as Protobuf and as Table: bytes and time to the last byte for each.
import { createMany, createNamespace, figure, keepAliveAgent, ms, quantile, startCapstan } from './common.js';
import { request } from 'node:http';

const PODS = Number(process.env['BENCH_PODS'] ?? 10_000);
const RUNS = 10;

const ACCEPT: Record<string, string> = {
  json: 'application/json',
  protobuf: 'application/vnd.kubernetes.protobuf',
  table: 'application/json;as=Table;g=meta.k8s.io;v=v1',
};

function get(url: string, accept: string): Promise<{ bytes: number; ms: number; type: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    request(url, { headers: { Accept: accept } }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => resolve({ bytes, ms: performance.now() - started, type: String(res.headers['content-type']) }));
    }).on('error', reject).end();
  });
}

export async function representations(): Promise<void> {
  const capstan = await startCapstan();
  const agent = keepAliveAgent(32);
  try {
    await createNamespace(agent, capstan.url, 'pods');
    const url = `${capstan.url}/api/v1/namespaces/pods/pods`;
    await createMany(agent, url, PODS, 32, (i) => ({
      metadata: { name: `pod-${i}`, labels: { app: 'bench', shard: String(i % 10) } },
      spec: { containers: [{ name: 'app', image: 'example/app:1.0', ports: [{ containerPort: 8080 }], env: [{ name: 'INDEX', value: String(i) }] }] },
    }));
    console.log(`\n== representations: list of ${PODS} pods, ${RUNS} lists each`);
    for (const [name, accept] of Object.entries(ACCEPT)) {
      const times: number[] = [];
      let bytes = 0;
      let type = '';
      for (let r = 0; r <= RUNS; r++) {
        const res = await get(url, accept);
        if (r > 0) times.push(res.ms); // the first is a warm-up (Protobuf encodes once per object version)
        bytes = res.bytes;
        type = res.type;
      }
      times.sort((a, b) => a - b);
      console.log(`${name.padEnd(9)} ${(bytes / 1024 / 1024).toFixed(1).padStart(5)} MiB  p50 ${ms(quantile(times, 0.5))}  min ${ms(times[0]!)}  (${type})`);
      figure('representations', `${PODS} pods as ${name}`, `${(bytes / 1024 / 1024).toFixed(1)} MiB, p50 ${ms(quantile(times, 0.5))}`);
    }
  } finally {
    agent.destroy();
    await capstan.stop();
  }
}
