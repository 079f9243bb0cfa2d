// The SPEC's field-ownership table, the managedFields reset, topology markers, apply checks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../src/errors.js';
import { apply as applyRaw, recordUpdate, type GroupVersionKind } from '../../src/fieldmanager/index.js';

type Obj = Record<string, any>;
const apply = (...a: Parameters<typeof applyRaw>): Obj => applyRaw(...a);
const CM: GroupVersionKind = { group: '', version: 'v1', kind: 'ConfigMap' };
const DEPLOYMENT: GroupVersionKind = { group: 'apps', version: 'v1', kind: 'Deployment' };
const T = '2024-01-01T00:00:00Z';

function cm(data: Record<string, string>, labels?: Record<string, string>): Obj {
  const metadata: Obj = { name: 'c' };
  if (labels) metadata.labels = labels;
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata, data };
}

/** manager → fieldsV1 */
function owners(o: Obj): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const e of o.metadata.managedFields ?? []) out[`${e.manager}/${e.operation}`] = e.fieldsV1;
  return out;
}

function conflictOf(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  assert.fail('expected a conflict');
}

test('row 1: an update by B that changes A\'s field takes it, without conflict', () => {
  const live = apply(CM, undefined, cm({ k: 'a' }), 'A', { force: false, now: T });
  const next = structuredClone(live);
  next.data.k = 'b';
  recordUpdate(CM, live, next, 'B', { now: T });
  assert.deepEqual(owners(next), { 'B/Update': { 'f:data': { 'f:k': {} } } });
});

test('row 2: an apply by B with another value conflicts and changes nothing', () => {
  const live = apply(CM, undefined, cm({ k: 'a' }), 'A', { force: false, now: T });
  const before = structuredClone(live);
  const e = conflictOf(() => apply(CM, live, cm({ k: 'b' }), 'B', { force: false }));
  assert.equal(e.code, 409);
  assert.equal(e.reason, 'Conflict');
  assert.equal(e.message, 'Apply failed with 1 conflict: conflict with "A": .data.k');
  assert.deepEqual(live, before);
});

test('a conflict with an Update manager names its apiVersion (and subresource)', () => {
  const live = apply(DEPLOYMENT, undefined, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { replicas: 1 } }, 'A', { force: false, now: T });
  const next = structuredClone(live);
  next.spec.replicas = 3;
  recordUpdate(DEPLOYMENT, live, next, 'scaler', { subresource: 'scale', now: T });
  const e = conflictOf(() => apply(DEPLOYMENT, next, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { replicas: 1 } }, 'A', { force: false }));
  assert.equal(e.message, 'Apply failed with 1 conflict: conflict with "scaler" with subresource "scale" using apps/v1: .spec.replicas');
  assert.deepEqual(e.details?.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "scaler" with subresource "scale" using apps/v1', field: '.spec.replicas' }]);
});

test('row 3: force=true overrides and B owns the field alone', () => {
  const live = apply(CM, undefined, cm({ k: 'a', other: 'x' }), 'A', { force: false, now: T });
  const out = apply(CM, live, cm({ k: 'b' }), 'B', { force: true, now: T });
  assert.equal(out.data.k, 'b');
  assert.deepEqual(owners(out), { 'A/Apply': { 'f:data': { 'f:other': {} } }, 'B/Apply': { 'f:data': { 'f:k': {} } } });
});

test('row 4: the same value shares ownership; a later change by either sharer conflicts', () => {
  const live = apply(CM, undefined, cm({ k: 'a' }), 'A', { force: false, now: T });
  const shared = apply(CM, live, cm({ k: 'a' }), 'B', { force: false, now: T });
  assert.deepEqual(owners(shared), { 'A/Apply': { 'f:data': { 'f:k': {} } }, 'B/Apply': { 'f:data': { 'f:k': {} } } });
  // Nothing changed in the object: B's new entry gets no time, as the reference does.
  assert.equal(shared.metadata.managedFields.find((e: Obj) => e.manager === 'B').time, undefined);
  const e = conflictOf(() => apply(CM, shared, cm({ k: 'c' }), 'A', { force: false }));
  assert.equal(e.message, 'Apply failed with 1 conflict: conflict with "B": .data.k');
});

