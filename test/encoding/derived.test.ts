// The derived-encodings cache: each form is what the encoders make of the bytes directly, made once
// and shared; Table rows printed from the kept printer inputs equal rows printed from the whole
// object at any time; what a printer reads is recorded faithfully.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { defaultTablePrinter } from '../../src/api/printers/index.js';

import {
  jsonWatchFrame,
  parsedObject,
  partialObjectMetadata,
  partialObjectMetadataChunks,
  protobufListItem,
  protobufMessage,
  protobufObject,
  protobufWatchFrame,
  stringifiedObject,
  tableRowCells,
  tableRowData,
  type RowPrinter,
} from '../../src/encoding/derived.js';
import { encodeProtobufList, encodeProtobufListOfItems, encodeProtobufListOfMessages, encodeProtobufObject, encodeProtobufRaw, encodeProtobufWatchEvent } from '../../src/encoding/protobuf-encode.js';
import { readCopy } from '../../src/encoding/read-copy.js';
import { encodeTable, type TablePrinter } from '../../src/encoding/table.js';
import type { JsonObject } from '../../src/json.js';
import { builtinHooks, referenceDir } from '../helpers.js';

const printerOf = (group: string, resource: string): TablePrinter => builtinHooks(group, resource).table ?? defaultTablePrinter;
const cellsFor = (group: string, resource: string, obj: JsonObject, now: number) => printerOf(group, resource).cells(obj, now);
const columnsFor = (group: string, resource: string) => printerOf(group, resource).columns();
const rowConditionsFor = (group: string, resource: string, obj: JsonObject) => printerOf(group, resource).conditions?.(obj);

const LIMIT = { timeout: 30_000 };

const bytesOf = (obj: unknown): Buffer => Buffer.from(JSON.stringify(obj));

function configMap(name: string): JsonObject {
  return {
    kind: 'ConfigMap',
    apiVersion: 'v1',
    metadata: { name, namespace: 'default', uid: 'u-1', resourceVersion: '7', creationTimestamp: '2024-05-01T12:00:00Z', labels: { a: '1' } },
    data: { k: 'v' },
  };
}

test('JSON watch frames: {"type","object"} around the stored bytes, one buffer per version and type', LIMIT, () => {
  const bytes = bytesOf(configMap('a'));
  const added = jsonWatchFrame('ADDED', bytes);
  assert.equal(added.toString(), `{"type":"ADDED","object":${bytes.toString()}}\n`);
  assert.equal(jsonWatchFrame('ADDED', bytes), added, 'the second watcher gets the same buffer');
  assert.equal(jsonWatchFrame('MODIFIED', bytes).toString(), `{"type":"MODIFIED","object":${bytes.toString()}}\n`);
});

test('Protobuf forms equal what the encoders make of the parsed object, made once', LIMIT, () => {
  const obj = configMap('b');
  const bytes = bytesOf(obj);
  const message = protobufMessage(bytes, 'v1', 'ConfigMap');
  assert.deepEqual(message, encodeProtobufRaw('v1', 'ConfigMap', obj));
  assert.equal(protobufMessage(bytes, 'v1', 'ConfigMap'), message, 'kept');
  assert.deepEqual(protobufObject(bytes), encodeProtobufObject(obj));
  for (const type of ['ADDED', 'MODIFIED', 'DELETED']) {
    const frame = protobufWatchFrame(type, bytes);
    assert.deepEqual(frame, encodeProtobufWatchEvent(type, obj));
    assert.equal(protobufWatchFrame(type, bytes), frame, 'shared by watchers');
  }
  // Made first as a list item, then served alone: the same message in the object's own envelope.
  const other = configMap('c');
  const otherBytes = bytesOf(other);
  const list = encodeProtobufListOfMessages('ConfigMapList', 'v1', { resourceVersion: '9' }, [message, protobufMessage(otherBytes, 'v1', 'ConfigMap')]);
  assert.deepEqual(list, encodeProtobufList('ConfigMapList', 'v1', { resourceVersion: '9' }, [obj, other]));
  assert.deepEqual(protobufObject(otherBytes), encodeProtobufObject(other));
});

test('the kept envelope holds the message: one buffer for gets and lists, whatever the lengths', LIMIT, () => {
  for (const size of [0, 100, 20_000, 3_000_000]) {
    const obj = { ...configMap(`big-${size}`), data: { k: 'x'.repeat(size) } };
    const bytes = bytesOf(obj);
    const message = protobufMessage(bytes, 'v1', 'ConfigMap');
    const envelope = protobufObject(bytes);
    assert.deepEqual(message, encodeProtobufRaw('v1', 'ConfigMap', obj));
    assert.deepEqual(envelope, encodeProtobufObject(obj));
    assert.equal(message.buffer, envelope.buffer, `${size}: a slice of the envelope`);
    assert.equal(protobufObject(bytes), envelope, 'kept');
  }
});

