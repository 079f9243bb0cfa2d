// Server-side apply of a Deployment with 3 containers, next to a plain update (PUT) of the same
// object in the same run: requests/s and latency (target: apply costs at most 2× the update).
import autocannon, { type Result } from 'autocannon';
import { figure, startCapstan, status } from './common.js';

const CONNECTIONS = 8;
const DURATION = Number(process.env['BENCH_SECONDS'] ?? 5);

/** The Deployment `web` with 3 containers; `i` varies replicas, images and env so every write changes it. */
export function deployment(i: number): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', labels: { app: 'web' } },
    spec: {
      replicas: 2 + (i % 3), selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: ['nginx', 'sidecar', 'metrics'].map((name, k) => ({
            name, image: `example/${name}:1.${i % 7}`, ports: [{ containerPort: 8080 + k, protocol: 'TCP' }],
            env: [{ name: 'MODE', value: `m${i % 5}` }], resources: { requests: { cpu: '100m', memory: '64Mi' } },
          })),
        },
      },
    },
  };
}

function run(opts: autocannon.Options): Promise<Result> {
  return new Promise((resolve, reject) => {
    autocannon({ connections: CONNECTIONS, duration: DURATION, ...opts }, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

export async function apply(): Promise<void> {
  const capstan = await startCapstan();
  const url = `${capstan.url}/apis/apps/v1/namespaces/default/deployments/web`;
  try {
    const first = await fetch(`${url}?fieldManager=bench`, { method: 'PATCH', headers: { 'Content-Type': 'application/apply-patch+yaml' }, body: JSON.stringify(deployment(0)) });
    if (first.status !== 201) throw new Error(`apply create: ${first.status} ${await first.text()}`);
    let n = 0;
    const applied = await run({
      url: `${url}?fieldManager=bench&force=true`, method: 'PATCH', headers: { 'Content-Type': 'application/apply-patch+yaml' },
      requests: [{ setupRequest: (req) => ({ ...req, body: JSON.stringify(deployment(++n)) }) }],
    });
    const updated = await run({
      url, method: 'PUT', headers: { 'Content-Type': 'application/json' },
      requests: [{ setupRequest: (req) => ({ ...req, body: JSON.stringify(deployment(++n)) }) }],
    });
    const ratio = updated.requests.average / applied.requests.average;
    console.log(`\n== apply: Deployment with 3 containers, ${CONNECTIONS} connections, ${DURATION} s each (every request changes the object)`);
    console.log(`apply   ${applied.requests.average.toFixed(0).padStart(6)} req/s  p50 ${applied.latency.p50} ms  p99 ${applied.latency.p99} ms  (non-2xx ${applied.non2xx})`);
    console.log(`update  ${updated.requests.average.toFixed(0).padStart(6)} req/s  p50 ${updated.latency.p50} ms  p99 ${updated.latency.p99} ms  (non-2xx ${updated.non2xx})`);
    console.log(`apply costs ${ratio.toFixed(2)}× an update  target <= 2×: ${status(ratio <= 2)}`);
    figure('apply', 'apply req/s', `${applied.requests.average.toFixed(0)} (p99 ${applied.latency.p99} ms)`);
    figure('apply', 'update req/s', `${updated.requests.average.toFixed(0)} (p99 ${updated.latency.p99} ms)`);
    figure('apply', 'apply cost / update cost', `${ratio.toFixed(2)}×`, { text: '<= 2×', met: ratio <= 2 });
  } finally {
    await capstan.stop();
  }
}
