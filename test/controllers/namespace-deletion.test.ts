// Namespace deletion at scale: 1,000 objects of 20 resource types go with their namespace, and a
// deletion interrupted by a restart is finished by the next server; as the reference, the content
// stays for 5 seconds after the namespace is marked, for the clients that delete it after.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { call, memoryServer, mustOk, sleep, until, type Reply } from '../helpers.js';

const podSpec = { containers: [{ name: 'c', image: 'nginx:1.25' }] };
const template = (app: string) => ({ metadata: { labels: { app } }, spec: podSpec });

/** Twenty namespaced resources and a valid object of each (collection path, body for name i). */
const KINDS: { path: string; body: (name: string) => Record<string, unknown> }[] = [
  { path: 'api/v1/configmaps', body: (name) => ({ metadata: { name }, data: { k: 'v' } }) },
  { path: 'api/v1/secrets', body: (name) => ({ metadata: { name }, stringData: { k: 'v' } }) },
  { path: 'api/v1/serviceaccounts', body: (name) => ({ metadata: { name } }) },
  { path: 'api/v1/podtemplates', body: (name) => ({ metadata: { name }, template: template(name) }) },
  { path: 'api/v1/endpoints', body: (name) => ({ metadata: { name }, subsets: [] }) },
  { path: 'api/v1/limitranges', body: (name) => ({ metadata: { name }, spec: { limits: [{ type: 'Container', max: { cpu: '4' } }] } }) },
  { path: 'api/v1/pods', body: (name) => ({ metadata: { name }, spec: podSpec }) },
  { path: 'api/v1/services', body: (name) => ({ metadata: { name }, spec: { ports: [{ port: 80 }] } }) },
  { path: 'api/v1/persistentvolumeclaims', body: (name) => ({ metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }) },
  { path: 'apis/coordination.k8s.io/v1/leases', body: (name) => ({ metadata: { name }, spec: { holderIdentity: 'x' } }) },
  { path: 'apis/rbac.authorization.k8s.io/v1/roles', body: (name) => ({ metadata: { name }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] }) },
  { path: 'apis/rbac.authorization.k8s.io/v1/rolebindings', body: (name) => ({ metadata: { name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'User', name: 'u', apiGroup: 'rbac.authorization.k8s.io' }] }) },
  { path: 'apis/apps/v1/controllerrevisions', body: (name) => ({ metadata: { name }, data: { spec: {} }, revision: 1 }) },
  { path: 'apis/apps/v1/deployments', body: (name) => ({ metadata: { name }, spec: { replicas: 0, selector: { matchLabels: { app: name } }, template: template(name) } }) },
  { path: 'apis/apps/v1/replicasets', body: (name) => ({ metadata: { name }, spec: { replicas: 0, selector: { matchLabels: { app: name } }, template: template(name) } }) },
  { path: 'apis/batch/v1/jobs', body: (name) => ({ metadata: { name }, spec: { suspend: true, template: { spec: { ...podSpec, restartPolicy: 'Never' } } } }) },
  { path: 'apis/batch/v1/cronjobs', body: (name) => ({ metadata: { name }, spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { spec: { ...podSpec, restartPolicy: 'Never' } } } } } }) },
  { path: 'apis/networking.k8s.io/v1/networkpolicies', body: (name) => ({ metadata: { name }, spec: { podSelector: {} } }) },
  { path: 'apis/policy/v1/poddisruptionbudgets', body: (name) => ({ metadata: { name }, spec: { minAvailable: 1, selector: { matchLabels: { app: name } } } }) },
  { path: 'apis/discovery.k8s.io/v1/endpointslices', body: (name) => ({ metadata: { name }, addressType: 'IPv4', endpoints: [] }) },
];

function collection(kind: { path: string }, namespace: string): string {
  const [prefix, ...rest] = kind.path.split('/');
  const resource = rest.pop()!;
  return `/${prefix}/${rest.join('/')}/namespaces/${namespace}/${resource}`;
}

async function fill(url: string, namespace: string, perKind: number): Promise<void> {
  await mustOk(call(url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: namespace } } }), 201);
  for (const kind of KINDS) {
    const path = collection(kind, namespace);
    // A few at a time: concurrent creates, as a real client would send them.
    for (let i = 0; i < perKind; i += 10) {
      await Promise.all(Array.from({ length: Math.min(10, perKind - i) }, (_, j) => mustOk(call(url, 'POST', path, { body: kind.body(`obj-${i + j}`) }), 201)));
    }
  }
}

