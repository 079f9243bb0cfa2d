import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { decodeProtobufEnvelope, decodeProtobufObject, decodeProtobufRaw, PROTOBUF_MAGIC } from '../../src/encoding/protobuf.js';
import {
  canEncodeProtobuf,
  encodeProtobufEnvelope,
  encodeProtobufList,
  encodeProtobufObject,
  encodeProtobufRaw,
  encodeProtobufWatchEvent,
  parseGoDuration,
} from '../../src/encoding/protobuf-encode.js';
import { k8sTestdataDir, referenceDir } from '../helpers.js';

const fixturesDir = join(referenceDir, 'protobuf');
const testdataDir = k8sTestdataDir;

type Obj = Record<string, unknown>;

interface Fixture {
  request: { body?: { encoding?: string; data?: string } | null };
  response: { status: number | null; body: { encoding?: string; data?: string } | unknown; length?: number };
  json?: { jsonRaw?: string };
}

function fixture(name: string): Fixture {
  return JSON.parse(readFileSync(join(fixturesDir, `${name}.json`), 'utf8')) as Fixture;
}

function base64Body(b: unknown): Buffer {
  const body = b as { encoding?: string; data?: string } | null | undefined;
  assert.ok(body && body.encoding === 'base64' && typeof body.data === 'string', 'base64 body expected');
  return Buffer.from(body.data, 'base64');
}

/** Where two buffers first differ, with some context, for failure messages. */
function firstDiff(got: Buffer, want: Buffer): string {
  let i = 0;
  while (i < got.length && i < want.length && got[i] === want[i]) i++;
  const from = Math.max(0, i - 12);
  return `lengths ${got.length} / ${want.length}, first difference at byte ${i}: got …${got.subarray(from, i + 12).toString('hex')} want …${want.subarray(from, i + 12).toString('hex')}`;
}

/** The testdata pairs: [name, json object, .pb bytes]. */
function testdataPairs(): Array<[string, Obj, Buffer]> {
  const out: Array<[string, Obj, Buffer]> = [];
  for (const file of readdirSync(testdataDir).sort()) {
    if (!file.endsWith('.pb')) continue;
    const jsonFile = join(testdataDir, file.replace(/\.pb$/, '.json'));
    if (!existsSync(jsonFile)) continue;
    out.push([file.replace(/\.pb$/, ''), JSON.parse(readFileSync(jsonFile, 'utf8')) as Obj, readFileSync(join(testdataDir, file))]);
  }
  return out;
}

/**
 * The testdata WatchEvent has no kind in its JSON and an empty typeMeta in its envelope (it is not a
 * registered kind of core/v1); every other file is a plain object envelope.
 */
function encodeTestdata(name: string, json: Obj): Buffer {
  if (name.endsWith('.WatchEvent')) return encodeProtobufEnvelope('', '', encodeProtobufRaw('meta.k8s.io/v1', 'WatchEvent', json));
  return encodeProtobufObject(json);
}

test('testdata: every .pb with a .json twin is reproduced byte for byte (magic + Unknown envelope included)', () => {
  const pairs = testdataPairs();
  assert.ok(pairs.length >= 140, `expected ~142 testdata pairs, found ${pairs.length}`);
  const failures: string[] = [];
  let matches = 0;
  for (const [name, json, pb] of pairs) {
    assert.ok(pb.subarray(0, 4).equals(PROTOBUF_MAGIC), `${name}.pb starts with the k8s\\0 magic`);
    let got: Buffer;
    try {
      got = encodeTestdata(name, json);
    } catch (e) {
      failures.push(`${name}: ${(e as Error).message}`);
      continue;
    }
    if (got.equals(pb)) matches++;
    else failures.push(`${name}: ${firstDiff(got, pb)}`);
  }
  console.log(`testdata byte-identical: ${matches}/${pairs.length}`);
  assert.deepEqual(failures, [], `${failures.length} testdata objects differ`);
});

test('testdata: decode(encode(x)) deep-equals x', () => {
  const failures: string[] = [];
  let count = 0;
  for (const [name, json] of testdataPairs()) {
    const bytes = encodeTestdata(name, json);
    let back: Obj;
    if (name.endsWith('.WatchEvent')) {
      const env = decodeProtobufEnvelope(bytes);
      back = decodeProtobufRaw('meta.k8s.io/v1', 'WatchEvent', env.raw);
    } else {
      back = decodeProtobufObject(bytes).object;
    }
    count++;
    if (!isDeepStrictEqual(back, json)) failures.push(name);
  }
  console.log(`testdata round trips: ${count - failures.length}/${count}`);
  assert.deepEqual(failures, []);
});

