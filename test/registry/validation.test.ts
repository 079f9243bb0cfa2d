// Validation through a real server: 422 Status bodies as the reference answers them (fixtures in
// test/fixtures/reference/errors), and refused writes leave the stored object untouched.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/server.js';
import { call, fixture, memoryServer, mustOk, placeholders } from '../helpers.js';

type Obj = Record<string, unknown>;

const NS = '/api/v1/namespaces/ref-errors';

describe('validation through the registry', () => {
  let server: RunningServer;
  const get = (path: string) => mustOk(call(server.url, 'GET', path));

  /** A refused write: the status and body, then the stored object is as it was. */
  async function refused(method: string, path: string, body: unknown, objectPath: string | undefined, status = 422) {
    const before = objectPath ? await get(objectPath) : undefined;
    const reply = await call(server.url, method, path, { body });
    assert.equal(reply.status, status, reply.text);
    if (objectPath && before) {
      const afterwards = await get(objectPath);
      assert.equal(afterwards.json.metadata.resourceVersion, before.json.metadata.resourceVersion);
      assert.deepEqual(afterwards.json, before.json);
    }
    return reply;
  }

  before(async () => {
    // Validation only: no workload controller writes the Deployments here.
    server = await memoryServer({ controllers: ['*', '-deployment', '-replicaset', '-replicationcontroller'] });
    await mustOk(call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'ref-errors' } } }), 201);
  });
  after(() => server.close());

  it('create-pod-without-containers', async () => {
    const f = fixture('errors/create-pod-without-containers');
    const reply = await refused(f.request.method, f.request.path, f.request.body, undefined);
    assert.deepEqual(reply.json, f.response.body);
    assert.equal((await call(server.url, 'GET', `${NS}/pods/empty`)).status, 404);
  });

  it('create-invalid-name-uppercase', async () => {
    const f = fixture('errors/create-invalid-name-uppercase');
    const reply = await refused(f.request.method, f.request.path, f.request.body, undefined);
    assert.deepEqual(reply.json, f.response.body);
  });

  it('create-configmap-over-1mib', async () => {
    const f = fixture('errors/create-configmap-over-1mib');
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'over-1mib' }, data: { big: 'x'.repeat(1048577) } };
    assert.equal(Buffer.byteLength(JSON.stringify(body)), 1048665);
    const reply = await refused(f.request.method, f.request.path, body, undefined);
    assert.deepEqual(reply.json, f.response.body);
  });

  it('update-immutable-configmap', async () => {
    const f = fixture('errors/update-immutable-configmap');
    const created = await mustOk(call(server.url, 'POST', `${NS}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'frozen' }, immutable: true, data: { key: 'value' } } }), 201);
    const body = structuredClone(f.request.body) as Obj;
    const meta = body['metadata'] as Obj;
    meta['uid'] = created.json.metadata.uid;
    meta['resourceVersion'] = created.json.metadata.resourceVersion;
    meta['creationTimestamp'] = created.json.metadata.creationTimestamp;
    delete meta['managedFields'];
    const reply = await refused(f.request.method, f.request.path, body, `${NS}/configmaps/frozen`);
    assert.deepEqual(reply.json, f.response.body);
  });

  it('update-pod-forbidden-field', async () => {
    const f = fixture('errors/update-pod-forbidden-field');
    const sent = structuredClone(f.request.body) as Obj;
    const original = structuredClone(sent);
    ((original['spec'] as Obj)['containers'] as Obj[])[0]!['name'] = 'nginx';
    const originalMeta = original['metadata'] as Obj;
    for (const k of ['uid', 'resourceVersion', 'creationTimestamp', 'managedFields']) delete originalMeta[k];
    delete original['status'];
    const created = await mustOk(call(server.url, 'POST', `${NS}/pods`, { body: original }), 201);
    const meta = sent['metadata'] as Obj;
    meta['uid'] = created.json.metadata.uid;
    meta['resourceVersion'] = created.json.metadata.resourceVersion;
    meta['creationTimestamp'] = created.json.metadata.creationTimestamp;
    delete meta['managedFields'];
    const reply = await refused(f.request.method, f.request.path, sent, `${NS}/pods/nginx`);
    // The volume's random suffix is a placeholder in the fixture.
    assert.deepEqual(JSON.parse(reply.text.replaceAll('kube-api-access-rc2wx', 'kube-api-access-<suffix>')), f.response.body);
  });

  it('a pod update may change images', async () => {
    const pod = await get(`${NS}/pods/nginx`);
    pod.json.spec.containers[0].image = 'nginx:1.26';
    const reply = await mustOk(call(server.url, 'PUT', `${NS}/pods/nginx`, { body: pod.json }));
    assert.equal(reply.json.spec.containers[0].image, 'nginx:1.26');
  });

  it('a JSON merge patch is validated like an update', async () => {
    const before = await get(`${NS}/pods/nginx`);
    const patched = await call(server.url, 'PATCH', `${NS}/pods/nginx`, {
      body: { spec: { restartPolicy: 'Never' } },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    assert.equal(patched.status, 422, patched.text);
    assert.equal(patched.json.details.causes[0].field, 'spec');
    assert.match(patched.json.message, /^Pod "nginx" is invalid: spec: Forbidden: pod updates may not change fields other than/);
    assert.match(patched.json.message, /-\u00a0\tRestartPolicy: +"Always",\n\+\u00a0\tRestartPolicy: +"Never",/);
    assert.deepEqual((await get(`${NS}/pods/nginx`)).json, before.json);
  });

  it('several errors: one cause each, the message listing them in brackets', async () => {
    const reply = await refused('POST', `${NS}/services`, {
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc' },
      spec: { type: 'Cluster', ports: [{ port: 0, protocol: 'TCP', targetPort: 80 }] },
    }, undefined);
    assert.deepEqual(placeholders(reply.json), {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: 'Service "svc" is invalid: [spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive, spec.type: Unsupported value: "Cluster": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"]',
      reason: 'Invalid',
      details: {
        name: 'svc', kind: 'Service',
        causes: [
          { reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be between 1 and 65535, inclusive', field: 'spec.ports[0].port' },
          { reason: 'FieldValueNotSupported', message: 'Unsupported value: "Cluster": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"', field: 'spec.type' },
        ],
      },
      code: 422,
    });
  });

  it('a deployment whose selector does not match its template', async () => {
    const reply = await refused('POST', '/apis/apps/v1/namespaces/ref-errors/deployments', {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' },
      spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'api' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    }, undefined);
    assert.equal(reply.json.message, 'Deployment.apps "web" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"api"}: `selector` does not match template `labels`');
    assert.deepEqual(reply.json.details, { name: 'web', group: 'apps', kind: 'Deployment', causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: map[string]string{"app":"api"}: `selector` does not match template `labels`', field: 'spec.template.metadata.labels' }] });
  });

  it('an immutable selector is refused on update, the deployment left as it was', async () => {
    const path = '/apis/apps/v1/namespaces/ref-errors/deployments';
    const created = await mustOk(call(server.url, 'POST', path, {
      body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web', v: '1' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } },
    }), 201);
    const next = structuredClone(created.json);
    next.spec.selector.matchLabels.v = '1';
    const reply = await refused('PUT', `${path}/web`, next, `${path}/web`);
    assert.equal(reply.json.message, 'Deployment.apps "web" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web", "v":"1"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable');
  });

  it('a role binding cannot change its roleRef', async () => {
    const path = '/apis/rbac.authorization.k8s.io/v1/namespaces/ref-errors/rolebindings';
    const created = await mustOk(call(server.url, 'POST', path, {
      body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'rb' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'User', name: 'jane', apiGroup: 'rbac.authorization.k8s.io' }] },
    }), 201);
    const next = structuredClone(created.json);
    next.roleRef.name = 'edit';
    const reply = await refused('PUT', `${path}/rb`, next, `${path}/rb`);
    assert.equal(reply.json.message, 'RoleBinding.rbac.authorization.k8s.io "rb" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"edit"}: cannot change roleRef');
  });

  it('a job template with restartPolicy Always', async () => {
    const reply = await refused('POST', '/apis/batch/v1/namespaces/ref-errors/jobs', {
      apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' },
      spec: { template: { spec: { restartPolicy: 'Always', containers: [{ name: 'c', image: 'busybox' }] } } },
    }, undefined);
    assert.equal(reply.json.message, 'Job.batch "j" is invalid: spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"');
  });

  it('a malformed quantity is a 400, as the reference decoder answers', async () => {
    const reply = await refused('POST', `${NS}/resourcequotas`, {
      apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard: { pods: 'ten' } },
    }, undefined, 400);
    assert.equal(reply.json.reason, 'BadRequest');
    assert.equal(reply.json.message, `ResourceQuota in version "v1" cannot be handled as a ResourceQuota: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`);
  });

  it('dry-run writes are validated too', async () => {
    const reply = await call(server.url, 'POST', `${NS}/configmaps?dryRun=All`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry' }, data: { 'bad key': 'x' } } });
    assert.equal(reply.status, 422, reply.text);
    assert.equal(reply.json.details.causes[0].field, 'data[bad key]');
  });

  it('status writes are not refused by the main resource rules', async () => {
    const pod = await get(`${NS}/pods/nginx`);
    pod.json.status = { ...pod.json.status, phase: 'Running' };
    const reply = await mustOk(call(server.url, 'PUT', `${NS}/pods/nginx/status`, { body: pod.json }));
    assert.equal(reply.json.status.phase, 'Running');
  });
});
