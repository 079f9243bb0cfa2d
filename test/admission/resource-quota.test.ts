// ResourceQuota: the admission plugin (charges, 403 refusals, dry runs, scopes) and the quota
// controller (status.hard, usage given back after deletes), through a real server.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/server.js';
import { call, fixture, memoryServer, mustOk, placeholders, until, withoutManagedFields } from '../helpers.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test convenience

function pod(name: string, requests?: Record<string, string>, extra: { spec?: Json; limits?: Record<string, string> } = {}): Json {
  const resources: Json = {};
  if (extra.limits) resources['limits'] = extra.limits;
  if (requests) resources['requests'] = requests;
  return { metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx', resources }], ...extra.spec } };
}

describe('ResourceQuota', () => {
  let server: RunningServer;
  let url: string;
  let n = 0;

  before(async () => {
    // Claims grow here without a bound volume or an expandable class: the resize plugin is not under test.
    // The binder would reset the phase a test writes by hand on a claim no volume fits.
    server = await memoryServer({ disableAdmissionPlugins: ['PersistentVolumeClaimResize'], controllers: ['*', '-persistentvolume-binder'] });
    url = server.url;
  });
  after(() => server.close());

  async function namespace(): Promise<string> {
    const name = `quota-${++n}`;
    await mustOk(call(url, 'POST', '/api/v1/namespaces', { body: { metadata: { name } } }), 201);
    return name;
  }

  /** Polls the quota until `done` holds for it (the controller works asynchronously). */
  async function quotaWhen(ns: string, name: string, done: (q: Json) => boolean): Promise<Json> {
    let last: Json = {};
    return until(() => `quota never reached the expected state: ${JSON.stringify(last.status)}`, async () => {
      last = (await mustOk(call(url, 'GET', `/api/v1/namespaces/${ns}/resourcequotas/${name}`))).json;
      return done(last) ? last : undefined;
    }, 10_000, 10);
  }

  /** Creates a quota and waits for the controller to record it. */
  async function quota(ns: string, name: string, spec: Json): Promise<Json> {
    await mustOk(call(url, 'POST', `/api/v1/namespaces/${ns}/resourcequotas`, { body: { metadata: { name }, spec } }), 201);
    return quotaWhen(ns, name, (q) => q.status?.used !== undefined);
  }

  const used = async (ns: string, name: string): Promise<Json> =>
    (await mustOk(call(url, 'GET', `/api/v1/namespaces/${ns}/resourcequotas/${name}`))).json.status.used;

  it('answers the create as the reference (empty status); the controller then records hard and used, shown in the Table', async () => {
    const c = fixture('create/core-v1-resourcequotas');
    await mustOk(call(url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'ref-create-quota' } } }), 201);
    const created = await mustOk(call(url, 'POST', c.request.path, { body: c.request.body }), 201);
    assert.deepEqual(withoutManagedFields(placeholders(created.json)), withoutManagedFields(c.response.body));
    const recorded = await quotaWhen('ref-create-quota', 'compute-quota', (q) => q.status?.used !== undefined);
    assert.deepEqual(recorded.status, {
      hard: { pods: '10', 'requests.cpu': '4', 'requests.memory': '8Gi' },
      used: { pods: '0', 'requests.cpu': '0', 'requests.memory': '0' },
    });
    const status = recorded.metadata.managedFields.find((m: Json) => m.subresource === 'status');
    assert.equal(status.manager, 'kube-controller-manager');
    const t = fixture('table/core-v1-resourcequotas');
    const table = await mustOk(call(url, 'GET', t.request.path, { headers: { Accept: t.request.headers['Accept']! } }));
    const expected = t.response.body as { rows: Array<{ cells: unknown[] }> };
    assert.deepEqual(table.json.rows[0].cells.slice(2), expected.rows[0]!.cells.slice(2));
  });

  it('refuses a pod past the limit with the reference 403, stores nothing, and charges what it admits', async () => {
    const ns = await namespace();
    await quota(ns, 'q', { hard: { pods: '2', 'requests.cpu': '1', 'requests.memory': '1Gi' } });
    await mustOk(call(url, 'POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('a', { cpu: '400m', memory: '0.5Gi' }) }), 201);
    assert.deepEqual(await used(ns, 'q'), { pods: '1', 'requests.cpu': '400m', 'requests.memory': '512Mi' });
    await mustOk(call(url, 'POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('b', { cpu: '0.5', memory: '512Mi' }) }), 201);
    assert.deepEqual(await used(ns, 'q'), { pods: '2', 'requests.cpu': '900m', 'requests.memory': '1Gi' });

    const refused = await call(url, 'POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('c', { cpu: '100m', memory: '1Mi' }) });
    assert.equal(refused.status, 403);
    assert.deepEqual(refused.json, {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: 'pods "c" is forbidden: exceeded quota: q, requested: pods=1,requests.memory=1Mi, used: pods=2,requests.memory=1Gi, limited: pods=2,requests.memory=1Gi',
      reason: 'Forbidden', details: { name: 'c', kind: 'pods' }, code: 403,
    });
    assert.equal((await call(url, 'GET', `/api/v1/namespaces/${ns}/pods/c`)).status, 404);
    assert.deepEqual(await used(ns, 'q'), { pods: '2', 'requests.cpu': '900m', 'requests.memory': '1Gi' });

    // A create of a name already taken is refused by storage and charges nothing.
    assert.equal((await call(url, 'POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('a', { cpu: '1m', memory: '1' }) })).status, 409);
  });

  it('names the containers that must state what a cpu or memory quota tracks', async () => {
    const ns = await namespace();
    await quota(ns, 'compute', { hard: { 'limits.cpu': '2', 'requests.memory': '1Gi' } });
    const refused = await call(url, 'POST', `/api/v1/namespaces/${ns}/pods`, {
      body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'web', image: 'x' }, { name: 'log', image: 'x', resources: { limits: { cpu: '1' } } }] } },
    });
    assert.equal(refused.status, 403);
    assert.equal(refused.json.message, 'pods "p" is forbidden: failed quota: compute: must specify limits.cpu for: web; requests.memory for: log,web');
  });

  it('gives usage back after a delete, and stops counting pods that finished', async () => {
    const ns = await namespace();
    await quota(ns, 'q', { hard: { pods: '5', 'count/pods': '5', 'requests.memory': '4Gi' } });
    for (const name of ['a', 'b']) await mustOk(call(url, 'POST', `/api/v1/namespaces/${ns}/pods`, { body: pod(name, { memory: '1.5Gi' }) }), 201);
    assert.deepEqual(await used(ns, 'q'), { 'count/pods': '2', pods: '2', 'requests.memory': '3Gi' });
    await mustOk(call(url, 'DELETE', `/api/v1/namespaces/${ns}/pods/a`));
    await quotaWhen(ns, 'q', (q) => q.status.used.pods === '1' && q.status.used['requests.memory'] === '1536Mi' && q.status.used['count/pods'] === '1');
    // A Succeeded pod still exists (count/pods) but no longer uses compute quota.
    const b = (await mustOk(call(url, 'GET', `/api/v1/namespaces/${ns}/pods/b`))).json;
    await mustOk(call(url, 'PUT', `/api/v1/namespaces/${ns}/pods/b/status`, { body: { ...b, status: { phase: 'Succeeded' } } }));
    await quotaWhen(ns, 'q', (q) => q.status.used.pods === '0' && q.status.used['requests.memory'] === '0' && q.status.used['count/pods'] === '1');
  });

  it('does not charge dry runs', async () => {
    const ns = await namespace();
    await quota(ns, 'q', { hard: { pods: '1' } });
    await mustOk(call(url, 'POST', `/api/v1/namespaces/${ns}/pods?dryRun=All`, { body: pod('dry') }), 201);
    assert.deepEqual(await used(ns, 'q'), { pods: '0' });
    await mustOk(call(url, 'POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('real') }), 201);
    const refused = await call(url, 'POST', `/api/v1/namespaces/${ns}/pods?dryRun=All`, { body: pod('dry2') });
    assert.equal(refused.status, 403);
    assert.match(refused.json.message, /exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1$/);
  });

  it('applies scoped quotas only to the pods in their scopes', async () => {
    const ns = await namespace();
    for (const [name, value] of [['high', 1000], ['low', 10]] as const) {
      const r = await call(url, 'POST', '/apis/scheduling.k8s.io/v1/priorityclasses', { body: { metadata: { name }, value } });
      assert.ok(r.status === 201 || r.status === 409, r.text);
    }
    await quota(ns, 'besteffort', { hard: { pods: '1' }, scopes: ['BestEffort'] });
    await quota(ns, 'terminating', { hard: { pods: '1' }, scopes: ['Terminating'] });
    await quota(ns, 'high', { hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } });
    // BestEffort: no cpu or memory anywhere.
    await mustOk(call(url, 'POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('be1') }), 201);
    const be2 = await call(url, 'POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('be2') });
    assert.equal(be2.status, 403);
    assert.match(be2.json.message, /exceeded quota: besteffort/);
    await mustOk(call(url, 'POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('burstable', { cpu: '10m' }) }), 201);
    // Terminating: activeDeadlineSeconds set.
    await mustOk(call(url, 'POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('job1', { cpu: '10m' }, { spec: { activeDeadlineSeconds: 60 } }) }), 201);
    assert.equal((await call(url, 'POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('job2', { cpu: '10m' }, { spec: { activeDeadlineSeconds: 60 } }) })).status, 403);
    // PriorityClass In [high].
    await mustOk(call(url, 'POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('hi1', { cpu: '10m' }, { spec: { priorityClassName: 'high' } }) }), 201);
    const hi2 = await call(url, 'POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('hi2', { cpu: '10m' }, { spec: { priorityClassName: 'high' } }) });
    assert.equal(hi2.status, 403);
    assert.match(hi2.json.message, /exceeded quota: high/);
    await mustOk(call(url, 'POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('lo', { cpu: '10m' }, { spec: { priorityClassName: 'low' } }) }), 201);
    assert.deepEqual(await used(ns, 'besteffort'), { pods: '1' });
    assert.deepEqual(await used(ns, 'terminating'), { pods: '1' });
    assert.deepEqual(await used(ns, 'high'), { pods: '1' });
  });

  it('counts objects by count/<resource>.<group> and the legacy names; services by node ports and load balancers', async () => {
    const ns = await namespace();
    await quota(ns, 'objects', { hard: { configmaps: '1', 'count/deployments.apps': '0', 'services.nodeports': '1', 'services.loadbalancers': '0' } });
    await mustOk(call(url, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'one' } } }), 201);
    const second = await call(url, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'two' } } });
    assert.equal(second.json.message, 'configmaps "two" is forbidden: exceeded quota: objects, requested: configmaps=1, used: configmaps=1, limited: configmaps=1');
    const deployment = await call(url, 'POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
      body: { metadata: { name: 'd' }, spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } } },
    });
    assert.deepEqual(deployment.json.details, { name: 'd', group: 'apps', kind: 'deployments' });
    assert.equal(deployment.json.message, 'deployments.apps "d" is forbidden: exceeded quota: objects, requested: count/deployments.apps=1, used: count/deployments.apps=0, limited: count/deployments.apps=0');
    const svc = (name: string, type: string, ports: number) => ({
      metadata: { name }, spec: { type, ports: Array.from({ length: ports }, (_, i) => ({ name: `p${i}`, port: 80 + i })), selector: { a: 'b' } },
    });
    await mustOk(call(url, 'POST', `/api/v1/namespaces/${ns}/services`, { body: svc('plain', 'ClusterIP', 2) }), 201);
    const nodePorts = await call(url, 'POST', `/api/v1/namespaces/${ns}/services`, { body: svc('np', 'NodePort', 2) });
    assert.match(nodePorts.json.message, /exceeded quota: objects, requested: services.nodeports=2, used: services.nodeports=0, limited: services.nodeports=1$/);
    const lb = await call(url, 'POST', `/api/v1/namespaces/${ns}/services`, { body: svc('lb', 'LoadBalancer', 1) });
    assert.match(lb.json.message, /requested: services.loadbalancers=1, used: services.loadbalancers=0, limited: services.loadbalancers=0$/);
    assert.deepEqual(await used(ns, 'objects'), { configmaps: '1', 'count/deployments.apps': '0', 'services.loadbalancers': '0', 'services.nodeports': '0' });
  });

  it('charges claims their storage (per storage class too) and refuses a growth past the limit', async () => {
    const ns = await namespace();
    await quota(ns, 'storage', { hard: { 'requests.storage': '10Gi', 'gold.storageclass.storage.k8s.io/requests.storage': '3Gi', persistentvolumeclaims: '5' } });
    const claim = (name: string, size: string, storageClassName?: string) => ({
      metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } }, ...(storageClassName ? { storageClassName } : {}) },
    });
    await mustOk(call(url, 'POST', `/api/v1/namespaces/${ns}/persistentvolumeclaims`, { body: claim('plain', '4Gi') }), 201);
    await mustOk(call(url, 'POST', `/api/v1/namespaces/${ns}/persistentvolumeclaims`, { body: claim('gold', '2Gi', 'gold') }), 201);
    assert.deepEqual(await used(ns, 'storage'), { 'gold.storageclass.storage.k8s.io/requests.storage': '2Gi', persistentvolumeclaims: '2', 'requests.storage': '6Gi' });
    // Only a bound claim may grow (validation answers 422 first otherwise).
    await mustOk(call(url, 'PATCH', `/api/v1/namespaces/${ns}/persistentvolumeclaims/plain/status`, { body: { status: { phase: 'Bound' } }, headers: { 'Content-Type': 'application/merge-patch+json' } }));
    const tooBig = await call(url, 'POST', `/api/v1/namespaces/${ns}/persistentvolumeclaims`, { body: claim('gold2', '2Gi', 'gold') });
    assert.equal(tooBig.json.message, 'persistentvolumeclaims "gold2" is forbidden: exceeded quota: storage, requested: gold.storageclass.storage.k8s.io/requests.storage=2Gi, used: gold.storageclass.storage.k8s.io/requests.storage=2Gi, limited: gold.storageclass.storage.k8s.io/requests.storage=3Gi');
    // Growing a claim is charged the difference.
    const grow = await call(url, 'PATCH', `/api/v1/namespaces/${ns}/persistentvolumeclaims/plain`, {
      body: { spec: { resources: { requests: { storage: '9Gi' } } } }, headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    assert.equal(grow.status, 403);
    assert.equal(grow.json.message, 'persistentvolumeclaims "plain" is forbidden: exceeded quota: storage, requested: requests.storage=5Gi, used: requests.storage=6Gi, limited: requests.storage=10Gi');
    await mustOk(call(url, 'PATCH', `/api/v1/namespaces/${ns}/persistentvolumeclaims/plain`, {
      body: { spec: { resources: { requests: { storage: '8Gi' } } } }, headers: { 'Content-Type': 'application/merge-patch+json' },
    }));
    assert.equal((await used(ns, 'storage'))['requests.storage'], '10Gi');
  });

  it('costs nothing where a namespace has no quota', async () => {
    const ns = await namespace();
    await mustOk(call(url, 'POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('free') }), 201);
  });
});
