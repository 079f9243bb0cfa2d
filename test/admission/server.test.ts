// Admission through a real server: what the built-in plugins add to created objects, their refusals
// and warnings as a client sees them, and the --enable/--disable-admission-plugins flags.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/server.js';
import { call, fixture, memoryServer, mustOk } from '../helpers.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test convenience

const nginx = (name: string, spec: Json = {}, metadata: Json = {}) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, ...metadata }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.25' }], ...spec },
});

/** The token volume name with its random suffix as the fixtures write it. */
function withSuffixPlaceholder(spec: Json): Json {
  const copy = structuredClone(spec);
  const name = copy.volumes?.[0]?.name as string | undefined;
  if (name) {
    copy.volumes[0].name = name.replace(/-[a-z0-9]{5}$/, '-<suffix>');
    for (const c of copy.containers) for (const m of c.volumeMounts ?? []) if (m.name === name) m.name = copy.volumes[0].name;
  }
  return copy;
}

async function namespace(base: string, name: string, labels?: Record<string, string>): Promise<void> {
  await mustOk(call(base, 'POST', '/api/v1/namespaces', { body: { metadata: { name, labels } } }), 201);
}

describe('admission plugins on by default', () => {
  let server: RunningServer;
  before(async () => {
    // The Deployment here is only for its admission warning: no controller makes its pods.
    server = await memoryServer({ controllers: ['*', '-deployment', '-replicaset', '-replicationcontroller'] });
    await namespace(server.url, 'ref-create');
  });
  after(() => server.close());

  it('give a pod what the reference\'s plugins give it (account, token volume, tolerations, priority)', async () => {
    const f = fixture('create/core-v1-pods');
    const r = await mustOk(call(server.url, f.request.method, f.request.path, { body: f.request.body }), 201);
    const want = (f.response.body as Json).spec;
    const got = withSuffixPlaceholder(r.json.spec);
    for (const key of ['volumes', 'serviceAccountName', 'serviceAccount', 'tolerations', 'priority', 'preemptionPolicy']) {
      assert.deepEqual(got[key], want[key], key);
    }
    assert.deepEqual(got.containers[0].volumeMounts, want.containers[0].volumeMounts);
    // Fields were recorded as the writer sent them, before admission added its own.
    assert.equal(JSON.stringify(r.json.metadata.managedFields).includes('f:volumes'), false);
    // And what was answered is what was stored.
    const stored = await mustOk(call(server.url, 'GET', `${f.request.path}/nginx`));
    assert.deepEqual(stored.json.spec, r.json.spec);
  });

  for (const name of ['core-v1-persistentvolumeclaims', 'core-v1-persistentvolumes', 'core-v1-nodes']) {
    it(`add what the reference adds to ${name.slice(8)}`, async () => {
      const f = fixture(`create/${name}`);
      const r = await mustOk(call(server.url, f.request.method, f.request.path, { body: f.request.body }), 201);
      const want = f.response.body as Json;
      if (name.endsWith('nodes')) assert.deepEqual(r.json.spec.taints, want.spec.taints);
      else assert.deepEqual(r.json.metadata.finalizers, want.metadata.finalizers);
    });
  }

  it('refuse a pod of an unknown PriorityClass with the reference\'s Status, storing nothing', async () => {
    const r = await call(server.url, 'POST', '/api/v1/namespaces/ref-create/pods', { body: nginx('p1', { priorityClassName: 'gold' }) });
    assert.deepEqual(r.json, {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: 'pods "p1" is forbidden: no PriorityClass with name gold was found', reason: 'Forbidden', details: { name: 'p1', kind: 'pods' }, code: 403,
    });
    assert.equal((await call(server.url, 'GET', '/api/v1/namespaces/ref-create/pods/p1')).status, 404);
  });

  it('resolve the system priority classes the server creates at start', async () => {
    const r = await mustOk(call(server.url, 'POST', '/api/v1/namespaces/ref-create/pods', { body: nginx('critical', { priorityClassName: 'system-node-critical' }) }), 201);
    assert.equal(r.json.spec.priority, 2000001000);
    const classes = await mustOk(call(server.url, 'GET', '/apis/scheduling.k8s.io/v1/priorityclasses'));
    assert.deepEqual(classes.json.items.map((pc: Json) => [pc.metadata.name, pc.value, pc.globalDefault]), [
      ['system-cluster-critical', 2000000000, undefined], ['system-node-critical', 2000001000, undefined],
    ]);
  });

  it('enforce Pod Security: 403 in a restricted namespace, storing nothing', async () => {
    await namespace(server.url, 'locked', { 'pod-security.kubernetes.io/enforce': 'restricted' });
    const r = await call(server.url, 'POST', '/api/v1/namespaces/locked/pods', { body: nginx('web') });
    assert.equal(r.status, 403);
    assert.deepEqual(r.json, {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: 'pods "web" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "nginx" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "nginx" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "nginx" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "nginx" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
      reason: 'Forbidden', details: { name: 'web', kind: 'pods' }, code: 403,
    });
    assert.equal((await call(server.url, 'GET', '/api/v1/namespaces/locked/pods/web')).status, 404);
  });

  it('warn about Pod Security with Warning headers, for pods and workloads', async () => {
    await namespace(server.url, 'watched', { 'pod-security.kubernetes.io/warn': 'baseline' });
    const r = await mustOk(call(server.url, 'POST', '/api/v1/namespaces/watched/pods', { body: nginx('web', { hostNetwork: true }) }), 201);
    assert.deepEqual(r.headers['warning'], '299 - "would violate PodSecurity \\"baseline:latest\\": host namespaces (hostNetwork=true)"');
    const deployment = {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' },
      spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { hostPID: true, containers: [{ name: 'c', image: 'x' }] } } },
    };
    const d = await mustOk(call(server.url, 'POST', '/apis/apps/v1/namespaces/watched/deployments', { body: deployment }), 201);
    assert.deepEqual(d.headers['warning'], '299 - "would violate PodSecurity \\"baseline:latest\\": host namespaces (hostPID=true)"');
  });

  it('refuse invalid Pod Security labels, and warn when labelling a namespace whose pods would fail', async () => {
    const bad = await call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'typo', labels: { 'pod-security.kubernetes.io/enforce': 'restrict' } } } });
    assert.equal(bad.status, 422);
    assert.equal(bad.json.message, 'Namespace "typo" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "restrict": must be one of privileged, baseline, restricted');
    assert.equal((await call(server.url, 'GET', '/api/v1/namespaces/typo')).status, 404);
    const r = await mustOk(call(server.url, 'PATCH', '/api/v1/namespaces/watched', {
      body: { metadata: { labels: { 'pod-security.kubernetes.io/enforce': 'baseline' } } }, headers: { 'Content-Type': 'application/merge-patch+json' },
    }));
    // Node's client joins repeated Warning headers with ", ".
    assert.equal(r.headers['warning'], [
      '299 - "existing pods in namespace \\"watched\\" violate the new PodSecurity enforce level \\"baseline:latest\\""',
      '299 - "web: host namespaces"',
    ].join(', '));
  });
});