test('row 5: a sharer that stops applying the field leaves it to the other', () => {
  const live = apply(CM, undefined, cm({ k: 'a', mine: '1' }), 'A', { force: false, now: T });
  const shared = apply(CM, live, cm({ k: 'a' }), 'B', { force: false, now: T });
  const out = apply(CM, shared, cm({ mine: '1' }), 'A', { force: false, now: T });
  assert.deepEqual(out.data, { k: 'a', mine: '1' });
  assert.deepEqual(owners(out), { 'A/Apply': { 'f:data': { 'f:mine': {} } }, 'B/Apply': { 'f:data': { 'f:k': {} } } });
});

test('row 6: a sole owner that stops applying a field, map key or list item removes it', () => {
  const live = apply(CM, undefined, cm({ k: 'a', keep: '1' }, { team: 'x', tier: 'y' }), 'A', { force: false, now: T });
  const out = apply(CM, live, cm({ keep: '1' }, { team: 'x' }), 'A', { force: false, now: T });
  assert.deepEqual(out.data, { keep: '1' });
  assert.deepEqual(out.metadata.labels, { team: 'x' });
  assert.deepEqual(owners(out), { 'A/Apply': { 'f:data': { 'f:keep': {} }, 'f:metadata': { 'f:labels': { 'f:team': {} } } } });

  const dep = (containers: Obj[]): Obj => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { template: { spec: { containers } } } });
  const d1 = apply(DEPLOYMENT, undefined, dep([{ name: 'a', image: 'x' }, { name: 'b', image: 'y' }]), 'A', { force: false, now: T });
  const d2 = apply(DEPLOYMENT, d1, dep([{ name: 'b', image: 'y' }]), 'A', { force: false, now: T });
  assert.deepEqual(d2.spec.template.spec.containers, [{ name: 'b', image: 'y' }]);
});

test('row 7: B gives up its claim after a conflict: A keeps the field, B\'s entry loses it', () => {
  const live = apply(CM, undefined, cm({ k: 'a' }), 'A', { force: false, now: T });
  conflictOf(() => apply(CM, live, cm({ k: 'b', own: '1' }), 'B', { force: false }));
  const out = apply(CM, live, cm({ own: '1' }), 'B', { force: false, now: T });
  assert.equal(out.data.k, 'a');
  assert.deepEqual(owners(out), { 'A/Apply': { 'f:data': { 'f:k': {} } }, 'B/Apply': { 'f:data': { 'f:own': {} } } });
});

test('an update never conflicts and an entry that owns nothing disappears', () => {
  const live = apply(CM, undefined, cm({ k: 'a' }), 'A', { force: false, now: T });
  const next = structuredClone(live);
  delete next.data.k;
  next.data.n = '1';
  recordUpdate(CM, live, next, 'B', { now: T });
  assert.deepEqual(owners(next), { 'B/Update': { 'f:data': { 'f:n': {} } } });
});