test('a Protobuf list in pieces: each item a slice of the envelope kept with its version, the whole equal to the encoded list', LIMIT, () => {
  for (const sizes of [[], [0], [10, 100, 20_000], [200_000, 3]]) {
    const objs = sizes.map((size, i) => ({ ...configMap(`item-${sizes.join('-')}-${i}`), data: { k: 'x'.repeat(size) } }));
    const items = objs.map((obj) => protobufListItem(bytesOf(obj), 'v1', 'ConfigMap'));
    const chunks = encodeProtobufListOfItems('ConfigMapList', 'v1', { resourceVersion: '12', continue: 'abc' }, items);
    assert.deepEqual(Buffer.concat(chunks), encodeProtobufList('ConfigMapList', 'v1', { resourceVersion: '12', continue: 'abc' }, objs));
    items.forEach((item, i) => assert.equal(item, chunks[i + 1], 'each item goes out as it is'));
  }
  const obj = configMap('sliced');
  const bytes = bytesOf(obj);
  const item = protobufListItem(bytes, 'v1', 'ConfigMap');
  assert.equal(item.buffer, protobufObject(bytes).buffer, 'no copy of the message');
  assert.deepEqual(protobufListItem(bytes, 'v1', 'ConfigMap'), item);
});

test('a list document answered as one buffer is encoded as a list', LIMIT, () => {
  const list = { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '3' }, items: [configMap('d')] };
  assert.deepEqual(protobufObject(bytesOf(list)), encodeProtobufList('ConfigMapList', 'v1', list.metadata, list.items));
});

test('PartialObjectMetadata per apiVersion; the parsed object is shared', LIMIT, () => {
  const obj = configMap('e');
  const bytes = bytesOf(obj);
  for (const apiVersion of ['meta.k8s.io/v1', 'meta.k8s.io/v1beta1']) {
    const made = partialObjectMetadata(bytes, apiVersion);
    assert.deepEqual(JSON.parse(made.toString()), { kind: 'PartialObjectMetadata', apiVersion, metadata: obj['metadata'] });
    assert.equal(partialObjectMetadata(bytes, apiVersion), made, 'shared by the watchers of an event');
  }
  assert.equal(parsedObject(bytes), parsedObject(bytes));
  assert.deepEqual(parsedObject(bytes), obj);
});

test('PartialObjectMetadata chunks point into the stored bytes; other bytes get the metadata as JSON.stringify writes it', LIMIT, () => {
  const bytes = bytesOf(configMap('m'));
  const [head, metadata, end] = partialObjectMetadataChunks(bytes, 'meta.k8s.io/v1');
  assert.equal(metadata.buffer, bytes.buffer, 'a slice of the stored bytes, not a copy');
  assert.equal(Buffer.concat([head, metadata, end]).toString(), JSON.stringify({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: configMap('m')['metadata'] }));
  const spaced = Buffer.from('{"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"name": "n"}}');
  assert.equal(partialObjectMetadata(spaced, 'meta.k8s.io/v1beta1').toString(), '{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1beta1","metadata":{"name":"n"}}');
  const bare = Buffer.from('{"kind":"ConfigMap","apiVersion":"v1","data":{}}');
  assert.equal(partialObjectMetadata(bare, 'meta.k8s.io/v1').toString(), '{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{}}');
});

test('the whole object as JSON.stringify writes it: the stored bytes when they already are', LIMIT, () => {
  const bytes = bytesOf(configMap('f'));
  assert.equal(stringifiedObject(bytes), bytes);
  const spaced = Buffer.from('{"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"name": "g"}}');
  assert.equal(stringifiedObject(spaced).toString(), '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"g"}}');
});

// ---- what a printer reads ----

test('readCopy keeps what was read, in the same shape, and nothing else', LIMIT, () => {
  const obj: JsonObject = { a: { b: 1, c: 2 }, list: [{ x: 1 }, { x: 2 }, { x: 3 }], keys: { p: { deep: true }, q: 2 }, has: { h: { big: 'x' } } };
  const { copy, result } = readCopy(obj, (v) => {
    const a = v['a'] as JsonObject;
    const list = v['list'] as JsonObject[];
    return [a['b'], list.length, list.map((i) => i['x']).join(','), Object.keys(v['keys'] as JsonObject).length, 'h' in (v['has'] as JsonObject)];
  });
  assert.deepEqual(result, [1, 3, '1,2,3', 2, true]);
  assert.deepEqual(JSON.parse(JSON.stringify(copy)), { a: { b: 1 }, list: [{ x: 1 }, { x: 2 }, { x: 3 }], keys: { p: {}, q: 2 }, has: { h: {} } });
  const some = readCopy(obj, (v) => (v['list'] as JsonObject[]).some((i) => i['x'] === 1)).copy;
  assert.equal((some['list'] as unknown[]).length, 3, 'an array keeps its length');
  assert.deepEqual((some['list'] as unknown[])[0], { x: 1 });
  assert.throws(() => readCopy(obj, (v) => ((v['a'] as JsonObject)['b'] = 5)), TypeError);
  assert.equal((obj['a'] as JsonObject)['b'], 1);
});

