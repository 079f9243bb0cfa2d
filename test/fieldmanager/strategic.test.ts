import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyStrategicMergePatch as smpRaw, type GroupVersionKind } from '../../src/fieldmanager/index.js';

type Obj = Record<string, any>;
const smp = (...a: Parameters<typeof smpRaw>): Obj => smpRaw(...a);
const POD: GroupVersionKind = { group: '', version: 'v1', kind: 'Pod' };
const DEPLOYMENT: GroupVersionKind = { group: 'apps', version: 'v1', kind: 'Deployment' };

function pod(): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', labels: { a: '1', b: '2' }, finalizers: ['x/one'] },
    spec: {
      containers: [
        { name: 'web', image: 'nginx', args: ['a', 'b'], ports: [{ containerPort: 80, protocol: 'TCP' }], env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] },
        { name: 'side', image: 'busybox' },
      ],
      volumes: [{ name: 'v', emptyDir: {} }],
    },
  };
}

test('lists merge by key: containers by name, ports by containerPort, env by name', () => {
  const out = smp(POD, pod(), {
    spec: {
      containers: [{ name: 'web', image: 'nginx:2', ports: [{ containerPort: 443 }], env: [{ name: 'B', value: 'two' }, { name: 'C', value: '3' }] }, { name: 'new', image: 'x' }],
    },
  });
  const c = out.spec.containers;
  // The patch's items in its order; `side`, only live, after them (see the ordering test below).
  assert.deepEqual(c.map((x: Obj) => x.name), ['web', 'new', 'side']);
  assert.equal(c[0].image, 'nginx:2');
  assert.deepEqual(c[0].ports, [{ containerPort: 443 }, { containerPort: 80, protocol: 'TCP' }]);
  assert.deepEqual(c[0].env, [{ name: 'A', value: '1' }, { name: 'B', value: 'two' }, { name: 'C', value: '3' }]);
});

test('$patch: delete removes a list item; $patch: replace replaces a list or a map', () => {
  const del = smp(POD, pod(), { spec: { containers: [{ name: 'side', $patch: 'delete' }] } });
  assert.deepEqual(del.spec.containers.map((x: Obj) => x.name), ['web']);
  const rep = smp(POD, pod(), { spec: { containers: [{ $patch: 'replace' }, { name: 'only', image: 'i' }] } });
  assert.deepEqual(rep.spec.containers, [{ name: 'only', image: 'i' }]);
  const repMap = smp(POD, pod(), { metadata: { labels: { $patch: 'replace', c: '3' } } });
  assert.deepEqual(repMap.metadata.labels, { c: '3' });
  const delMap = smp(POD, pod(), { metadata: { labels: { $patch: 'delete' } } });
  assert.equal(delMap.metadata.labels, undefined);
  assert.throws(() => smp(POD, pod(), { metadata: { labels: { $patch: 'bogus' } } }), (e: any) => e.code === 400);
});

test('null deletes a key; a list without merge strategy is replaced; finalizers (merge) are a union', () => {
  const out = smp(POD, pod(), { metadata: { labels: { a: null }, finalizers: ['x/two'] }, spec: { containers: [{ name: 'web', args: ['c'] }] } });
  assert.deepEqual(out.metadata.labels, { b: '2' });
  // The patch's values first, as the reference orders a merged list.
  assert.deepEqual(out.metadata.finalizers, ['x/two', 'x/one']);
  assert.deepEqual(out.spec.containers[0].args, ['c']);
});

test('a merged list without $setElementOrder: the patch\'s items in its order, live-only items where the live list had them', () => {
  const names = (list: Obj[]) => list.map((x) => (x.value === undefined ? x.name : `${x.name}=${x.value}`));
  const env = (list: Array<[string, string?]>) => list.map(([name, value]) => (value === undefined ? { name } : { name, value }));
  const withEnv = (list: Obj[]): Obj => ({ ...pod(), spec: { containers: [{ name: 'web', image: 'nginx', env: list }] } });
  const patched = (live: Obj[], patch: Obj[]) => names(smp(POD, withEnv(live), { spec: { containers: [{ name: 'web', env: patch }] } }).spec.containers[0].env);
  // The example: [Z, X:new] onto [X, Y].
  assert.deepEqual(patched(env([['X', 'old'], ['Y', 'y']]), env([['Z', 'z'], ['X', 'new']])), ['Z=z', 'X=new', 'Y=y']);
  // A live-only item goes before the first patch item the live list had after it.
  assert.deepEqual(patched(env([['1'], ['2', 'b'], ['3']]), env([['3', 'c'], ['1', 'a']])), ['2=b', '3=c', '1=a']);
  assert.deepEqual(patched(env([['A'], ['B'], ['C']]), env([['B', 'b'], ['D', 'd']])), ['A', 'B=b', 'D=d', 'C']);
  // A patch naming every item reorders them all.
  assert.deepEqual(patched(env([['1'], ['2'], ['3']]), env([['3'], ['1'], ['2']])), ['3', '1', '2']);
  // Deletions go first: an item deleted and added again in one patch is there, new.
  assert.deepEqual(patched(env([['A', 'a'], ['B']]), [{ name: 'A', value: 'again' }, { name: 'A', $patch: 'delete' }]), ['A=again', 'B']);
  // Lists of scalars the same way.
  const finalizers = (live: string[], patch: string[]) => smp(POD, { ...pod(), metadata: { name: 'p', finalizers: live } }, { metadata: { finalizers: patch } }).metadata.finalizers;
  assert.deepEqual(finalizers(['1', '2', '3'], ['3', '1']), ['2', '3', '1']);
  assert.deepEqual(finalizers(['a', 'b'], ['c', 'a']), ['c', 'a', 'b']);
});

