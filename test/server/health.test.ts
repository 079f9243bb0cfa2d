// /healthz, /livez and /readyz: the checks capstan lists are the reference's (same names, same
// order), among them the post-start hooks capstan runs.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/server.js';
import { startServer } from '../../src/server/server.js';
import { call, fixture, memoryServer } from '../helpers.js';
import { healthEndpoints } from '../../src/server/health-checks.js';

/** The check lines of a verbose answer, without the "[+]" and " ok". */
const checkNames = (body: string) => body.split('\n').filter((l) => l.startsWith('[')).map((l) => l.replace(/^\[[+-]\]/, '').replace(/ (excluded: )?ok$/, ''));

/** Whether `names` appear in `reference` in the same order (the reference may list more). */
function inOrder(names: string[], reference: string[]): boolean {
  let at = 0;
  for (const n of names) {
    at = reference.indexOf(n, at);
    if (at < 0) return false;
    at++;
  }
  return true;
}

describe('health endpoints', { timeout: 30_000 }, () => {
  let server: RunningServer;
  before(async () => {
    server = await memoryServer();
  });
  after(() => server.close());

  for (const name of ['healthz', 'livez', 'readyz', 'healthz-etcd', 'readyz-etcd', 'livez-ping', 'livez-missing-check']) {
    it(`answers ${name} as the reference`, async () => {
      const f = fixture(`health/${name}`);
      const r = await call(server.url, f.request.method, f.request.path);
      assert.equal(r.status, f.response.status);
      assert.equal(r.headers['content-type'], f.response.headers['content-type']);
      assert.equal(r.text, f.response.body);
    });
  }

  // The reference's checks capstan has a subject for over plain HTTP: there is no front proxy, so
  // no authentication-info controller and no OpenAPI aggregation controllers.
  const SERVED = [
    'ping', 'log', 'etcd',
    'poststarthook/start-kube-apiserver-admission-initializer', 'poststarthook/generic-apiserver-start-informers',
    'poststarthook/priority-and-fairness-config-consumer', 'poststarthook/priority-and-fairness-filter',
    'poststarthook/storage-object-count-tracker-hook',
    'poststarthook/start-apiextensions-informers', 'poststarthook/start-apiextensions-controllers', 'poststarthook/crd-informer-synced', 'poststarthook/bootstrap-controller',
    'poststarthook/rbac/bootstrap-roles', 'poststarthook/scheduling/bootstrap-system-priority-classes', 'poststarthook/priority-and-fairness-config-producer',
    'poststarthook/start-kube-aggregator-informers',
    'poststarthook/apiservice-registration-controller', 'poststarthook/apiservice-status-available-controller', 'poststarthook/kube-apiserver-autoregistration',
    'autoregister-completion',
  ];

  it('lists the reference\'s checks it has a subject for, with the reference\'s names, in the reference\'s order', async () => {
    for (const endpoint of ['healthz', 'livez']) {
      const r = await call(server.url, 'GET', `/${endpoint}?verbose`);
      assert.equal(r.status, 200);
      const names = checkNames(r.text);
      assert.deepEqual(names, SERVED);
      assert.ok(inOrder(names, checkNames(String(fixture(`health/${endpoint}-verbose`).response.body))), endpoint);
      assert.ok(r.text.endsWith(`${endpoint} check passed\n`));
    }
    const ready = await call(server.url, 'GET', '/readyz?verbose&exclude=etcd');
    const names = checkNames(ready.text);
    assert.deepEqual(names, [...SERVED.slice(0, 3), 'etcd-readiness', 'informer-sync', ...SERVED.slice(3), 'shutdown']);
    assert.ok(inOrder(names, checkNames(String(fixture('health/readyz-verbose-exclude-etcd').response.body))));
    assert.match(ready.text, /^\[\+\]etcd excluded: ok$/m);
    // informer-sync is /readyz's alone, as in the reference.
    assert.equal((await call(server.url, 'GET', '/readyz/informer-sync')).text, 'ok');
    assert.equal((await call(server.url, 'GET', '/livez/informer-sync')).status, 404);
  });

  it('passes its checks on what they name: the bootstrap objects exist, the watch caches serve', async () => {
    assert.equal((await call(server.url, 'GET', '/readyz/poststarthook/scheduling/bootstrap-system-priority-classes')).text, 'ok');
    for (const name of ['system-node-critical', 'system-cluster-critical']) {
      assert.equal((await call(server.url, 'GET', `/apis/scheduling.k8s.io/v1/priorityclasses/${name}`)).status, 200, name);
    }
    assert.equal((await call(server.url, 'GET', '/readyz/poststarthook/rbac/bootstrap-roles')).text, 'ok');
    assert.equal((await call(server.url, 'GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/cluster-admin')).status, 200);
    // Served from the watch caches at once (resourceVersion=0 reads the cache).
    for (const path of ['/apis/apiextensions.k8s.io/v1/customresourcedefinitions', '/apis/apiregistration.k8s.io/v1/apiservices']) {
      assert.equal((await call(server.url, 'GET', `${path}?resourceVersion=0`)).status, 200, path);
    }
  });

  it('answers one hook\'s check by its name', async () => {
    const r = await call(server.url, 'GET', '/readyz/poststarthook/bootstrap-controller');
    assert.equal(r.status, 200);
    assert.equal(r.text, 'ok');
  });

  it('has no RBAC bootstrap hook without RBAC', async () => {
    const open = await memoryServer({ authorizationMode: 'AlwaysAllow' });
    try {
      const r = await call(open.url, 'GET', '/healthz?verbose');
      assert.deepEqual(checkNames(r.text), SERVED.filter((n) => n !== 'poststarthook/rbac/bootstrap-roles'));
      assert.equal((await call(open.url, 'GET', '/healthz/poststarthook/rbac/bootstrap-roles')).status, 404);
    } finally {
      await open.close();
    }
  });
});

