// managedFields as the reference records them: fieldsV1 of creates, the kubectl Deployment
// lifecycle (apply/deployment-1..5), and the server-side apply fixtures.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixture, referenceDir } from '../helpers.js';
import { apply as applyRaw, applyStrategicMergePatch as smpRaw, recordUpdate, type GroupVersionKind } from '../../src/fieldmanager/index.js';
import { applyJsonPatch } from '../../src/fieldmanager/jsonpatch.js';
import { applyMergePatch } from '../../src/fieldmanager/mergepatch.js';

type Obj = Record<string, any>;
const apply = (...a: Parameters<typeof applyRaw>): Obj => applyRaw(...a);
const applyStrategicMergePatch = (...a: Parameters<typeof smpRaw>): Obj => smpRaw(...a);
const DEPLOYMENT: GroupVersionKind = { group: 'apps', version: 'v1', kind: 'Deployment' };
const POD: GroupVersionKind = { group: '', version: 'v1', kind: 'Pod' };
const SERVICE: GroupVersionKind = { group: '', version: 'v1', kind: 'Service' };
const CONFIGMAP: GroupVersionKind = { group: '', version: 'v1', kind: 'ConfigMap' };

function clone<T>(v: T): T {
  return structuredClone(v);
}

/** managedFields with every present time as `<time>`, in a stable order for comparison. */
function normalized(list: unknown): Obj[] {
  const entries = clone((list ?? []) as Obj[]).map((e) => {
    if (e.time !== undefined) e.time = '<time>';
    return e;
  });
  return entries.sort((a, b) => `${a.operation}/${a.manager}/${a.subresource ?? ''}`.localeCompare(`${b.operation}/${b.manager}/${b.subresource ?? ''}`));
}

function managedFieldsOf(o: Obj): unknown {
  return o.metadata?.managedFields;
}

function withoutManagedFields(o: Obj): Obj {
  const c = clone(o);
  delete c.metadata.managedFields;
  return c;
}

// -------------------------------------------------------------------------------------
// fieldsV1 of creates

test('kubectl create of a Deployment: the exact fieldsV1 of apply/deployment-1', () => {
  const f = fixture('apply/deployment-1-kubectl-create');
  const stored = (f.response.body as Obj);
  const obj = withoutManagedFields(stored);
  // As the field manager sees it: decoded and defaulted, before the registry adds
  // generation and status and before the controller writes its annotation.
  delete obj.metadata.annotations;
  obj.status = {};
  recordUpdate(DEPLOYMENT, undefined, obj, 'kubectl-create', { now: '2024-01-01T00:00:00Z' });
  const expected = stored.metadata.managedFields.find((e: Obj) => e.manager === 'kubectl-create');
  assert.deepEqual(obj.metadata.managedFields, [{ ...expected, time: '2024-01-01T00:00:00Z' }]);
});

test('POST of a two-port Service: k:{"port":…,"protocol":…} keys', () => {
  const stored = fixture('apply/fieldsv1-service-two-ports-post').response.body as Obj;
  const obj = withoutManagedFields(stored);
  // Allocated by the registry after the field manager ran.
  for (const k of ['clusterIP', 'clusterIPs', 'ipFamilies', 'ipFamilyPolicy']) delete obj.spec[k];
  recordUpdate(SERVICE, undefined, obj, 'recorder', { now: '<time>' });
  assert.deepEqual(obj.metadata.managedFields, stored.metadata.managedFields);
});

test('POST of a two-container Pod: containers, env and ports keyed', () => {
  const stored = fixture('apply/fieldsv1-pod-two-containers-post').response.body as Obj;
  const obj = withoutManagedFields(stored);
  // Added by admission (service account, priority, tolerations) after the field manager ran.
  for (const k of ['volumes', 'serviceAccountName', 'serviceAccount', 'tolerations', 'priority', 'preemptionPolicy']) delete obj.spec[k];
  for (const c of obj.spec.containers) delete c.volumeMounts;
  recordUpdate(POD, undefined, obj, 'recorder', { now: '<time>' });
  assert.deepEqual(obj.metadata.managedFields, stored.metadata.managedFields);
});