test('$deleteFromPrimitiveList and $setElementOrder', () => {
  const out = smp(POD, pod(), { metadata: { '$deleteFromPrimitiveList/finalizers': ['x/one'] } });
  assert.deepEqual(out.metadata.finalizers, []);
  const ordered = smp(POD, pod(), { spec: { '$setElementOrder/containers': [{ name: 'side' }, { name: 'web' }], containers: [{ name: 'web', image: 'n2' }] } });
  assert.deepEqual(ordered.spec.containers.map((x: Obj) => x.name), ['side', 'web']);
  assert.equal(ordered.spec.containers[1].image, 'n2');
  // Items the order does not name (another writer's) go before the first named item the live list had after them.
  const live = { ...pod(), spec: { containers: ['1', '2', '7', '9', '8', '3', '4'].map((name) => ({ name, image: 'i' })) } };
  const reordered = smp(POD, live, { spec: { '$setElementOrder/containers': [{ name: '2' }, { name: '1' }, { name: '4' }, { name: '3' }] } });
  assert.deepEqual(reordered.spec.containers.map((x: Obj) => x.name), ['2', '1', '7', '9', '8', '4', '3']);
});

test('$retainKeys keeps only the listed keys (Deployment strategy)', () => {
  const dep = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } } };
  const out = smp(DEPLOYMENT, dep, { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } });
  assert.deepEqual(out.spec.strategy, { type: 'Recreate' });
  assert.throws(() => smp(DEPLOYMENT, dep, { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: {} } } }), (e: any) => e.code === 422);
});

test('kubectl client-side apply patch (apply/deployment-2) changes the image only', () => {
  const dep = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'nginx', labels: { app: 'nginx' } },
    spec: { replicas: 2, template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.25', ports: [{ containerPort: 80, protocol: 'TCP' }] }] } } },
  };
  const out = smp(DEPLOYMENT, dep, { metadata: { annotations: { x: 'y' } }, spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'nginx' }], containers: [{ image: 'nginx:1.26', name: 'nginx' }] } } } });
  assert.deepEqual(out.spec.template.spec.containers, [{ name: 'nginx', image: 'nginx:1.26', ports: [{ containerPort: 80, protocol: 'TCP' }] }]);
  assert.deepEqual(out.metadata.annotations, { x: 'y' });
});

test('prototype keys are refused, depth is bounded, a merge key is required', () => {
  for (const bad of ['__proto__', 'constructor', 'prototype']) {
    const patch = JSON.parse(`{"metadata":{"labels":{"${bad}":{"polluted":"yes"}}}}`);
    assert.throws(() => smp(POD, pod(), patch), (e: any) => e.code === 400, bad);
  }
  assert.equal(({} as Obj).polluted, undefined);
  let deep: Obj = {};
  const root = deep;
  for (let i = 0; i < 5000; i++) deep = deep.x = {};
  assert.throws(() => smp(POD, pod(), { metadata: { annotations: root } }), (e: any) => e.code === 400);
  assert.throws(() => smp(POD, pod(), { spec: { containers: [{ image: 'no-name' }] } }), (e: any) => e.code === 422);
  assert.throws(() => smp(POD, pod(), [1]), (e: any) => e.code === 400);
});

test('inputs are not modified and the result shares nothing with them', () => {
  const original = pod();
  const copy = structuredClone(original);
  const patch = { metadata: { labels: { c: '3' } }, spec: { containers: [{ name: 'web', image: 'z', env: [{ name: 'A', $patch: 'delete' }] }] } };
  const patchCopy = structuredClone(patch);
  const out = smp(POD, original, patch);
  assert.deepEqual(original, copy);
  assert.deepEqual(patch, patchCopy);
  out.spec.containers[1].image = 'changed';
  assert.equal(original.spec.containers[1].image, 'busybox');
  assert.deepEqual(out.spec.containers[0].env, [{ name: 'B', value: '2' }]);
});
