// A newcomer's first hour with the real command and kubectl: uninstalling a manifest that holds its
// own Namespace, the request log, component statuses, the index of paths, and a server bound to
// another address than loopback that clients reach without certificate errors.
import assert from 'node:assert/strict';
import { connect, type PeerCertificate } from 'node:tls';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kubeconfigTls, until } from '../helpers.js';
import { kubectl, ok, startCapstan, stopCapstan, type Capstan } from './harness.js';

/** The subject alternative names of the certificate served at host:port. */
function servedNames(host: string, port: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, rejectUnauthorized: false, servername: undefined }, () => {
      const cert: PeerCertificate = socket.getPeerCertificate();
      socket.end();
      resolve((cert.subjectaltname ?? '').split(', '));
    });
    socket.on('error', reject);
  });
}

const portOf = (kubeconfig: string) => Number(/server: https:\/\/[^\n]*:(\d+)\n/.exec(readFileSync(kubeconfig, 'utf8'))![1]);

describe('a newcomer with kubectl', { timeout: 180_000 }, () => {
  let dir: string;
  let capstan: Capstan;
  let log = '';
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'capstan-newcomer-'));
    capstan = await startCapstan(join(dir, 'data'), ['-v', '3']);
    capstan.process.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
  });
  after(async () => {
    await stopCapstan(capstan);
    rmSync(dir, { recursive: true, force: true });
  });

  it('kubectl delete -f of a manifest holding its own Namespace deletes everything in it', async () => {
    const manifest = join(dir, 'app.yaml');
    writeFileSync(manifest, [
      'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: dashboard',
      'apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: dashboard\n  namespace: dashboard',
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: dashboard\ndata:\n  theme: dark',
      'apiVersion: v1\nkind: Service\nmetadata:\n  name: dashboard\n  namespace: dashboard\nspec:\n  ports:\n  - port: 443',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: dashboard\n  namespace: dashboard\nspec:\n  replicas: 0\n  selector:\n    matchLabels: {app: dashboard}\n  template:\n    metadata:\n      labels: {app: dashboard}\n    spec:\n      containers:\n      - name: dashboard\n        image: kubernetesui/dashboard:v2.7.0',
    ].join('\n---\n') + '\n');
    await ok(capstan.kubeconfig, ['apply', '-f', manifest]);
    const deleted = await kubectl(capstan.kubeconfig, ['delete', '-f', manifest, '--timeout=30s']);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.equal(deleted.stderr, '');
    for (const line of ['namespace "dashboard" deleted', 'serviceaccount "dashboard" deleted', 'configmap "settings" deleted', 'service "dashboard" deleted', 'deployment.apps "dashboard" deleted']) {
      assert.ok(deleted.stdout.includes(line), `${line} in ${deleted.stdout}`);
    }
    assert.match((await kubectl(capstan.kubeconfig, ['get', 'namespace', 'dashboard'])).stderr, /NotFound|not found/);
  });

  it('-v 3 logs one line per request: verb, URI, latency, user agent, user, source, status', async () => {
    await ok(capstan.kubeconfig, ['get', 'namespaces']);
    // The server writes the line once the answer is sent; it may reach this process after kubectl has exited.
    const line = () => log.split('\n').find((l) => l.includes('URI="/api/v1/namespaces?limit=500"'));
    await until('the request\'s log line', () => line() !== undefined, 5000, 20).catch(() => assert.fail(log.slice(-2000)));
    assert.ok(line());
    assert.match(line()!, /^I\d{4} [\d:.]+ +\d+ httplog\.go\] "HTTP" verb="LIST" URI="\/api\/v1\/namespaces\?limit=500" latency="[\d.]+(µs|ms|s)" userAgent="kubectl\/v[^"]+" user="kubernetes-admin" srcIP="127\.0\.0\.1:\d+" resp=200$/);
  });

  it('kubectl get componentstatuses warns as the reference and says what capstan runs', async () => {
    const r = await kubectl(capstan.kubeconfig, ['get', 'componentstatuses']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /Warning: v1 ComponentStatus is deprecated in v1\.19\+/);
    assert.match(r.stdout, /^controller-manager +Healthy +ok/m);
    assert.match(r.stdout, /^etcd-0 +Healthy +ok/m);
    assert.match(r.stdout, /^scheduler +Unhealthy +capstan runs no scheduler/m);
  });

  it('GET / lists the paths served', async () => {
    const paths = JSON.parse(await ok(capstan.kubeconfig, ['get', '--raw', '/'])).paths as string[];
    for (const p of ['/.well-known/openid-configuration', '/api', '/api/v1', '/apis', '/apis/apps/v1', '/healthz', '/livez', '/openapi/v2', '/openid/v1/jwks', '/readyz', '/version']) {
      assert.ok(paths.includes(p), p);
    }
  });

  it('a server bound to another address is reached without certificate errors; the certificate names it, the host and the extra names', async () => {
    const data = join(dir, 'bound');
    const bound = await startCapstan(data, ['--bind-address', '127.0.0.2', '--apiserver-cert-extra-sans', 'capstan.example.test,192.0.2.44']);
    let quiet = '';
    bound.process.stderr!.on('data', (chunk: Buffer) => (quiet += chunk.toString()));
    try {
      assert.match(readFileSync(bound.kubeconfig, 'utf8'), /server: https:\/\/127\.0\.0\.2:\d+/);
      const r = await kubectl(bound.kubeconfig, ['get', 'namespaces', 'default']);
      assert.equal(r.code, 0, r.stderr);
      const names = await servedNames('127.0.0.2', portOf(bound.kubeconfig));
      for (const n of ['IP Address:127.0.0.2', 'DNS:capstan.example.test', 'IP Address:192.0.2.44', `DNS:${hostname().toLowerCase()}`]) assert.ok(names.includes(n), `${n} in ${names.join(', ')}`);
      // Below -v 3 no request is logged.
      assert.ok(!quiet.includes('"HTTP"'), quiet);
    } finally {
      await stopCapstan(bound);
    }
    // On every address: the certificate names each of the host's (and is made again, by the same CA).
    const ca = kubeconfigTls(bound.kubeconfig).ca;
    const everywhere = await startCapstan(data, ['--bind-address', '0.0.0.0']);
    try {
      assert.equal(kubeconfigTls(everywhere.kubeconfig).ca, ca);
      const names = await servedNames('127.0.0.1', portOf(everywhere.kubeconfig));
      const addresses = Object.values(networkInterfaces()).flat().filter((a) => a && !a.internal && a.family === 'IPv4').map((a) => a!.address);
      for (const a of addresses) assert.ok(names.includes(`IP Address:${a}`), `${a} in ${names.join(', ')}`);
      assert.ok(names.includes(`DNS:${hostname().toLowerCase()}`));
      assert.equal((await kubectl(everywhere.kubeconfig, ['get', 'namespaces', 'default'])).code, 0);
    } finally {
      await stopCapstan(everywhere);
    }
  });
});