describe('health endpoints over HTTPS', { timeout: 30_000 }, () => {
  let dir: string;
  let server: RunningServer;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'capstan-health-'));
    server = await startServer({ bindAddress: '127.0.0.1', port: 0, storage: 'memory', dataDir: dir });
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists every check of the reference, in its order, with the front proxy\'s controllers', async () => {
    const m = server.material!;
    const tls = { ca: String(m.caCert), cert: String(m.adminCert), key: String(m.adminKey) };
    for (const endpoint of ['healthz', 'livez', 'readyz']) {
      const r = await call(server.url, 'GET', `/${endpoint}?verbose`, { tls });
      assert.equal(r.status, 200);
      assert.deepEqual(checkNames(r.text), checkNames(String(fixture(`health/${endpoint}-verbose`).response.body)), endpoint);
    }
    assert.equal((await call(server.url, 'GET', '/readyz/poststarthook/apiservice-openapiv3-controller', { tls })).text, 'ok');
  });
});

describe('--livez-grace-period', { timeout: 10_000 }, () => {
  const unfinished = { name: 'poststarthook/rbac/bootstrap-roles', check: () => 'not finished' };
  const storageDown = { name: 'etcd', check: () => 'storage unavailable' };
  const names = (checks: Array<{ name: string; check(): unknown }>) => checks.filter((c) => c.check() !== undefined).map((c) => c.name);

  it('on /livez alone, post-start hooks that have not finished pass until the grace period is over', async () => {
    const endpoints = healthEndpoints([unfinished, storageDown], 200, performance.now());
    assert.deepEqual(names(endpoints.livez), ['etcd'], 'the storage check has no grace');
    assert.deepEqual(names(endpoints.healthz), ['etcd', 'poststarthook/rbac/bootstrap-roles']);
    assert.deepEqual(names(endpoints.readyz), ['etcd', 'poststarthook/rbac/bootstrap-roles']);
    await new Promise((r) => setTimeout(r, 250));
    assert.deepEqual(names(endpoints.livez), ['etcd', 'poststarthook/rbac/bootstrap-roles']);
  });

  it('is no grace at all by default (0s), as the reference', () => {
    assert.deepEqual(names(healthEndpoints([unfinished]).livez), ['poststarthook/rbac/bootstrap-roles']);
  });
});