test('every create/ fixture whose stored object is what the field manager saw: same fieldsV1', () => {
  // Kinds whose registry or admission changes the object after the field manager ran
  // (allocated IPs, protection finalizers, namespace finalizers, job labels, pod service
  // accounts, TokenRequest's non-omitempty null) are left out.
  const skip = new Set([
    'batch-v1-jobs.json', 'core-v1-namespaces.json', 'core-v1-persistentvolumeclaims.json', 'core-v1-persistentvolumes.json',
    'core-v1-pods.json', 'core-v1-serviceaccounts-token.json', 'core-v1-services-clusterip.json', 'core-v1-services-headless.json',
    'core-v1-services-nodeport.json',
  ]);
  let compared = 0;
  for (const file of readdirSync(join(referenceDir, 'create'))) {
    if (skip.has(file)) continue;
    const body = JSON.parse(readFileSync(join(referenceDir, 'create', file), 'utf8')).response.body as Obj;
    const entries = body?.metadata?.managedFields as Obj[] | undefined;
    if (!entries || entries.length !== 1 || entries[0].manager !== 'recorder') continue;
    const [group, version] = String(body.apiVersion).includes('/') ? String(body.apiVersion).split('/') : ['', String(body.apiVersion)];
    const obj = withoutManagedFields(body);
    recordUpdate({ group, version, kind: body.kind }, undefined, obj, 'recorder', { now: '<time>', subresource: entries[0].subresource });
    assert.deepEqual(obj.metadata.managedFields, entries, file);
    compared++;
  }
  assert.ok(compared >= 40, `compared ${compared}`);
});

// -------------------------------------------------------------------------------------
// The Deployment's life under kubectl: create, client-side apply, server-side apply, scale, label

function controllerWrites(live: Obj, step: Obj, now: string): Obj {
  // The deployment controller writes the revision annotation and status through /status.
  const next = clone(live);
  next.metadata.annotations = { ...(next.metadata.annotations ?? {}), 'deployment.kubernetes.io/revision': step.metadata.annotations['deployment.kubernetes.io/revision'] };
  next.status = clone(step.status);
  recordUpdate(DEPLOYMENT, live, next, 'kube-controller-manager', { subresource: 'status', now });
  return next;
}

