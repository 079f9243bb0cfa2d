// Protobuf answers (application/vnd.kubernetes.protobuf): objects, lists, Status errors and watch
// frames, checked by decoding them back and comparing with the JSON answers.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { decodeProtobufObject } from '../../src/encoding/protobuf.js';
import type { RunningServer } from '../../src/server/server.js';
import { call, fixture, memoryServer, placeholders } from '../helpers.js';

const PB = 'application/vnd.kubernetes.protobuf';
const NS = '/api/v1/namespaces/ref-protobuf';

function getBytes(base: string, path: string, accept: string): Promise<{ status: number; type: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(new URL(path, base), { headers: { Accept: accept } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body: Buffer.concat(chunks) }));
    }).on('error', reject).end();
  });
}

/** Reads the fields of a protobuf message (enough for WatchEvent and RawExtension). */
function fields(buf: Buffer): Map<number, Buffer> {
  const out = new Map<number, Buffer>();
  let i = 0;
  const varint = () => {
    let v = 0;
    let shift = 0;
    for (;;) {
      const b = buf[i++]!;
      v += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return v;
      shift += 7;
    }
  };
  while (i < buf.length) {
    const tag = varint();
    const len = varint();
    out.set(tag >> 3, buf.subarray(i, i + len));
    i += len;
  }
  return out;
}

describe('Protobuf', () => {
  let server: RunningServer;
  before(async () => {
    server = await memoryServer();
    await call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'ref-protobuf' } } });
    await call(server.url, 'POST', `${NS}/configmaps`, { body: { metadata: { name: 'app-config', labels: { app: 'demo' } }, data: { LOG_LEVEL: 'info' }, binaryData: { 'blob.bin': 'AAECYmluYXJ5' } } });
  });
  after(() => server.close());

  it('serves an object: magic prefix, and the same object as the JSON answer', async () => {
    const f = fixture('protobuf/configmap');
    const pb = await getBytes(server.url, `${NS}/configmaps/app-config`, PB);
    assert.equal(pb.status, 200);
    assert.equal(pb.type, f.response.headers['content-type']);
    assert.deepEqual([...pb.body.subarray(0, 4)], [0x6b, 0x38, 0x73, 0x00]);
    const json = await call(server.url, 'GET', `${NS}/configmaps/app-config`);
    assert.deepEqual(decodeProtobufObject(pb.body).object, json.json);
    // Served twice: the same bytes (encoded once per object version).
    assert.deepEqual((await getBytes(server.url, `${NS}/configmaps/app-config`, PB)).body, pb.body);
  });

  it('serves a list, and prefers protobuf when it comes first in Accept', async () => {
    const list = await getBytes(server.url, `${NS}/configmaps?labelSelector=app%3Ddemo`, `${PB},application/json`);
    assert.equal(list.type, PB);
    const decoded = decodeProtobufObject(list.body).object as { kind: string; items: Array<{ metadata: { name: string } }> };
    assert.equal(decoded.kind, 'ConfigMapList');
    assert.deepEqual(decoded.items.map((i) => i.metadata.name), ['app-config']);
  });

  it('answers a 404 with a protobuf Status that decodes to the reference one', async () => {
    const f = fixture('protobuf/missing-configmap-status') as unknown as { json: { response: { body: unknown } } };
    const pb = await getBytes(server.url, `${NS}/configmaps/missing`, PB);
    assert.equal(pb.status, 404);
    assert.equal(pb.type, PB);
    assert.deepEqual(placeholders(decodeProtobufObject(pb.body).object), f.json.response.body);
  });

  it('answers a create sent and asked in protobuf (kubectl create configmap) in protobuf', async () => {
    const f = fixture('protobuf/create-configmap-kubectl-bytes');
    const body = Buffer.from((f.request.body as { data: string }).data, 'base64');
    const reply = await new Promise<{ status: number; type: string; body: Buffer }>((resolve, reject) => {
      const req = request(new URL(f.request.path, server.url), { method: 'POST', headers: { ...f.request.headers, 'Content-Length': body.length } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.end(body);
    });
    assert.equal(reply.status, 201);
    assert.equal(reply.type, PB);
    const created = decodeProtobufObject(reply.body).object as { metadata: { name: string; managedFields: Array<{ manager: string }> } };
    assert.equal(created.metadata.managedFields[0]!.manager, 'kubectl-create');
  });

  it('streams a watch as length-prefixed WatchEvent frames', async () => {
    const w = await getBytes(server.url, `${NS}/configmaps?watch=1&timeoutSeconds=1`, PB);
    assert.equal(w.type, `${PB};stream=watch`);
    const length = w.body.readUInt32BE(0);
    const event = fields(w.body.subarray(4, 4 + length));
    assert.equal(event.get(1)!.toString(), 'ADDED');
    const raw = fields(event.get(2)!).get(1)!;
    assert.equal((decodeProtobufObject(raw).object as { metadata: { name: string } }).metadata.name, 'app-config');
  });
});
