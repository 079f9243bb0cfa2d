// What authorization costs: GET of a small object over HTTPS with a client certificate, by a user
// that RBAC must evaluate (1,000 Roles and RoleBindings stored), against the same server in
// AlwaysAllow mode, in one run. Target: RBAC keeps ≥ 85% of AlwaysAllow's requests/s.
import autocannon, { type Result } from 'autocannon';
import { request } from 'node:https';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueClientCertificate, ensureServingMaterial, type ServingMaterial } from '../src/server/certs.js';
import { figure, startNode, here, status } from './common.js';

const CONNECTIONS = 32;
const DURATION = Number(process.env["BENCH_SECONDS"] ?? 4);
const OBJECTS = 1000;

interface Tls { ca: string; cert: string; key: string }

function call(url: string, tls: Tls, method: string, body?: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = request(url, { method, ...tls, headers: payload ? { 'Content-Type': 'application/json', 'Content-Length': payload.length } : {} }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

async function inParallel(count: number, width: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < count) await task(next++);
  }));
}

function load(url: string, user: Tls): Promise<Result> {
  return new Promise<Result>((resolve, reject) => {
    autocannon({ url, connections: CONNECTIONS, duration: DURATION, tlsOptions: { ...user } }, (err, r) => (err ? reject(err) : resolve(r)));
  });
}

async function serve(mode: string, certDir: string, material: ServingMaterial, user: Tls): Promise<{ stop(): void; url: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'capstan-bench-auth-'));
  const server = await startNode([join(here, '../src/cmd/capstan.js'), '--data-dir', dataDir, '--cert-dir', certDir, '--secure-port', '0', '--authorization-mode', mode], /serving on (https:\/\/127\.0\.0\.1:\d+)/);
  const base = server.match[1]!;
  const admin: Tls = { ca: material.caCert, cert: material.adminCert, key: material.adminKey };
  const ns = `${base}/api/v1/namespaces/bench`;
  await call(`${base}/api/v1/namespaces`, admin, 'POST', { metadata: { name: 'bench' } });
  await call(`${ns}/configmaps`, admin, 'POST', { metadata: { name: 'target' }, data: { k: 'v' } });
  const rbac = `${base}/apis/rbac.authorization.k8s.io/v1/namespaces/bench`;
  await inParallel(OBJECTS, 32, async (i) => {
    await call(`${rbac}/roles`, admin, 'POST', { metadata: { name: `role-${i}` }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'], resourceNames: [`cm-${i}`] }] });
    await call(`${rbac}/rolebindings`, admin, 'POST', { metadata: { name: `binding-${i}` }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: `role-${i}` }, subjects: [{ kind: 'User', name: `user-${i}`, apiGroup: 'rbac.authorization.k8s.io' }] });
  });
  await call(`${rbac}/roles`, admin, 'POST', { metadata: { name: 'reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] });
  await call(`${rbac}/rolebindings`, admin, 'POST', { metadata: { name: 'reader' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' }, subjects: [{ kind: 'User', name: 'bench-user', apiGroup: 'rbac.authorization.k8s.io' }] });
  const check = await call(`${ns}/configmaps/target`, user, 'GET');
  if (check !== 200) throw new Error(`bench-user cannot read the target (${check}) in ${mode} mode`);
  return { url: `${ns}/configmaps/target`, stop: () => { server.child.kill(); rmSync(dataDir, { recursive: true, force: true }); } };
}

export async function auth(): Promise<void> {
  const certDir = mkdtempSync(join(tmpdir(), 'capstan-bench-pki-'));
  try {
    const material = await ensureServingMaterial(certDir, []);
    const issued = await issueClientCertificate(material, 'bench-user', []);
    const user: Tls = { ca: material.caCert, cert: issued.cert, key: issued.key };
    const allowServer = await serve('AlwaysAllow', certDir, material, user);
    const rbacServer = await serve('RBAC', certDir, material, user);
    // Interleaved, best of two each: TLS throughput on a shared 2-core machine drifts more than RBAC costs.
    const runs: Record<string, Result[]> = { allow: [], rbac: [] };
    for (let i = 0; i < 2; i++) {
      runs['allow']!.push(await load(allowServer.url, user));
      runs['rbac']!.push(await load(rbacServer.url, user));
    }
    allowServer.stop();
    rbacServer.stop();
    const best = (rs: Result[]) => rs.reduce((a, b) => (b.requests.average > a.requests.average ? b : a));
    const allow = { result: best(runs['allow']!) };
    const rbac = { result: best(runs['rbac']!) };
    const ratio = rbac.result.requests.average / allow.result.requests.average;
    console.log(`\n== auth: GET over HTTPS with a client certificate, ${CONNECTIONS} connections, ${DURATION} s each, ${OBJECTS} Roles and RoleBindings stored`);
    console.log(`AlwaysAllow ${allow.result.requests.average.toFixed(0).padStart(6)} req/s  p99 ${allow.result.latency.p99} ms  (non-2xx ${allow.result.non2xx})`);
    console.log(`RBAC        ${rbac.result.requests.average.toFixed(0).padStart(6)} req/s  p99 ${rbac.result.latency.p99} ms  (non-2xx ${rbac.result.non2xx})`);
    console.log(`RBAC keeps ${(ratio * 100).toFixed(0)}% of AlwaysAllow  target >= 85%: ${status(ratio >= 0.85)}`);
    figure('auth', 'GET with RBAC / AlwaysAllow', `${rbac.result.requests.average.toFixed(0)} / ${allow.result.requests.average.toFixed(0)} req/s = ${(ratio * 100).toFixed(0)}%`, { text: '>= 85%', met: ratio >= 0.85 });
  } finally {
    rmSync(certDir, { recursive: true, force: true });
  }
}