test('apply/deployment-1..5: managedFields after every kubectl step', () => {
  const steps = [1, 2, 3, 4, 5].map((i) => {
    const names = ['kubectl-create', 'kubectl-apply-client-side', 'kubectl-apply-server-side', 'kubectl-scale', 'kubectl-label'];
    return fixture(`apply/deployment-${i}-${names[i - 1]}`) as unknown as Obj;
  });
  const body = (i: number): Obj => steps[i].response.body;

  // 1. kubectl create -f (POST, defaulted), then the controller.
  let obj = withoutManagedFields(body(0));
  delete obj.metadata.annotations;
  obj.status = {};
  recordUpdate(DEPLOYMENT, undefined, obj, 'kubectl-create', { now: '2024-01-01T00:00:01Z' });
  obj = controllerWrites(obj, body(0), '2024-01-01T00:00:01Z');
  assert.deepEqual(normalized(managedFieldsOf(obj)), normalized(steps[0].managedFields), 'step 1');
  assert.deepEqual(managedFieldsOf(obj), (body(0).metadata.managedFields as Obj[]).map((e) => ({ ...e, time: '2024-01-01T00:00:01Z' })), 'step 1 order');

  // 2. kubectl apply -f (client-side: a strategic merge patch), then the controller.
  const csa = steps[1].kubectl.requests[0];
  let next = applyStrategicMergePatch(DEPLOYMENT, obj, csa.body);
  recordUpdate(DEPLOYMENT, obj, next, 'kubectl-client-side-apply', { now: '2024-01-01T00:00:02Z' });
  obj = controllerWrites(next, body(1), '2024-01-01T00:00:03Z');
  assert.equal(obj.spec.template.spec.containers[0].image, 'nginx:1.26');
  assert.deepEqual(normalized(managedFieldsOf(obj)), normalized(steps[1].managedFields), 'step 2');

  // 3. kubectl apply --server-side: apply, last-applied apply, JSON patch of managedFields, apply.
  const ssa = steps[2].kubectl.requests;
  obj = apply(DEPLOYMENT, obj, ssa[0].body, 'kubectl', { force: false, now: '2024-01-01T00:00:04Z' });
  obj = apply(DEPLOYMENT, obj, ssa[1].body, 'kubectl-last-applied', { force: false, now: '2024-01-01T00:00:05Z' });
  // kubectl copied the live entries (with their times) into its patch; the fixture has <time>.
  const ops = clone(ssa[2].body.filter((op: Obj) => op.path === '/metadata/managedFields'));
  for (const e of ops[0].value) if (e.time) e.time = e.manager === 'kubectl-create' ? '2024-01-01T00:00:01Z' : '2024-01-01T00:00:03Z';
  next = applyJsonPatch(obj, ops) as Obj;
  recordUpdate(DEPLOYMENT, obj, next, 'kubectl', { now: '2024-01-01T00:00:06Z' });
  obj = next;
  obj = apply(DEPLOYMENT, obj, ssa[3].body, 'kubectl', { force: false, now: '2024-01-01T00:00:07Z' });
  assert.deepEqual(normalized(managedFieldsOf(obj)), normalized(steps[2].managedFields), 'step 3');
  assert.equal(obj.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'], steps[2].annotations['kubectl.kubernetes.io/last-applied-configuration']);

  // 4. kubectl scale --replicas=3 (merge patch of the scale subresource).
  next = clone(obj);
  next.spec.replicas = 3;
  recordUpdate(DEPLOYMENT, obj, next, 'kubectl', { subresource: 'scale', now: '2024-01-01T00:00:08Z' });
  obj = next;
  assert.deepEqual(normalized(managedFieldsOf(obj)), normalized(steps[3].managedFields), 'step 4');

  // 5. kubectl label deployment/nginx tier=web (merge patch).
  next = applyMergePatch(obj, steps[4].kubectl.requests[0].body) as Obj;
  recordUpdate(DEPLOYMENT, obj, next, 'kubectl-label', { now: '2024-01-01T00:00:09Z' });
  obj = next;
  assert.deepEqual(normalized(managedFieldsOf(obj)), normalized(steps[4].managedFields), 'step 5');
  // Order: Apply entries first; then Updates by time (the scale entry has none), then manager.
  assert.deepEqual(
    (managedFieldsOf(obj) as Obj[]).map((e) => `${e.operation}:${e.manager}:${e.subresource ?? ''}`),
    (steps[4].managedFields as Obj[]).map((e) => `${e.operation}:${e.manager}:${e.subresource ?? ''}`),
  );
});

// -------------------------------------------------------------------------------------
// Server-side apply fixtures

test('SSA create of a Deployment (fieldManager=test): one Apply entry', () => {
  const f = fixture('apply/ssa-create-deployment');
  const out = apply(DEPLOYMENT, undefined, f.request.body as Obj, 'test', { force: false, now: '<time>' });
  assert.deepEqual(out.metadata.managedFields, (f.response.body as Obj).metadata.managedFields);
  assert.equal(out.spec.template.spec.containers[0].image, 'nginx:1.25');
});

test('SSA of the two-port Service and the two-container Pod: defaulted key fields in k:{…}', () => {
  for (const [name, gvk] of [['fieldsv1-service-two-ports-ssa', SERVICE], ['fieldsv1-pod-two-containers-ssa', POD]] as const) {
    const f = fixture(`apply/${name}`);
    const out = apply(gvk, undefined, f.request.body as Obj, 'test', { force: false, now: '<time>' });
    assert.deepEqual(out.metadata.managedFields, (f.response.body as Obj).metadata.managedFields, name);
  }
});

function ssaDeployment(): Obj {
  const f = fixture('apply/ssa-create-deployment');
  const created = apply(DEPLOYMENT, undefined, f.request.body as Obj, 'test', { force: false, now: '2024-01-01T00:00:00Z' });
  // Defaults the registry adds after the apply.
  created.spec.replicas = 1;
  Object.assign(created.spec.template.spec.containers[0], { resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent' });
  return created;
}

test('SSA re-apply of the same config: nothing changes, the entry keeps its time', () => {
  const live = ssaDeployment();
  const f = fixture('apply/ssa-reapply-deployment-no-change');
  const out = apply(DEPLOYMENT, live, f.request.body as Obj, 'test', { force: false, now: '2024-01-01T00:05:00Z' });
  assert.deepEqual(out, live);
  assert.deepEqual(normalized(out.metadata.managedFields), normalized((f.response.body as Obj).metadata.managedFields));
});

test('SSA with force=true takes the image from "test" (apply/ssa-force-conflict)', () => {
  const live = ssaDeployment();
  const f = fixture('apply/ssa-force-conflict');
  assert.throws(
    () => apply(DEPLOYMENT, live, f.request.body as Obj, 'other', { force: false }),
    (e: any) => e.code === 409 && e.message === 'Apply failed with 1 conflict: conflict with "test": .spec.template.spec.containers[name="nginx"].image',
  );
  const out = apply(DEPLOYMENT, live, f.request.body as Obj, 'other', { force: true, now: '2024-01-01T00:05:00Z' });
  assert.equal(out.spec.template.spec.containers[0].image, 'nginx:1.26');
  const expected = ((f.response.body as Obj).metadata.managedFields as Obj[]).filter((e) => e.manager !== 'kube-controller-manager');
  assert.deepEqual(normalized(out.metadata.managedFields), normalized(expected));
});

test('SSA configmaps: merge patch takes b from the applier; re-apply without b keeps it; sole owner removes', () => {
  let cm = apply(CONFIGMAP, undefined, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shared' }, data: { a: '1', b: '1' } }, 'applier', { force: false, now: '<time>' });
  const mp = fixture('apply/ssa-configmap-then-merge-patch');
  const next = applyMergePatch(cm, mp.request.body) as Obj;
  recordUpdate(CONFIGMAP, cm, next, 'patcher', { now: '<time>' });
  cm = next;
  assert.deepEqual(cm.metadata.managedFields, (mp.response.body as Obj).metadata.managedFields);
  assert.deepEqual(cm.data, (mp.response.body as Obj).data);

  const re = fixture('apply/ssa-configmap-reapply-drops-field');
  cm = apply(CONFIGMAP, cm, re.request.body as Obj, 'applier', { force: false, now: '<time>' });
  assert.deepEqual(cm.metadata.managedFields, (re.response.body as Obj).metadata.managedFields);
  assert.deepEqual(cm.data, (re.response.body as Obj).data);

  const solo = fixture('apply/ssa-configmap-apply-removes-owned-field');
  let s = apply(CONFIGMAP, undefined, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'solo' }, data: { x: '1', y: '2' } }, 'owner', { force: false, now: '<time>' });
  s = apply(CONFIGMAP, s, solo.request.body as Obj, 'owner', { force: false, now: '<time>' });
  assert.deepEqual(s.metadata.managedFields, (solo.response.body as Obj).metadata.managedFields);
  assert.deepEqual(s.data, (solo.response.body as Obj).data);
});

test('409 of errors/apply-conflict.json and apply-conflict-two-fields.json, exactly', () => {
  const live = apply(CONFIGMAP, undefined, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'contested', labels: { owner: 'a' } }, data: { key: 'from-a' } }, 'manager-a', { force: false });
  for (const name of ['apply-conflict', 'apply-conflict-two-fields']) {
    const f = fixture(`errors/${name}`);
    let thrown: any;
    try {
      apply(CONFIGMAP, live, f.request.body as Obj, 'manager-b', { force: false });
    } catch (e) {
      thrown = e;
    }
    assert.ok(thrown, name);
    assert.deepEqual(thrown.toStatus(), f.response.body, name);
    assert.equal(JSON.stringify(thrown.toStatus()) + '\n', f.response.rawBody, name);
  }
});

test('apply with an undeclared field: the reference 500 of fieldvalidation/apply-warn-unknown', () => {
  const f = fixture('fieldvalidation/apply-warn-unknown');
  let thrown: any;
  try {
    apply(DEPLOYMENT, undefined, JSON.parse(f.request.body as string), 'test', { force: false });
  } catch (e) {
    thrown = e;
  }
  assert.deepEqual(thrown?.toStatus(), f.response.body);
});

test('apply errors write a core kind as Go does, with the empty group before the slash', () => {
  const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' }, data: { k: 'v' }, bogus: 1 };
  let thrown: any;
  try {
    apply(CONFIGMAP, undefined, body, 'test', { force: false });
  } catch (e) {
    thrown = e;
  }
  assert.equal(thrown?.toStatus().code, 500);
  assert.equal(thrown?.toStatus().message, 'failed to create typed patch object (ns/c; /v1, Kind=ConfigMap): .bogus: field not declared in schema');
});
