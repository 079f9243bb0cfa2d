// The garbage collector over HTTP: ownerReferences chains deleted with each propagationPolicy,
// several owners, dangling references, cross-kind and cluster-scoped owners, and a restart.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { defaultEnabled } from '../../src/api/catalog.js';
import { builtinResourceDefinitions } from '../../src/registry/builtin/index.js';
import { GarbageCollector } from '../../src/controllers/gc.js';
import { Registry } from '../../src/registry/store.js';
import type { RunningServer } from '../../src/server/server.js';
import { call, memoryServer, sleep, until, type Reply } from '../helpers.js';

const NS = 'default';
const DEPLOY = `/apis/apps/v1/namespaces/${NS}/deployments`;
const RS = `/apis/apps/v1/namespaces/${NS}/replicasets`;
const POD = `/api/v1/namespaces/${NS}/pods`;
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const MERGE = { 'Content-Type': 'application/merge-patch+json' };

interface Ref { apiVersion: string; kind: string; name: string; uid: string; controller?: boolean; blockOwnerDeletion?: boolean }

const podTemplate = (app: string) => ({ metadata: { labels: { app } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });

function ref(obj: Reply, block = true): Ref {
  return { apiVersion: obj.json.apiVersion, kind: obj.json.kind, name: obj.json.metadata.name, uid: obj.json.metadata.uid, controller: true, blockOwnerDeletion: block };
}

describe('garbage collector', () => {
  let server: RunningServer;
  let registry: Registry;
  let gc: GarbageCollector;
  const get = (path: string) => call(server.url, 'GET', path);
  const gone = async (path: string) => (await get(path)).status === 404;
  const create = async (path: string, body: unknown) => {
    const r = await call(server.url, 'POST', path, { body });
    assert.equal(r.status, 201, r.text);
    return r;
  };
  const del = (path: string, propagationPolicy?: string) =>
    call(server.url, 'DELETE', path, propagationPolicy ? { body: { propagationPolicy } } : {});

  /** Deployment → ReplicaSet → Pod, linked by ownerReferences with uids. */
  async function chain(name: string, options: { podFinalizer?: string; block?: boolean } = {}) {
    const block = options.block ?? true;
    const deploy = await create(DEPLOY, {
      metadata: { name }, spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: podTemplate(name) },
    });
    const rs = await create(RS, {
      metadata: { name: `${name}-rs`, ownerReferences: [ref(deploy, block)] },
      spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: podTemplate(name) },
    });
    const pod = await create(POD, {
      metadata: { name: `${name}-pod`, labels: { app: name }, ownerReferences: [ref(rs, block)], ...(options.podFinalizer ? { finalizers: [options.podFinalizer] } : {}) },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
    });
    return { deploy, rs, pod, paths: { deploy: `${DEPLOY}/${name}`, rs: `${RS}/${name}-rs`, pod: `${POD}/${name}-pod` } };
  }

  before(async () => {
    // The tests run (and stop) their own collector, over chains of owners they build by hand (no workload controller adds to them).
    server = await memoryServer({ garbageCollector: false, controllers: ['*', '-deployment', '-replicaset', '-replicationcontroller'] });
    // The collector as the server would run it: a client of a registry over the server's storage.
    registry = new Registry(builtinResourceDefinitions(defaultEnabled), server.storage);
    gc = new GarbageCollector(registry);
    await gc.start();
  });
  after(async () => {
    gc.stop();
    await server.close();
  });

  it('Background: the owner goes at once, then its dependents and theirs', async () => {
    const { paths } = await chain('bg');
    const r = await del(paths.deploy, 'Background');
    assert.equal(r.status, 200, r.text);
    assert.ok(await gone(paths.deploy));
    await until('replicaset and pod deleted', async () => (await gone(paths.rs)) && (await gone(paths.pod)));
  });

  it('the default policy collects like Background', async () => {
    const { paths } = await chain('dflt');
    assert.equal((await del(paths.deploy)).status, 200);
    await until('replicaset and pod deleted', async () => (await gone(paths.rs)) && (await gone(paths.pod)));
  });

  it('Foreground: the owner stays, marked, until its blocking dependents are gone', async () => {
    const { paths } = await chain('fg', { podFinalizer: 'example.com/hold' });
    const r = await del(paths.deploy, 'Foreground');
    assert.equal(r.status, 200, r.text);
    assert.ok(r.json.metadata.deletionTimestamp);
    assert.deepEqual(r.json.metadata.finalizers, ['foregroundDeletion']);
    // The pod is deleted (held by its own finalizer); the replicaset, which has dependents, waits in foreground too.
    await until('pod terminating', async () => Boolean((await get(paths.pod)).json.metadata?.deletionTimestamp));
    await until('replicaset waiting in foreground', async () => {
      const rs = (await get(paths.rs)).json;
      return Boolean(rs.metadata?.deletionTimestamp) && (rs.metadata.finalizers ?? []).includes('foregroundDeletion');
    });
    await sleep(200);
    const owner = await get(paths.deploy);
    assert.equal(owner.status, 200);
    assert.ok(owner.json.metadata.deletionTimestamp);
    assert.deepEqual(owner.json.metadata.finalizers, ['foregroundDeletion']);
    // Releasing the pod lets the whole chain go, bottom up.
    const released = await call(server.url, 'PATCH', paths.pod, { body: { metadata: { finalizers: null } }, headers: MERGE });
    assert.equal(released.status, 200, released.text);
    await until('chain deleted', async () => (await gone(paths.pod)) && (await gone(paths.rs)) && (await gone(paths.deploy)));
  });

  it('Foreground does not wait for dependents without blockOwnerDeletion', async () => {
    const { paths } = await chain('fgnb', { podFinalizer: 'example.com/hold', block: false });
    assert.equal((await del(paths.deploy, 'Foreground')).status, 200);
    await until('owner and replicaset deleted', async () => (await gone(paths.deploy)) && (await gone(paths.rs)));
    await until('pod terminating', async () => Boolean((await get(paths.pod)).json.metadata?.deletionTimestamp));
    await call(server.url, 'PATCH', paths.pod, { body: { metadata: { finalizers: null } }, headers: MERGE });
    await until('pod deleted', () => gone(paths.pod));
  });

  it('Orphan: the owner goes, its dependents stay without the reference', async () => {
    const { rs, paths } = await chain('orph');
    const r = await del(paths.deploy, 'Orphan');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.metadata.finalizers, ['orphan']);
    await until('owner deleted', () => gone(paths.deploy));
    await sleep(200);
    const left = await get(paths.rs);
    assert.equal(left.status, 200);
    assert.equal(left.json.metadata.ownerReferences, undefined);
    const pod = await get(paths.pod);
    assert.equal(pod.status, 200);
    assert.deepEqual(pod.json.metadata.ownerReferences.map((o: Ref) => o.uid), [rs.json.metadata.uid]);
  });

  it('a dependent with two owners survives the deletion of one, and loses only its reference', async () => {
    const a = await create(CM, { metadata: { name: 'owner-a' } });
    const b = await create(CM, { metadata: { name: 'owner-b' } });
    await create(CM, { metadata: { name: 'two-owners', ownerReferences: [ref(a), { ...ref(b), controller: false }] } });
    assert.equal((await del(`${CM}/owner-a`, 'Background')).status, 200);
    await until('reference to owner-a removed', async () => {
      const dep = await get(`${CM}/two-owners`);
      return dep.status === 200 && dep.json.metadata.ownerReferences.length === 1;
    });
    const dep = await get(`${CM}/two-owners`);
    assert.equal(dep.json.metadata.ownerReferences[0].uid, b.json.metadata.uid);
    assert.equal((await del(`${CM}/owner-b`)).status, 200);
    await until('dependent deleted with its last owner', () => gone(`${CM}/two-owners`));
  });

  it('a dangling owner reference (the uid of nothing) gets the dependent deleted', async () => {
    await create(CM, { metadata: { name: 'dangling', ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'nothing-here', uid: randomUUID() }] } });
    await until('dangling dependent deleted', () => gone(`${CM}/dangling`));
    // An owner of that name with another uid is not the owner named.
    const impostor = await create(CM, { metadata: { name: 'impostor' } });
    await create(CM, { metadata: { name: 'wrong-uid', ownerReferences: [{ ...ref(impostor), uid: randomUUID() }] } });
    await until('dependent of a wrong uid deleted', () => gone(`${CM}/wrong-uid`));
    assert.equal((await get(`${CM}/impostor`)).status, 200);
  });

  it('a reference to a kind nothing serves is left alone', async () => {
    await create(CM, { metadata: { name: 'unknown-kind', ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: randomUUID() }] } });
    await sleep(300);
    assert.equal((await get(`${CM}/unknown-kind`)).status, 200);
  });

  it('cross-kind: a ConfigMap owned by a Pod goes with the Pod', async () => {
    const pod = await create(POD, { metadata: { name: 'cm-owner' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    await create(CM, { metadata: { name: 'pod-owned', ownerReferences: [ref(pod)] } });
    await sleep(100);
    assert.equal((await get(`${CM}/pod-owned`)).status, 200);
    assert.equal((await del(`${POD}/cm-owner`)).status, 200);
    await until('configmap deleted', () => gone(`${CM}/pod-owned`));
  });

  it('a namespaced dependent of a cluster-scoped owner goes with it', async () => {
    const role = await create('/apis/rbac.authorization.k8s.io/v1/clusterroles', { metadata: { name: 'gc-test-owner' }, rules: [] });
    await create(CM, { metadata: { name: 'role-owned', ownerReferences: [ref(role)] } });
    await sleep(100);
    assert.equal((await get(`${CM}/role-owned`)).status, 200);
    assert.equal((await del('/apis/rbac.authorization.k8s.io/v1/clusterroles/gc-test-owner')).status, 200);
    await until('configmap deleted', () => gone(`${CM}/role-owned`));
  });

  it('finishes, after a restart, what was left while it was not running', async () => {
    gc.stop();
    try {
      const { paths } = await chain('restart', { podFinalizer: 'example.com/hold' });
      assert.equal((await del(paths.deploy, 'Foreground')).status, 200);
      const orphanOwner = await create(CM, { metadata: { name: 'restart-orphan-owner' } });
      await create(CM, { metadata: { name: 'restart-orphan-dep', ownerReferences: [ref(orphanOwner)] } });
      assert.equal((await del(`${CM}/restart-orphan-owner`, 'Orphan')).status, 200);
      await sleep(200);
      assert.equal((await get(paths.rs)).status, 200);
      assert.equal((await get(`${CM}/restart-orphan-owner`)).status, 200);
      gc = new GarbageCollector(registry);
      await gc.start();
      await until('pod terminating', async () => Boolean((await get(paths.pod)).json.metadata?.deletionTimestamp));
      await call(server.url, 'PATCH', paths.pod, { body: { metadata: { finalizers: null } }, headers: MERGE });
      await until('chain deleted', async () => (await gone(paths.pod)) && (await gone(paths.rs)) && (await gone(paths.deploy)));
      await until('orphaning finished', () => gone(`${CM}/restart-orphan-owner`));
      const dep = await get(`${CM}/restart-orphan-dep`);
      assert.equal(dep.status, 200);
      assert.equal(dep.json.metadata.ownerReferences, undefined);
    } finally {
      gc.stop();
      gc = new GarbageCollector(registry);
      await gc.start();
    }
  });

  it('an explicit Background on an object waiting in Foreground lets it go at once', async () => {
    const { paths } = await chain('switch', { podFinalizer: 'example.com/hold' });
    assert.equal((await del(paths.deploy, 'Foreground')).status, 200);
    await until('pod terminating', async () => Boolean((await get(paths.pod)).json.metadata?.deletionTimestamp));
    assert.equal((await get(paths.deploy)).status, 200);
    assert.equal((await del(paths.deploy, 'Background')).status, 200);
    await until('owner deleted', () => gone(paths.deploy));
    await call(server.url, 'PATCH', paths.pod, { body: { metadata: { finalizers: null } }, headers: MERGE });
    await until('rest deleted', async () => (await gone(paths.pod)) && (await gone(paths.rs)));
  });

  it('a v1 ReplicationController orphans its pods by default; orphanDependents=false cascades with 202', async () => {
    const RC = `/api/v1/namespaces/${NS}/replicationcontrollers`;
    const rc = await create(RC, { metadata: { name: 'legacy' }, spec: { replicas: 0, selector: { app: 'legacy' }, template: podTemplate('legacy') } });
    await create(POD, { metadata: { name: 'legacy-pod', ownerReferences: [ref(rc)] }, spec: podTemplate('legacy').spec });
    const deleted = await del(`${RC}/legacy`);
    assert.equal(deleted.status, 200);
    assert.deepEqual(deleted.json.metadata.finalizers, ['orphan'], 'held by the orphan finalizer');
    await until('rc deleted', () => gone(`${RC}/legacy`));
    const pod = await get(`${POD}/legacy-pod`);
    assert.equal(pod.status, 200);
    assert.equal(pod.json.metadata.ownerReferences, undefined);

    const rc2 = await create(RC, { metadata: { name: 'legacy2' }, spec: { replicas: 0, selector: { app: 'legacy2' }, template: podTemplate('legacy2') } });
    await create(POD, { metadata: { name: 'legacy2-pod', ownerReferences: [ref(rc2)] }, spec: podTemplate('legacy2').spec });
    const both = await call(server.url, 'DELETE', `${RC}/legacy2`, { body: { orphanDependents: false, propagationPolicy: 'Background' } });
    assert.equal(both.status, 422);
    assert.equal(both.json.message, 'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Background": orphanDependents and deletionPropagation cannot be both set');
    const cascade = await call(server.url, 'DELETE', `${RC}/legacy2`, { body: { orphanDependents: false } });
    assert.equal(cascade.status, 200, cascade.text);
    await until('pod collected', () => gone(`${POD}/legacy2-pod`));
  });
});