for (const name of ['configmap', 'pod', 'namespace', 'namespace-list', 'configmap-list', 'missing-configmap-status']) {
  test(`reference protobuf/${name}: encoding json.jsonRaw reproduces the response bytes`, () => {
    const fx = fixture(name);
    const want = base64Body(fx.response.body);
    if (fx.response.length !== undefined) assert.equal(want.length, fx.response.length);
    assert.ok(fx.json?.jsonRaw, 'jsonRaw present');
    const obj = JSON.parse(fx.json.jsonRaw) as Obj;
    const got = encodeProtobufObject(obj);
    assert.ok(got.equals(want), firstDiff(got, want));
  });
}

test('lists: encodeProtobufList matches the reference list bytes', () => {
  for (const name of ['namespace-list', 'configmap-list']) {
    const fx = fixture(name);
    const want = base64Body(fx.response.body);
    const list = JSON.parse(fx.json!.jsonRaw!) as { kind: string; apiVersion: string; metadata: Obj; items: Obj[] };
    const got = encodeProtobufList(list.kind, list.apiVersion, list.metadata, list.items);
    assert.ok(got.equals(want), `${name}: ${firstDiff(got, want)}`);
  }
});

test('404 Status (kind Status, apiVersion v1) is the meta.k8s.io/v1 Status message with a v1 envelope', () => {
  const fx = fixture('missing-configmap-status');
  const status = JSON.parse(fx.json!.jsonRaw!) as Obj;
  const bytes = encodeProtobufObject(status);
  const env = decodeProtobufEnvelope(bytes);
  assert.equal(env.apiVersion, 'v1');
  assert.equal(env.kind, 'Status');
  assert.equal(env.contentType, '');
  assert.equal(env.contentEncoding, '');
  assert.deepEqual(decodeProtobufObject(bytes).object, status);
});

test('kubectl create configmap request bytes: encode(decode(body)) reproduces them', () => {
  const fx = fixture('create-configmap-kubectl-bytes');
  const body = base64Body(fx.request.body);
  const decoded = decodeProtobufObject(body).object;
  const got = encodeProtobufObject(decoded);
  assert.ok(got.equals(body), firstDiff(got, body));
});

test('decoder output of the reference objects re-encodes to the same bytes', () => {
  for (const name of ['configmap', 'pod', 'namespace', 'namespace-list', 'configmap-list', 'missing-configmap-status']) {
    const want = base64Body(fixture(name).response.body);
    const got = encodeProtobufObject(decodeProtobufObject(want).object);
    assert.ok(got.equals(want), `${name}: ${firstDiff(got, want)}`);
  }
});

test('watch frame: 4-byte big-endian length, then the bare WatchEvent whose object.raw is the object envelope', () => {
  const fx = fixture('configmap');
  const cm = JSON.parse(fx.json!.jsonRaw!) as Obj;
  const frame = encodeProtobufWatchEvent('ADDED', cm);
  const length = frame.readUInt32BE(0);
  assert.equal(length, frame.length - 4, 'length prefix covers the rest of the frame');
  const message = frame.subarray(4);
  assert.ok(!message.subarray(0, 4).equals(PROTOBUF_MAGIC), 'the event itself has no envelope (raw serializer)');
  const event = decodeProtobufRaw('meta.k8s.io/v1', 'WatchEvent', message);
  assert.equal(event.type, 'ADDED');
  assert.deepEqual(event.object, cm, 'object decodes back from its envelope');
  // object.raw is exactly the object's envelope as GET serves it
  assert.ok(message.includes(base64Body(fx.response.body)));

  const status = JSON.parse(fixture('missing-configmap-status').json!.jsonRaw!) as Obj;
  const errorFrame = encodeProtobufWatchEvent('ERROR', status);
  assert.equal(errorFrame.readUInt32BE(0), errorFrame.length - 4);
  const errorEvent = decodeProtobufRaw('meta.k8s.io/v1', 'WatchEvent', errorFrame.subarray(4));
  assert.equal(errorEvent.type, 'ERROR');
  assert.deepEqual(errorEvent.object, status);
  // two frames concatenated split back at the length prefixes
  const stream = Buffer.concat([frame, errorFrame]);
  const second = stream.subarray(4 + stream.readUInt32BE(0));
  assert.ok(second.equals(errorFrame));
});