async function namespaceGone(url: string, namespace: string, timeoutMs: number): Promise<void> {
  let last: Reply | undefined;
  await until(
    () => `namespace ${namespace} still there: ${last?.text}`,
    async () => (last = await call(url, 'GET', `/api/v1/namespaces/${namespace}`)).status === 404,
    timeoutMs,
    50,
  );
}

async function assertEmpty(url: string, namespace: string): Promise<void> {
  for (const kind of KINDS) {
    const list = await mustOk(call(url, 'GET', collection(kind, namespace)));
    assert.equal(list.json.items.length, 0, `${kind.path} left in ${namespace}`);
  }
}

describe('namespace deletion', { timeout: 120_000 }, () => {
  it('waits 5 seconds after the namespace is marked before emptying it, as the reference', async () => {
    const server = await memoryServer();
    try {
      await mustOk(call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'manifest' } } }), 201);
      for (const name of ['first', 'second']) await mustOk(call(server.url, 'POST', '/api/v1/namespaces/manifest/configmaps', { body: { metadata: { name } } }), 201);
      const marked = Date.now();
      await mustOk(call(server.url, 'DELETE', '/api/v1/namespaces/manifest'));
      // What `kubectl delete -f` does next: the objects of the manifest, one after the other.
      await sleep(1000);
      await mustOk(call(server.url, 'DELETE', '/api/v1/namespaces/manifest/configmaps/first'));
      await sleep(Math.max(0, marked + 4000 - Date.now()));
      await mustOk(call(server.url, 'GET', '/api/v1/namespaces/manifest/configmaps/second'));
      await namespaceGone(server.url, 'manifest', 15_000);
      assert.ok(Date.now() - marked >= 5000, `gone after ${Date.now() - marked} ms`);
      assert.equal((await call(server.url, 'GET', '/api/v1/namespaces/manifest/configmaps/second')).status, 404);
    } finally {
      await server.close();
    }
  });

  it('removes 1,000 objects of 20 resource types, then the namespace', async () => {
    const server = await memoryServer();
    try {
      await fill(server.url, 'crowded', 50);
      const before = await mustOk(call(server.url, 'GET', '/api/v1/namespaces/crowded/configmaps'));
      // 50 of ours plus the namespace's kube-root-ca.crt, when the server publishes one.
      assert.ok(before.json.items.length >= 50);
      const started = Date.now();
      const deleted = await mustOk(call(server.url, 'DELETE', '/api/v1/namespaces/crowded'));
      assert.equal(deleted.json.status.phase, 'Terminating');
      await namespaceGone(server.url, 'crowded', 30_000);
      console.log(`# 1,000 objects of 20 types deleted with their namespace in ${Date.now() - started} ms`);
      await assertEmpty(server.url, 'crowded');
    } finally {
      await server.close();
    }
  });

  it('a restart in the middle of a namespace deletion finishes it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'capstan-nsdel-'));
    const start = () => startServer({ bindAddress: '127.0.0.1', port: 0, storage: 'sqlite', dataDir, insecure: true });
    let server: RunningServer = await start();
    try {
      await fill(server.url, 'interrupted', 10);
      // A finalizer keeps one object (and so the namespace) until after the restart.
      await mustOk(call(server.url, 'POST', '/api/v1/namespaces/interrupted/configmaps', { body: { metadata: { name: 'held', finalizers: ['example.com/hold'] } } }), 201);
      await mustOk(call(server.url, 'DELETE', '/api/v1/namespaces/interrupted'));
      await server.close();
      server = await start();
      const ns = await mustOk(call(server.url, 'GET', '/api/v1/namespaces/interrupted'));
      assert.equal(ns.json.status.phase, 'Terminating');
      // The new server's namespace controller carries on: everything but the held object goes.
      let names: string[] = [];
      await until(() => `left: ${names.join(',')}`, async () => {
        const left = await mustOk(call(server.url, 'GET', '/api/v1/namespaces/interrupted/configmaps'));
        names = left.json.items.map((i: { metadata: { name: string } }) => i.metadata.name);
        return names.length === 1 && names[0] === 'held';
      }, 15_000, 50);
      await mustOk(call(server.url, 'PATCH', '/api/v1/namespaces/interrupted/configmaps/held', {
        body: { metadata: { finalizers: null } }, headers: { 'Content-Type': 'application/merge-patch+json' },
      }));
      await namespaceGone(server.url, 'interrupted', 15_000);
      await assertEmpty(server.url, 'interrupted');
    } finally {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