test('updates by the same manager merge into one entry; a write that changes nothing adds none', () => {
  const obj: Obj = cm({ a: '1' });
  recordUpdate(CM, undefined, obj, 'm', { now: T });
  const next = structuredClone(obj);
  next.data.b = '2';
  recordUpdate(CM, obj, next, 'm', { now: '2024-01-01T00:00:05Z' });
  assert.deepEqual(next.metadata.managedFields, [
    { manager: 'm', operation: 'Update', apiVersion: 'v1', time: '2024-01-01T00:00:05Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} } } },
  ]);
  const same = structuredClone(next);
  recordUpdate(CM, next, same, 'other', { now: T });
  assert.deepEqual(same.metadata.managedFields, next.metadata.managedFields);
});

test('managedFields [{}] or [] in an update strips every entry, and the update is not tracked', () => {
  const live = apply(CM, undefined, cm({ k: 'a', j: 'b' }), 'A', { force: false, now: T });
  for (const reset of [[{}], []]) {
    const next = structuredClone(live);
    next.metadata.managedFields = reset;
    recordUpdate(CM, live, next, 'B', { now: T });
    assert.equal(next.metadata.managedFields, undefined);
    // The reference tracks no update of an object nobody owns anything of (until an apply).
    const changed = structuredClone(live);
    changed.metadata.managedFields = reset;
    changed.data.k = 'z';
    recordUpdate(CM, live, changed, 'B', { now: T });
    assert.equal(changed.metadata.managedFields, undefined);
    const later = structuredClone(changed);
    later.data.j = 'y';
    recordUpdate(CM, changed, later, 'C', { now: T });
    assert.equal(later.metadata.managedFields, undefined);
    assert.deepEqual(owners(apply(CM, later, cm({ k: 'z' }), 'A', { force: false, now: T })), { 'A/Apply': { 'f:data': { 'f:k': {} } } });
  }
  // A create is tracked whatever it says.
  const created = cm({ k: 'a' });
  created.metadata.managedFields = [];
  recordUpdate(CM, undefined, created, 'B', { now: T });
  assert.deepEqual(owners(created), { 'B/Update': { 'f:data': { '.': {}, 'f:k': {} } } });
});

test('explicit managedFields entries replace the stored ones; an absent or null list keeps them', () => {
  const live = apply(CM, undefined, cm({ k: 'a' }), 'A', { force: false, now: T });
  for (const kept of [undefined, null]) {
    const next = structuredClone(live);
    next.metadata.managedFields = kept;
    recordUpdate(CM, live, next, 'B', { now: T });
    assert.deepEqual(next.metadata.managedFields, live.metadata.managedFields);
  }

  const replaced = structuredClone(live);
  replaced.metadata.managedFields = [{ manager: 'X', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:k': {} } } }];
  recordUpdate(CM, live, replaced, 'B', { now: T });
  assert.deepEqual(replaced.metadata.managedFields, [{ manager: 'X', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:k': {} } } }]);

  // An invalid list keeps the live entries; a subresource write ignores the body's list.
  const invalid = structuredClone(live);
  invalid.metadata.managedFields = [{ manager: 'X', operation: 'Bogus', fieldsV1: {} }];
  recordUpdate(CM, live, invalid, 'B', { now: T });
  assert.deepEqual(invalid.metadata.managedFields, live.metadata.managedFields);
});

test('status is owned only through the status subresource; the status writer records subresource', () => {
  const created: Obj = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { replicas: 1 }, status: { replicas: 5 } };
  recordUpdate(DEPLOYMENT, undefined, created, 'c', { now: T });
  assert.deepEqual(owners(created), { 'c/Update': { 'f:spec': { 'f:replicas': {} } } });
  const next = structuredClone(created);
  next.status = { replicas: 1 };
  recordUpdate(DEPLOYMENT, created, next, 'ctl', { subresource: 'status', now: T });
  const e = next.metadata.managedFields.find((x: Obj) => x.manager === 'ctl');
  assert.equal(e.subresource, 'status');
  assert.deepEqual(e.fieldsV1, { 'f:status': { 'f:replicas': {} } });
});

test('topology: atomic maps are one leaf, sets use v:, unknown kinds are unstructured with atomic lists', () => {
  const svc: Obj = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's', finalizers: ['a/b'] }, spec: { selector: { app: 'x' }, externalIPs: ['1.2.3.4'] } };
  recordUpdate({ group: '', version: 'v1', kind: 'Service' }, undefined, svc, 'm', { now: T });
  assert.deepEqual(svc.metadata.managedFields[0].fieldsV1, {
    'f:metadata': { 'f:finalizers': { '.': {}, 'v:"a/b"': {} } },
    'f:spec': { 'f:externalIPs': {}, 'f:selector': {} },
  });
  const cr: Obj = { apiVersion: 'ref.example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 1, items: [{ a: 1 }], nested: { x: 'y' } } };
  recordUpdate({ group: 'ref.example.com', version: 'v1', kind: 'Widget' }, undefined, cr, 'm', { now: T });
  assert.deepEqual(cr.metadata.managedFields[0].fieldsV1, { 'f:spec': { '.': {}, 'f:items': {}, 'f:nested': { '.': {}, 'f:x': {} }, 'f:size': {} } });
});

test('apply of a list map merges by key; the applier owns only what it sent', () => {
  const base: Obj = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { template: { spec: { containers: [{ name: 'a', image: 'x' }] } } } };
  const live = apply(DEPLOYMENT, undefined, base, 'A', { force: false, now: T });
  const out = apply(DEPLOYMENT, live, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { template: { spec: { containers: [{ name: 'b', image: 'y' }] } } } }, 'B', { force: false, now: T });
  assert.deepEqual(out.spec.template.spec.containers.map((c: Obj) => c.name), ['a', 'b']);
  assert.deepEqual(owners(out)['B/Apply'], { 'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"b"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } } } });
});

test('apply refuses managedFields in the body, a wrong apiVersion, a wrong kind', () => {
  const withMf = cm({ k: 'a' });
  withMf.metadata.managedFields = [];
  assert.throws(() => apply(CM, undefined, withMf, 'A', { force: false }), (e: any) => e.code === 400 && e.message === 'metadata.managedFields must be nil');
  assert.throws(
    () => apply(CM, undefined, { ...cm({}), apiVersion: 'v2' }, 'A', { force: false }),
    (e: any) => e.code === 400 && e.message === 'Incorrect version specified in apply patch. Specified patch version: v2, expected: v1',
  );
  assert.throws(() => apply(CM, undefined, { ...cm({}), kind: 'Secret' }, 'A', { force: false }), (e: any) => e.code === 400);
});

test('apply does not modify its inputs', () => {
  const live = apply(CM, undefined, cm({ k: 'a' }), 'A', { force: false, now: T });
  const liveCopy = structuredClone(live);
  const cfg = cm({ k: 'a', n: 'b' });
  const cfgCopy = structuredClone(cfg);
  apply(CM, live, cfg, 'A', { force: false, now: T });
  assert.deepEqual(live, liveCopy);
  assert.deepEqual(cfg, cfgCopy);
});

test('kubectl moving from client-side apply: conflicts on last-applied fields are forgiven', () => {
  const lastApplied = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { k: 'a' } });
  const live: Obj = { ...cm({ k: 'a' }), metadata: { name: 'c', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied } } };
  recordUpdate(CM, undefined, live, 'kubectl-client-side-apply', { now: T });
  const out = apply(CM, live, cm({ k: 'b' }), 'kubectl', { force: false, now: T });
  assert.equal(out.data.k, 'b');
  // The annotation follows what kubectl applied.
  assert.equal(out.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'], '{"apiVersion":"v1","data":{"k":"b"},"kind":"ConfigMap","metadata":{"name":"c"}}\n');
  // Another manager name gets the conflict.
  assert.throws(() => apply(CM, live, cm({ k: 'b' }), 'other', { force: false }), (e: any) => e.code === 409);
});

test('more than ten Update managers: the oldest fold into ancient-changes', () => {
  let obj: Obj = cm({});
  recordUpdate(CM, undefined, obj, 'm0', { now: T });
  for (let i = 1; i <= 11; i++) {
    const next = structuredClone(obj);
    next.data[`k${i}`] = 'v';
    recordUpdate(CM, obj, next, `m${i}`, { now: `2024-01-01T00:00:${String(i).padStart(2, '0')}Z` });
    obj = next;
  }
  const managers = obj.metadata.managedFields.map((e: Obj) => e.manager);
  assert.equal(managers.length, 10);
  assert.ok(managers.includes('ancient-changes'));
});

test('apply: a label named __proto__ stays a plain key; deep bodies are refused', () => {
  const ok = cm({});
  ok.data = JSON.parse('{"__proto__":"v"}');
  const out = apply(CM, undefined, ok, 'A', { force: false, now: T });
  assert.equal(Object.getPrototypeOf(out.data), Object.prototype);
  assert.equal(Object.getOwnPropertyDescriptor(out.data, '__proto__')?.value, 'v');
  let deep: Obj = {};
  const root = deep;
  for (let i = 0; i < 3000; i++) deep = deep.x = {};
  assert.throws(() => apply({ group: 'x.example.com', version: 'v1', kind: 'W' }, undefined, { apiVersion: 'x.example.com/v1', kind: 'W', metadata: { name: 'w' }, spec: root }, 'A', { force: false }), (e: any) => e.code === 400);
});