/** Objects of every kind the reference recorded (create answers, include-object Table rows), with the resource that prints them. */
function referenceObjects(): Array<{ group: string; resource: string; obj: JsonObject }> {
  const out: Array<{ group: string; resource: string; obj: JsonObject }> = [];
  const targetOf = (p: string) => {
    const parts = p.split('?')[0]!.split('/');
    return parts[1] === 'api' ? { group: '', resource: parts[parts.length - 1]! } : { group: parts[2]!, resource: parts[parts.length - 1]! };
  };
  const read = (rel: string) => JSON.parse(readFileSync(path.join(referenceDir, rel), 'utf8')) as { request: { path: string }; response: { body: JsonObject } };
  for (const f of readdirSync(path.join(referenceDir, 'create')).filter((f) => f.endsWith('.json'))) {
    const fx = read(`create/${f}`);
    const body = fx.response.body;
    if (body && typeof body === 'object' && typeof body['kind'] === 'string' && body['kind'] !== 'Status') out.push({ ...targetOf(fx.request.path), obj: body });
  }
  for (const f of ['core-v1-pods-include-object.json', 'apps-v1-deployments-include-object.json']) {
    const fx = read(`table/${f}`);
    for (const row of fx.response.body['rows'] as Array<{ object: JsonObject }>) out.push({ ...targetOf(fx.request.path), obj: row.object });
  }
  return out;
}

const T = Date.parse('2024-05-01T12:00:00Z');
const ago = (ms: number) => new Date(T - ms).toISOString();

/** Objects whose cells depend on the time in more ways than their age. */
const TIMED: Array<{ group: string; resource: string; obj: JsonObject }> = [
  {
    group: '', resource: 'pods',
    obj: {
      metadata: { name: 'restarted', creationTimestamp: ago(3_600_000) },
      spec: { containers: [{ name: 'a' }, { name: 'b' }], readinessGates: [{ conditionType: 'x' }] },
      status: {
        phase: 'Running', podIP: '10.0.0.5', conditions: [{ type: 'x', status: 'True' }],
        containerStatuses: [
          { name: 'a', ready: true, restartCount: 5, state: { running: {} }, lastState: { terminated: { exitCode: 1, finishedAt: ago(300_000) } } },
          { name: 'b', ready: false, restartCount: 0, state: { waiting: { reason: 'CrashLoopBackOff' } } },
        ],
      },
    },
  },
  { group: '', resource: 'pods', obj: { metadata: { name: 'future', creationTimestamp: ago(-60_000) }, spec: { containers: [] }, status: { phase: 'Succeeded' } } },
  { group: 'batch', resource: 'jobs', obj: { metadata: { name: 'running', creationTimestamp: ago(90_000) }, spec: { parallelism: 2 }, status: { startTime: ago(80_000) } } },
  { group: 'batch', resource: 'jobs', obj: { metadata: { name: 'done', creationTimestamp: ago(90_000) }, spec: { completions: 1 }, status: { startTime: ago(80_000), completionTime: ago(10_000), succeeded: 1 } } },
  { group: 'batch', resource: 'cronjobs', obj: { metadata: { name: 'c', creationTimestamp: ago(86_400_000) }, spec: { schedule: '* * * * *', suspend: false }, status: { lastScheduleTime: ago(30_000), active: [{}] } } },
  { group: '', resource: 'events', obj: { metadata: { name: 'e', creationTimestamp: ago(1000) }, type: 'Normal', reason: 'R', involvedObject: { kind: 'Pod', name: 'p' }, series: { count: 3, lastObservedTime: ago(2000) }, eventTime: ago(4000) } },
  { group: 'example.com', resource: 'things', obj: { metadata: { name: 'x', creationTimestamp: ago(1000) } } },
];

const NOWS = [T, T + 999, T + 61_000, T + 3 * 86_400_000 + 7_000, T + 2 * 365 * 86_400_000, T - 3_600_000];

test('cells printed from the recorded inputs equal cells printed from the whole object, at any time', LIMIT, () => {
  const objects = [...referenceObjects(), ...TIMED];
  assert.ok(objects.length > 60);
  for (const { group, resource, obj } of objects) {
    const { copy } = readCopy(obj, (v) => cellsFor(group, resource, v, T + 12_345));
    for (const now of NOWS) {
      assert.deepEqual(cellsFor(group, resource, copy, now), cellsFor(group, resource, obj, now), `${group}/${resource} ${String((obj['metadata'] as JsonObject | undefined)?.['name'])} at ${now}`);
    }
  }
});

