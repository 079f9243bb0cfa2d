// A test process as a test file is one (forked by bench/test-env.ts): imports capstan, starts
// servers with startCapstan, and reports its timings to the parent. The task comes in argv[2].
import { request } from 'node:https';
import { readFileSync } from 'node:fs';

const started = performance.now();
const { startCapstan } = await import('../src/index.js');
type Capstan = Awaited<ReturnType<typeof startCapstan>>;

/** One GET as the admin; resolves with its status once the answer is read. */
function get(c: Capstan, path: string): Promise<number> {
  const cluster = c.kubeconfig.object.clusters[0]!.cluster;
  const user = c.kubeconfig.object.users[0]!.user;
  const pem = (b64: string) => Buffer.from(b64, 'base64');
  return new Promise((resolve, reject) => {
    request(new URL(path, c.url), { ca: pem(cluster['certificate-authority-data']), cert: pem(user['client-certificate-data']), key: pem(user['client-key-data']) }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    }).on('error', reject).end();
  });
}

function post(c: Capstan, path: string, body: unknown): Promise<number> {
  const cluster = c.kubeconfig.object.clusters[0]!.cluster;
  const user = c.kubeconfig.object.users[0]!.user;
  const pem = (b64: string) => Buffer.from(b64, 'base64');
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    request(new URL(path, c.url), {
      method: 'POST', headers: { 'content-type': 'application/json' },
      ca: pem(cluster['certificate-authority-data']), cert: pem(user['client-certificate-data']), key: pem(user['client-key-data']),
    }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    }).on('error', reject).end(payload);
  });
}

const rss = () => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) * 1024;
const task = process.argv[2];
const report = (value: unknown) => process.send!(value);

const rssOf = (pid: number) => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;

if (task === 'stop-host') {
  // The host leaves a minute after its last server; this makes it leave now (for a cold start).
  const c = await startCapstan();
  await c.stop();
  process.kill(c.pid, 'SIGTERM');
  while (true) {
    try {
      process.kill(c.pid, 0);
      await new Promise((r) => setTimeout(r, 20));
    } catch {
      break;
    }
  }
  report({ pid: c.pid });
} else if (task === 'starts') {
  // The first start (this process has loaded nothing of the server yet), then warm ones.
  const timings: number[] = [];
  const firstStart = performance.now();
  let c = await startCapstan();
  if ((await get(c, '/api/v1/namespaces')) !== 200) throw new Error('first request failed');
  const first = performance.now() - firstStart;
  const firstFromImport = performance.now() - started;
  await c.stop();
  for (let i = 0; i < 10; i++) {
    const t = performance.now();
    c = await startCapstan();
    if ((await get(c, '/api/v1/namespaces')) !== 200) throw new Error('request failed');
    timings.push(performance.now() - t);
    await c.stop();
  }
  report({ first, firstFromImport, warm: timings });
} else if (task === 'host-idle') {
  // RSS of the shared host with one idle server of ours, then with twenty.
  const servers = [await startCapstan()];
  await get(servers[0]!, '/api/v1/namespaces');
  await new Promise((r) => setTimeout(r, 1500));
  const one = rssOf(servers[0]!.pid);
  for (let i = 0; i < 19; i++) servers.push(await startCapstan());
  await Promise.all(servers.map((s) => get(s, '/api/v1/namespaces')));
  await new Promise((r) => setTimeout(r, 1500));
  const twenty = rssOf(servers[0]!.pid);
  await Promise.all(servers.map((s) => s.stop()));
  report({ one, twenty });
} else if (task === 'idle') {
  // RSS of this process with one idle server, then with ten (process: 'same').
  const servers = [await startCapstan({ process: 'same' })];
  await get(servers[0]!, '/api/v1/namespaces');
  await new Promise((r) => setTimeout(r, 1500));
  const one = rss();
  for (let i = 0; i < 9; i++) servers.push(await startCapstan({ process: 'same' }));
  await Promise.all(servers.map((s) => get(s, '/api/v1/namespaces')));
  await new Promise((r) => setTimeout(r, 1500));
  const ten = rss();
  await Promise.all(servers.map((s) => s.stop()));
  report({ one, ten });
} else if (task === 'parallel') {
  const count = Number(process.argv[3] ?? 20);
  const t = performance.now();
  const mode = (process.argv[4] ?? 'host') as 'host' | 'same';
  const servers = await Promise.all(Array.from({ length: count }, async () => {
    const s = await startCapstan({ process: mode });
    if ((await get(s, '/healthz')) !== 200) throw new Error('not ready');
    return s;
  }));
  const ms = performance.now() - t;
  await Promise.all(servers.map((s) => s.stop()));
  report({ ms });
} else if (task === 'reset') {
  const crds = process.argv[3]!;
  const c = await startCapstan({ crds: [crds] });
  const timings: number[] = [];
  for (let round = 0; round < 20; round++) {
    // What one test leaves behind: a namespace, 40 ConfigMaps, 5 Services, a CRD of its own.
    const ns = `test-${round}`;
    await post(c, '/api/v1/namespaces', { metadata: { name: ns } });
    await Promise.all(Array.from({ length: 40 }, (_, i) => post(c, `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: `cm-${i}` }, data: { i: String(i) } })));
    await Promise.all(Array.from({ length: 5 }, (_, i) => post(c, `/api/v1/namespaces/${ns}/services`, { metadata: { name: `svc-${i}` }, spec: { ports: [{ port: 80 }] } })));
    await post(c, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'gadgets.bench.example' },
      spec: { group: 'bench.example', scope: 'Namespaced', names: { plural: 'gadgets', kind: 'Gadget' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
    });
    const t = performance.now();
    await c.reset();
    timings.push(performance.now() - t);
  }
  await c.stop();
  report({ timings });
} else {
  throw new Error(`unknown task ${task}`);
}
process.exit(0);
