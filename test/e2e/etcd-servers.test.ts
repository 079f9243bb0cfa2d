// Two capstan commands on one real etcd, as servers of one control plane: a write on one is read
// at once on the other (consistent reads wait for the other server's writes to reach the caches)
// and watched there; the controllers run on one of them (leader election on the
// kube-controller-manager Lease) and move to the other when it stops, or dies. Skipped when
// /usr/bin/etcd is absent.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { call, kubeconfigTls, mustOk, sleep, until, type ClientTls } from '../helpers.js';
import { EtcdProcess, etcdMissing } from '../storage/etcd-process.js';
import { ok, startCapstan, stopCapstan, type Capstan } from './harness.js';

const LEASE = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager';

interface Server {
  capstan: Capstan;
  base: string;
  tls: ClientTls;
}

describe('two capstan servers on one etcd', { skip: etcdMissing, timeout: 180_000 }, () => {
  let etcd: EtcdProcess;
  const dir = mkdtempSync(join(tmpdir(), 'capstan-e2e-two-'));
  const servers: Server[] = [];
  let runs = 0;
  // One certificate authority for both (as servers of one control plane share their PKI); short leader-election times.
  const flags = (): string[] => [
    '--storage', 'etcd', '--etcd-servers', etcd.url, '--etcd-prefix', '/two', '--cert-dir', join(dir, 'pki'),
    '--leader-elect-lease-duration', '3s', '--leader-elect-renew-deadline', '2s', '--leader-elect-retry-period', '500ms',
  ];
  const start = async (): Promise<Server> => {
    const capstan = await startCapstan(join(dir, `data-${++runs}`), flags());
    const server = { capstan, base: /server: (\S+)/.exec(readFileSync(capstan.kubeconfig, 'utf8'))![1]!, tls: kubeconfigTls(capstan.kubeconfig) };
    servers.push(server);
    return server;
  };
  const holder = async (s: Server): Promise<{ holderIdentity: string; leaseTransitions: number }> => (await mustOk(call(s.base, 'GET', LEASE, { tls: s.tls }))).json.spec;
  const podsOf = async (s: Server, app: string): Promise<number> => (await mustOk(call(s.base, 'GET', `/api/v1/namespaces/default/pods?labelSelector=app%3D${app}`, { tls: s.tls }))).json.items.length;
  const replicaSetsOf = async (s: Server, app: string): Promise<number> => (await mustOk(call(s.base, 'GET', `/apis/apps/v1/namespaces/default/replicasets?labelSelector=app%3D${app}`, { tls: s.tls }))).json.items.length;
  const scale = async (s: Server, name: string, replicas: number) => mustOk(call(s.base, 'PATCH', `/apis/apps/v1/namespaces/default/deployments/${name}/scale`, {
    tls: s.tls, headers: { 'Content-Type': 'application/merge-patch+json' }, body: { spec: { replicas } },
  }));
  let first: Server;
  let second: Server;

  before(async () => {
    etcd = await EtcdProcess.start();
    first = await start();
    // The first server leads (the Lease did not exist when it started); then the second joins.
    await until('the first server leads', async () => (await holder(first)).holderIdentity !== '', 10_000);
    second = await start();
  });
  after(async () => {
    for (const s of servers) await stopCapstan(s.capstan);
    await etcd?.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads on one server what was just written on the other, and watches it there', async () => {
    // Large values in parallel, so that the other server's feed is often still behind when the read arrives.
    const big = 'x'.repeat(256 * 1024);
    await Promise.all(Array.from({ length: 16 }, async (_, i) => {
      await mustOk(call(first.base, 'POST', '/api/v1/namespaces/default/configmaps', { tls: first.tls, body: { metadata: { name: `cm-${i}` }, data: { i: String(i), big } } }), 201);
      const got = await call(second.base, 'GET', `/api/v1/namespaces/default/configmaps/cm-${i}`, { tls: second.tls });
      assert.equal(got.status, 200, `cm-${i} read on the other server right after its create: ${got.text.slice(0, 200)}`);
      const listed = await mustOk(call(second.base, 'GET', '/api/v1/namespaces/default/configmaps?labelSelector=none%21%3Dx', { tls: second.tls }));
      assert.ok(listed.json.items.some((c: { metadata: { name: string } }) => c.metadata.name === `cm-${i}`), `cm-${i} in the other server's list`);
      await mustOk(call(first.base, 'DELETE', `/api/v1/namespaces/default/configmaps/cm-${i}`, { tls: first.tls }));
      assert.equal((await call(second.base, 'GET', `/api/v1/namespaces/default/configmaps/cm-${i}`, { tls: second.tls })).status, 404, `cm-${i} gone on the other server right after its delete`);
    }));
    const watch = spawn('kubectl', ['--kubeconfig', second.capstan.kubeconfig, 'get', 'configmaps', '--watch-only', '-o', 'name'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let watched = '';
    watch.stdout.on('data', (c: Buffer) => (watched += c.toString()));
    try {
      await sleep(1_000);
      await ok(first.capstan.kubeconfig, ['create', 'configmap', 'watched', '--from-literal=a=1']);
      await until('the other server\'s watch shows it', () => watched.includes('configmap/watched'), 10_000, 50);
    } finally {
      watch.kill();
    }
  });

  it('updates on one server what was just written on the other: no conflict from its cache lagging, no write skipped as unchanged', async () => {
    // An update starts from the server's cache, which may not hold the other server's write yet.
    const big = 'y'.repeat(256 * 1024);
    const path = (i: number) => `/api/v1/namespaces/default/configmaps/upd-${i}`;
    // Eight at once: with sixteen (some 18 MB of writes in flight) a write on a slow machine once
    // found etcd unavailable or out of time (a 504).
    await Promise.all(Array.from({ length: 8 }, async (_, i) => {
      const body = (v: string) => ({ metadata: { name: `upd-${i}` }, data: { v, big } });
      await mustOk(call(first.base, 'POST', '/api/v1/namespaces/default/configmaps', { tls: first.tls, body: body('1') }), 201);
      const v2 = await mustOk(call(first.base, 'PUT', path(i), { tls: first.tls, body: body('2') }));
      // Pinned to the other server's newest resourceVersion: accepted.
      const pinned = { ...body('3'), metadata: { name: `upd-${i}`, resourceVersion: v2.json.metadata.resourceVersion } };
      const v3 = await call(second.base, 'PUT', path(i), { tls: second.tls, body: pinned });
      assert.equal(v3.status, 200, `upd-${i} updated on the other server with the resourceVersion just written: ${v3.text.slice(0, 200)}`);
      assert.equal(v3.json.data.v, '3');
      // Back to what the second server's cache may still hold: still a write. (A large value, so that
      // the other server's feed is often still behind.)
      const v4 = await mustOk(call(first.base, 'PUT', path(i), { tls: first.tls, body: { metadata: { name: `upd-${i}` }, data: { v: '4', big: 'z'.repeat(900 * 1024) } } }));
      const back = await mustOk(call(second.base, 'PUT', path(i), { tls: second.tls, body: body('3') }));
      assert.equal(back.json.data.v, '3');
      assert.ok(Number(back.json.metadata.resourceVersion) > Number(v4.json.metadata.resourceVersion), `upd-${i}: the update was written (resourceVersion ${back.json.metadata.resourceVersion} after ${v4.json.metadata.resourceVersion})`);
      assert.equal((await mustOk(call(first.base, 'GET', path(i), { tls: first.tls }))).json.data.v, '3');
      await mustOk(call(first.base, 'DELETE', path(i), { tls: first.tls }));
    }));
  });

  it('keeps service addresses and node ports unique across the servers', async () => {
    const service = (name: string) => ({
      apiVersion: 'v1', kind: 'Service', metadata: { name },
      spec: { type: 'NodePort', clusterIP: '10.96.200.200', ports: [{ port: 80, nodePort: 31234 }], selector: { app: name } },
    });
    await mustOk(call(first.base, 'POST', '/api/v1/namespaces/default/services', { tls: first.tls, body: service('one') }), 201);
    const taken = await call(second.base, 'POST', '/api/v1/namespaces/default/services', { tls: second.tls, body: service('two') });
    assert.equal(taken.status, 422, taken.text);
    assert.match(taken.json.message, /provided IP is already allocated/);
    const port = await call(second.base, 'POST', '/api/v1/namespaces/default/services', { tls: second.tls, body: { ...service('two'), spec: { ...service('two').spec, clusterIP: undefined } } });
    assert.equal(port.status, 422, port.text);
    assert.match(port.json.message, /provided port is already allocated/);
    // Freed on the first server: the second may take them now.
    await mustOk(call(first.base, 'DELETE', '/api/v1/namespaces/default/services/one', { tls: first.tls }));
    await until('the other server has them free', async () => (await call(second.base, 'POST', '/api/v1/namespaces/default/services', { tls: second.tls, body: service('two') })).status === 201, 5_000, 100);
  });

  it('runs the controllers on one server only: one ReplicaSet, the pods not doubled', async () => {
    const events = (await mustOk(call(second.base, 'GET', '/api/v1/namespaces/kube-system/events?fieldSelector=reason%3DLeaderElection', { tls: second.tls }))).json.items;
    assert.equal(events.length, 1, 'one leader so far');
    assert.equal(events[0].message, `${(await holder(second)).holderIdentity} became leader`);
    await ok(second.capstan.kubeconfig, ['create', 'deployment', 'web', '--image=nginx', '--replicas=3']);
    await until('three pods', async () => (await podsOf(second, 'web')) === 3, 20_000);
    await sleep(2_000);
    assert.equal(await podsOf(first, 'web'), 3);
    assert.equal(await replicaSetsOf(first, 'web'), 1);
  });

  it('moves the controllers to the other server when the leader stops, and when it dies', async () => {
    const before = await holder(second);
    // Stopped: it gives the Lease up, and the other takes it at its next try.
    await stopCapstan(first.capstan);
    const taken = await until('the second server leads', async () => {
      const now = await holder(second);
      // (A released Lease has no holder: "" — not a new leader.)
      return now.holderIdentity !== before.holderIdentity && (now.holderIdentity ?? '') !== '' ? now : undefined;
    }, 10_000);
    assert.equal(taken.leaseTransitions, before.leaseTransitions + 1);
    await scale(second, 'web', 5);
    await until('five pods', async () => (await podsOf(second, 'web')) === 5, 20_000);

    // A third server joins, then the leader dies without giving the Lease up: the Lease goes
    // stale, and the newcomer takes it after a lease duration.
    const third = await start();
    second.capstan.process.kill('SIGKILL');
    const retaken = await until('the third server leads', async () => {
      const now = await holder(third);
      return now.holderIdentity !== taken.holderIdentity ? now : undefined;
    }, 15_000);
    assert.equal(retaken.leaseTransitions, taken.leaseTransitions + 1);
    await scale(third, 'web', 2);
    await until('two pods', async () => (await podsOf(third, 'web')) === 2, 20_000);
  });
});