test('a Table is what JSON.stringify writes of it, with ages of the request time', LIMIT, () => {
  const printer = printerOf('', 'pods');
  const pods: JsonObject[] = TIMED.filter((t) => t.resource === 'pods').map((t) => ({ kind: 'Pod', apiVersion: 'v1', ...t.obj }));
  const items = pods.map(bytesOf);
  for (const include of ['None', 'Metadata', 'Object'] as const) {
    for (const now of NOWS) {
      const table = Buffer.concat(encodeTable(items, printer, { apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: '5' }, include, now })).toString();
      const rows = pods.map((p) => {
        const object = include === 'None' ? null : include === 'Object' ? p : { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: p['metadata'] };
        const conditions = rowConditionsFor('', 'pods', p);
        return conditions ? { cells: cellsFor('', 'pods', p, now), conditions, object } : { cells: cellsFor('', 'pods', p, now), object };
      });
      assert.equal(table, JSON.stringify({ kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: '5' }, columnDefinitions: columnsFor('', 'pods'), rows }), `${include} at ${now}`);
    }
  }
  // One object: the Table takes its resourceVersion.
  const one = JSON.parse(Buffer.concat(encodeTable([bytesOf(configMap('h'))], printerOf('', 'configmaps'), { apiVersion: 'meta.k8s.io/v1beta1', metadata: {}, include: 'None', now: T })).toString());
  assert.deepEqual(one.metadata, { resourceVersion: '7' });
  assert.equal(one.apiVersion, 'meta.k8s.io/v1beta1');
});

test('a row is kept per printer: another printer of the same bytes prints its own cells', LIMIT, () => {
  const bytes = bytesOf(configMap('i'));
  const first: RowPrinter = { cells: (o) => [(o['metadata'] as JsonObject)['name']], conditions: () => undefined };
  const second: RowPrinter = { cells: (o) => [(o['data'] as JsonObject)['k']], conditions: () => [{ type: 'T' }] };
  assert.deepEqual(JSON.parse(tableRowCells(tableRowData(bytes, first), first, T)), ['i']);
  assert.equal(tableRowData(bytes, first), tableRowData(bytes, first));
  const row = tableRowData(bytes, second);
  assert.deepEqual(JSON.parse(tableRowCells(row, second, T)), ['v']);
  assert.equal(row.conditions, '[{"type":"T"}]');
});

test('kept cells with their ages filled in equal cells printed from the whole object, at any time', LIMIT, () => {
  const objects = [...referenceObjects(), ...TIMED];
  let templated = 0;
  for (const { group, resource, obj } of objects) {
    const printer = printerOf(group, resource);
    const bytes = bytesOf(obj);
    const row = tableRowData(bytes, printer);
    if (row.template) templated++;
    for (const now of [...NOWS, Date.now(), Date.now() + 3_600_000]) {
      assert.equal(tableRowCells(row, printer, now), JSON.stringify(printer.cells(obj, now)), `${group}/${resource} ${String((obj['metadata'] as JsonObject | undefined)?.['name'])} at ${now}`);
    }
  }
  assert.equal(templated, objects.length, 'every built-in printer reads the time through ages only');
});

test('cells are printed at each request when the printer reads the time otherwise, or the object holds the mark', LIMIT, () => {
  const expiry = Date.now() + 60_000;
  const byClock: RowPrinter = { cells: (o, now) => [(o['metadata'] as JsonObject)['name'], now < expiry ? 'Valid' : 'Expired'] };
  const bytes = bytesOf(configMap('clock'));
  const row = tableRowData(bytes, byClock);
  assert.equal(row.template, undefined);
  assert.equal(tableRowCells(row, byClock, expiry - 1), '["clock","Valid"]');
  assert.equal(tableRowCells(row, byClock, expiry + 1), '["clock","Expired"]');

  const pods = printerOf('', 'pods');
  for (const name of ['mark-\uE0000\uE000', 'escaped']) {
    const pod = { kind: 'Pod', apiVersion: 'v1', metadata: { name, creationTimestamp: ago(5_000) }, spec: { containers: [] } };
    const text = name === 'escaped' ? JSON.stringify(pod).replace('escaped', '\\ue000') : JSON.stringify(pod);
    const held = Buffer.from(text);
    const parsed = JSON.parse(text) as JsonObject;
    const kept = tableRowData(held, pods);
    assert.equal(kept.template, undefined, name);
    for (const now of NOWS) assert.equal(tableRowCells(kept, pods, now), JSON.stringify(pods.cells(parsed, now)));
  }
});
