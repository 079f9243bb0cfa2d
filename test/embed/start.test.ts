// startCapstan as a Node test suite uses it (node:test): the package's main export, a server per
// test or per suite, the kubeconfig in its three forms driving @kubernetes/client-node and kubectl,
// CRDs and objects installed before it resolves, reset between tests, many servers at once, a
// child process when asked, and bad input refused before anything is left running.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { startCapstan, type Capstan } from '../../src/index.js';
import { fixturesDir, probeStatus, readReply, repoRoot, until } from '../helpers.js';
import { request } from 'node:https';


const run = promisify(execFile);
const CRDS = join(fixturesDir, 'crds');

/** A request as the kubeconfig's admin (or, with `as`, impersonating a user). */
function admin(capstan: Capstan, method: string, path: string, body?: unknown, as?: string): Promise<{ status: number; json: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const u = capstan.kubeconfig.object.users[0]!.user;
  const c = capstan.kubeconfig.object.clusters[0]!.cluster;
  const pem = (b64: string) => Buffer.from(b64, 'base64').toString();
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, capstan.url), {
      method, ca: pem(c['certificate-authority-data']), cert: pem(u['client-certificate-data']), key: pem(u['client-key-data']),
      headers: { 'content-type': 'application/json', ...(as ? { 'Impersonate-User': as } : {}) },
    }, (res) => readReply(res).then((r) => resolve({ status: r.status, json: r.json }), reject));
    req.on('error', reject);
    req.end(payload);
  });
}

const names = (list: { items: Array<{ metadata: { name: string } }> }) => list.items.map((i) => i.metadata.name).sort();