describe('admission plugin flags', () => {
  it('--disable-admission-plugins=ServiceAccount,Priority leaves pods without account, token volume or priority', async () => {
    const server = await memoryServer({ disableAdmissionPlugins: ['ServiceAccount', 'Priority'] });
    try {
      const r = await mustOk(call(server.url, 'POST', '/api/v1/namespaces/default/pods', { body: nginx('p') }), 201);
      for (const key of ['serviceAccountName', 'serviceAccount', 'volumes', 'priority', 'preemptionPolicy']) assert.equal(r.json.spec[key], undefined, key);
      assert.ok(r.json.spec.tolerations, 'the other plugins still run');
      assert.equal(r.json.spec.containers[0].volumeMounts, undefined);
    } finally {
      await server.close();
    }
  });

  it('--enable-admission-plugins=AlwaysDeny refuses every write and stores nothing', async () => {
    const server = await memoryServer({ enableAdmissionPlugins: ['AlwaysDeny'] });
    try {
      const r = await call(server.url, 'POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'cm' } } });
      assert.deepEqual(r.json, {
        kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
        message: 'configmaps "cm" is forbidden: admission control is denying all modifications', reason: 'Forbidden', details: { name: 'cm', kind: 'configmaps' }, code: 403,
      });
      assert.equal((await call(server.url, 'GET', '/api/v1/namespaces/default/configmaps/cm')).status, 404);
    } finally {
      await server.close();
    }
  });

  it('--enable-admission-plugins=AlwaysPullImages,DenyServiceExternalIPs', async () => {
    const server = await memoryServer({ enableAdmissionPlugins: ['AlwaysPullImages', 'DenyServiceExternalIPs'] });
    try {
      const p = await mustOk(call(server.url, 'POST', '/api/v1/namespaces/default/pods', { body: nginx('p', { containers: [{ name: 'c', image: 'x', imagePullPolicy: 'Never' }] }) }), 201);
      assert.equal(p.json.spec.containers[0].imagePullPolicy, 'Always');
      const svc = await call(server.url, 'POST', '/api/v1/namespaces/default/services', { body: { metadata: { name: 's' }, spec: { ports: [{ port: 80 }], externalIPs: ['1.2.3.4'] } } });
      assert.equal(svc.status, 403);
      assert.equal(svc.json.message, 'services "s" is forbidden: Use of external IPs is denied by admission control');
    } finally {
      await server.close();
    }
  });

  it('--disable-admission-plugins=NamespaceLifecycle lifts the namespace rules', async () => {
    const server = await memoryServer({ disableAdmissionPlugins: ['NamespaceLifecycle'] });
    try {
      await mustOk(call(server.url, 'POST', '/api/v1/namespaces/nowhere/configmaps', { body: { metadata: { name: 'cm' } } }), 201);
      await mustOk(call(server.url, 'DELETE', '/api/v1/namespaces/kube-public'));
    } finally {
      await server.close();
    }
    const guarded = await memoryServer({ namespaceDefaults: false });
    try {
      const r = await call(guarded.url, 'DELETE', '/api/v1/namespaces/kube-public');
      assert.equal(r.json.message, 'namespaces "kube-public" is forbidden: this namespace may not be deleted');
    } finally {
      await guarded.close();
    }
  });
});