test('canEncodeProtobuf', () => {
  assert.equal(canEncodeProtobuf('v1', 'ConfigMap'), true);
  assert.equal(canEncodeProtobuf('v1', 'ConfigMapList'), true);
  assert.equal(canEncodeProtobuf('v1', 'Status'), true);
  assert.equal(canEncodeProtobuf('apps/v1', 'Deployment'), true);
  assert.equal(canEncodeProtobuf('meta.k8s.io/v1', 'WatchEvent'), true);
  assert.equal(canEncodeProtobuf('apiextensions.k8s.io/v1', 'CustomResourceDefinition'), true);
  assert.equal(canEncodeProtobuf('meta.k8s.io/v1', 'Table'), false);
  assert.equal(canEncodeProtobuf('meta.k8s.io/v1beta1', 'Table'), false);
  assert.equal(canEncodeProtobuf('example.com/v1', 'Widget'), false, 'custom resources have no message');
  assert.equal(canEncodeProtobuf('v1', 'NoSuchKind'), false);
  assert.equal(canEncodeProtobuf('', ''), false);
});

test('zero-value rules: plain fields written when absent, pointer fields left out, present zeros kept', () => {
  const bytes = encodeProtobufObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } });
  const raw = decodeProtobufEnvelope(bytes).raw;
  // ObjectMeta: name, generateName "", namespace "", selfLink "", uid "", resourceVersion "", generation 0,
  // creationTimestamp {} (zero time); ConfigMap.immutable (*bool) left out.
  const meta = Buffer.from('0a0178' + '1200' + '1a00' + '2200' + '2a00' + '3200' + '3800' + '4200', 'hex');
  assert.equal(raw.toString('hex'), Buffer.concat([Buffer.from([0x0a, meta.length]), meta]).toString('hex'));
  const withImmutable = decodeProtobufEnvelope(encodeProtobufObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, immutable: false })).raw;
  assert.ok(withImmutable.subarray(raw.length).equals(Buffer.from('2000', 'hex')), 'a present false pointer is written');
});

test('maps are written sorted by key; negative int32 as 10-byte varint', () => {
  const a = encodeProtobufObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: {}, data: { b: '2', a: '1', B: '0' } });
  const b = encodeProtobufObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: {}, data: { B: '0', a: '1', b: '2' } });
  assert.ok(a.equals(b));
  assert.deepEqual(Object.keys(decodeProtobufObject(a).object.data as Obj), ['B', 'a', 'b']);
  const svc = encodeProtobufObject({ apiVersion: 'v1', kind: 'Pod', metadata: {}, spec: { priority: -1 } });
  assert.ok(decodeProtobufEnvelope(svc).raw.includes(Buffer.from('ffffffffffffffffff01', 'hex')));
  assert.equal((decodeProtobufObject(svc).object.spec as Obj).priority, -1);
});

test('special types round trip: Duration, MicroTime, IntOrString, Quantity', () => {
  assert.equal(parseGoDuration('1h2m3.5s'), 3_723_500_000_000n);
  assert.equal(parseGoDuration('-1.5µs'), -1500n);
  assert.equal(parseGoDuration('0s'), 0n);
  const lease = {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'l', creationTimestamp: '1969-12-31T23:59:59Z' },
    spec: { holderIdentity: 'me', leaseDurationSeconds: 15, acquireTime: '2024-01-02T03:04:05.123456Z', renewTime: '2024-01-02T03:04:06.000001Z' },
  };
  assert.deepEqual(decodeProtobufObject(encodeProtobufObject(lease)).object, lease);
  const svc = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 's' },
    spec: { healthCheckNodePort: 30001, ports: [{ name: 'a', protocol: 'TCP', port: 80, targetPort: 'http' }, { name: 'b', protocol: 'TCP', port: 81, targetPort: 8081 }] },
    status: { loadBalancer: {} },
  };
  const back = decodeProtobufObject(encodeProtobufObject(svc)).object;
  assert.deepEqual(back, svc);
  const quota = { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard: { cpu: '500m', 'requests.memory': '1Gi' } }, status: {} };
  assert.deepEqual(decodeProtobufObject(encodeProtobufObject(quota)).object, quota);
});