describe('startCapstan (the package\'s main export)', { timeout: 120_000 }, () => {
  let capstan: Capstan;
  const dir = mkdtempSync(join(tmpdir(), 'capstan-embed-'));

  before(async () => {
    writeFileSync(join(dir, 'seed.yaml'), [
      'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team',
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: team\ndata:\n  mode: fast',
      'apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata:\n  name: web\n  namespace: team\nspec:\n  selector:\n    matchLabels:\n      app: web\n  endpoints:\n  - port: http',
    ].join('\n---\n'));
    capstan = await startCapstan({ crds: [CRDS], objects: [join(dir, 'seed.yaml'), { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'token', namespace: 'team' }, stringData: { a: 'b' } }] });
  });
  after(async () => {
    await capstan?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('hands out its kubeconfig as an object, as YAML and as a private file, all the same', () => {
    const { object, yaml, path } = capstan.kubeconfig;
    assert.equal(readFileSync(path, 'utf8'), yaml);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.equal(object.clusters[0]!.cluster.server, capstan.url);
    assert.match(capstan.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(capstan.port, Number(new URL(capstan.url).port));
    assert.ok(yaml.includes(object.users[0]!.user['client-certificate-data']));
  });

  it('@kubernetes/client-node works from clientNode (loadFromOptions), kubectl from the file', async () => {
    const k8s = await import('@kubernetes/client-node');
    const kc = new k8s.KubeConfig();
    kc.loadFromOptions(capstan.clientNode);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const cm = await core.readNamespacedConfigMap({ name: 'settings', namespace: 'team' });
    assert.deepEqual(cm.data, { mode: 'fast' });
    const { stdout } = await run('kubectl', ['--kubeconfig', capstan.kubeconfig.path, 'get', 'servicemonitors', '-n', 'team', '-o', 'name'], { timeout: 30_000 });
    assert.equal(stdout.trim(), 'servicemonitor.monitoring.coreos.com/web');
  });

  it('installed every CRD of the folder Established before resolving, then the objects in order', async () => {
    const crds = await admin(capstan, 'GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions');
    assert.equal(crds.json.items.length, 10);
    for (const crd of crds.json.items) {
      assert.ok(crd.status.conditions.some((c: { type: string; status: string }) => c.type === 'Established' && c.status === 'True'), crd.metadata.name);
    }
    assert.equal((await admin(capstan, 'GET', '/api/v1/namespaces/team/secrets/token')).json.data.a, Buffer.from('b').toString('base64'));
  });

  it('reset: what tests made is gone, what they changed of the first state is back, CRDs included', async () => {
    await admin(capstan, 'POST', '/api/v1/namespaces', { metadata: { name: 'scratch' } });
    for (let i = 0; i < 10; i++) await admin(capstan, 'POST', '/api/v1/namespaces/team/configmaps', { metadata: { name: `made-${i}` } });
    const patched = await admin(capstan, 'PUT', '/api/v1/namespaces/team/configmaps/settings', { metadata: { name: 'settings', namespace: 'team' }, data: { mode: 'slow' } });
    assert.equal(patched.status, 200);
    await admin(capstan, 'DELETE', '/apis/monitoring.coreos.com/v1/namespaces/team/servicemonitors/web');
    await admin(capstan, 'DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/issuers.cert-manager.io');
    await admin(capstan, 'POST', '/api/v1/namespaces/default/services', { metadata: { name: 'web' }, spec: { clusterIP: '10.96.0.77', ports: [{ port: 80 }] } });

    await capstan.reset();

    assert.equal((await admin(capstan, 'GET', '/api/v1/namespaces/scratch')).status, 404);
    const cms = await admin(capstan, 'GET', '/api/v1/namespaces/team/configmaps');
    assert.deepEqual(names(cms.json).filter((n) => n !== 'kube-root-ca.crt'), ['settings']);
    assert.deepEqual(cms.json.items.find((c: { metadata: { name: string } }) => c.metadata.name === 'settings').data, { mode: 'fast' });
    assert.equal((await admin(capstan, 'GET', '/apis/monitoring.coreos.com/v1/namespaces/team/servicemonitors/web')).status, 200);
    assert.equal((await admin(capstan, 'GET', '/apis/cert-manager.io/v1/namespaces/team/issuers')).status, 200);
    // The Service's address was given back: it can be taken again.
    assert.equal((await admin(capstan, 'POST', '/api/v1/namespaces/default/services', { metadata: { name: 'web' }, spec: { clusterIP: '10.96.0.77', ports: [{ port: 80 }] } })).status, 201);
    await capstan.reset();
  });

  it('reset over HTTP: POST /capstan/reset, for system:masters only', async () => {
    await admin(capstan, 'POST', '/api/v1/namespaces', { metadata: { name: 'scratch2' } });
    const denied = await admin(capstan, 'POST', '/capstan/reset', undefined, 'bob');
    assert.equal(denied.status, 403);
    assert.equal(denied.json.reason, 'Forbidden');
    assert.equal((await admin(capstan, 'GET', '/api/v1/namespaces/scratch2')).status, 200, 'a refused reset changes nothing');
    const reset = await admin(capstan, 'POST', '/capstan/reset');
    assert.equal(reset.status, 200);
    assert.match(reset.json.message, /^reset to the first state: \d+ objects changed$/);
    assert.equal((await admin(capstan, 'GET', '/api/v1/namespaces/scratch2')).status, 404);
    assert.equal((await admin(capstan, 'GET', '/capstan/reset')).status, 405);
  });

  it('POST /capstan/first-state: the store as it is now is what later resets go back to', async () => {
    await admin(capstan, 'POST', '/api/v1/namespaces', { metadata: { name: 'kept' } });
    await admin(capstan, 'PUT', '/api/v1/namespaces/team/configmaps/settings', { metadata: { name: 'settings', namespace: 'team' }, data: { mode: 'medium' } });
    const taken = await admin(capstan, 'POST', '/capstan/first-state');
    assert.equal(taken.status, 200);
    await admin(capstan, 'POST', '/api/v1/namespaces', { metadata: { name: 'dropped' } });
    await admin(capstan, 'DELETE', '/api/v1/namespaces/team/configmaps/settings');
    await admin(capstan, 'DELETE', '/api/v1/namespaces/kept');
    const reset = await admin(capstan, 'POST', '/capstan/reset');
    assert.match(reset.json.message, /^reset to the first state: \d+ objects changed$/);
    assert.equal((await admin(capstan, 'GET', '/api/v1/namespaces/dropped')).status, 404);
    assert.equal((await admin(capstan, 'GET', '/api/v1/namespaces/kept')).json.status?.phase, 'Active');
    assert.deepEqual((await admin(capstan, 'GET', '/api/v1/namespaces/team/configmaps/settings')).json.data, { mode: 'medium' });
    // A second reset finds nothing to change.
    assert.equal((await admin(capstan, 'POST', '/capstan/reset')).json.message, 'reset to the first state: 0 objects changed');
  });
});

describe('startCapstan: many at once, a child process, bad input', { timeout: 120_000 }, () => {
  it('eight servers at once in this process (process: same): each its own port and store', async () => {
    const servers = await Promise.all(Array.from({ length: 8 }, () => startCapstan({ process: 'same' })));
    assert.ok(servers.every((s) => s.pid === process.pid));
    try {
      assert.equal(new Set(servers.map((s) => s.port)).size, 8);
      await admin(servers[0]!, 'POST', '/api/v1/namespaces', { metadata: { name: 'only-in-first' } });
      for (const [i, s] of servers.entries()) {
        assert.equal((await admin(s, 'GET', '/api/v1/namespaces/only-in-first')).status, i === 0 ? 200 : 404);
      }
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
    }
    for (const s of servers) assert.equal(existsSync(s.kubeconfig.path), false, 'stop removes its folder');
  });

  it('by default in the shared host: a test process that ends without stopping its server has it stopped', async () => {
    const script = `import { startCapstan } from ${JSON.stringify(join(repoRoot, 'dist/src/index.js'))};
const c = await startCapstan();
console.log(JSON.stringify({ url: c.url, pid: c.pid }));
process.exit(0);`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { timeout: 60_000 });
    const started = JSON.parse(stdout.trim().split('\n').pop()!) as { url: string; pid: number };
    assert.ok(started.pid > 0 && started.pid !== process.pid);
    process.kill(started.pid, 0); // the host outlives the test process
    await until('the abandoned server stops', async () => (await probeStatus(`${started.url}/healthz`)) === 0);
  });

  it('process: child runs it in a process of its own; stop ends that process', async () => {
    const child = await startCapstan({ process: 'child', objects: [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'seeded' } }] });
    try {
      assert.notEqual(child.pid, process.pid);
      await admin(child, 'POST', '/api/v1/namespaces', { metadata: { name: 'later' } });
      await child.reset();
      assert.equal((await admin(child, 'GET', '/api/v1/namespaces/later')).status, 404);
      assert.equal((await admin(child, 'GET', '/api/v1/namespaces/seeded')).status, 200);
    } finally {
      await child.stop();
    }
    assert.throws(() => process.kill(child.pid, 0), /ESRCH/);
  });

  it('refuses a missing file, a bad CRD and an unknown kind (the server it started is stopped)', async () => {
    await assert.rejects(startCapstan({ crds: ['/no/such/crds'] }), /ENOENT.*\/no\/such\/crds/);
    const bad = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'wrong.example.com' }, spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'things', kind: 'Thing' }, versions: [] } };
    const dir = mkdtempSync(join(tmpdir(), 'capstan-embed-bad-'));
    try {
      writeFileSync(join(dir, 'bad.json'), JSON.stringify(bad));
      await assert.rejects(startCapstan({ crds: [join(dir, 'bad.json')] }), /customresourcedefinitions: 422 CustomResourceDefinition.apiextensions.k8s.io "wrong.example.com" is invalid/);
      await assert.rejects(startCapstan({ objects: [{ apiVersion: 'v1', kind: 'Gadget', metadata: { name: 'x' } }] }), /objects: v1 has no kind Gadget/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
