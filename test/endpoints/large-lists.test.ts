// Lists of several megabytes, as clients read them over HTTP: a body in chunks goes out a megabyte
// at a time as the connection drains, so these check that JSON, Protobuf and Table lists arrive
// whole and in order (Content-Length included), to a reader that pauses and after one that goes away.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { connect as http2Connect } from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { encodeProtobufList } from '../../src/encoding/protobuf-encode.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { call, memoryServer, mustOk, sleep, type ClientTls } from '../helpers.js';

const NS = 'large-lists';
const LIST = `/api/v1/namespaces/${NS}/configmaps`;
const BIG = 120; // ~30 KiB each: chunks written as they are
const SMALL = 300; // ~1 KiB each: chunks gathered into blocks
const PB = 'application/vnd.kubernetes.protobuf';
const TABLE = 'application/json;as=Table;g=meta.k8s.io;v=v1';

interface Got {
  status: number;
  length: number;
  body: Buffer;
}

/** A GET read to its end; `pauseMs` stops reading after the first chunk for that long; `abandon` goes away after the first chunk. */
function get(base: string, path: string, accept: string, options: { pauseMs?: number; abandon?: boolean } = {}): Promise<Got> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, base), { headers: { Accept: accept } }, (res) => {
      const chunks: Buffer[] = [];
      let first = true;
      res.on('data', (c: Buffer) => {
        chunks.push(c);
        if (!first) return;
        first = false;
        if (options.abandon) {
          req.destroy();
          resolve({ status: res.statusCode ?? 0, length: Number(res.headers['content-length']), body: Buffer.concat(chunks) });
        } else if (options.pauseMs) {
          res.pause();
          setTimeout(() => res.resume(), options.pauseMs);
        }
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, length: Number(res.headers['content-length']), body: Buffer.concat(chunks) }));
      res.on('error', (err) => (options.abandon ? undefined : reject(err)));
    });
    req.on('error', (err) => (options.abandon ? undefined : reject(err)));
    req.end();
  });
}

const names = (): string[] => [...Array.from({ length: BIG }, (_, i) => `big-${String(i).padStart(3, '0')}`), ...Array.from({ length: SMALL }, (_, i) => `small-${String(i).padStart(3, '0')}`)];

async function fill(server: RunningServer, tls?: ClientTls): Promise<void> {
  await mustOk(call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: NS } }, tls }), 201);
  const all = names();
  for (let at = 0; at < all.length; at += 20) {
    await Promise.all(all.slice(at, at + 20).map((name) => {
      const size = name.startsWith('big') ? 30_000 : 1_000;
      return mustOk(call(server.url, 'POST', LIST, { body: { metadata: { name }, data: { payload: name.padEnd(size, '.') } }, tls }), 201);
    }));
  }
}

describe('lists of several megabytes', { timeout: 120_000 }, () => {
  let server: RunningServer;

  before(async () => {
    server = await memoryServer();
    await fill(server);
  });

  after(async () => {
    await server.close();
  });

  it('answers the JSON list whole, in order, its Content-Length the body', { timeout: 30_000 }, async () => {
    const got = await get(server.url, LIST, 'application/json');
    assert.equal(got.status, 200);
    assert.ok(got.body.length > 3 * 1024 * 1024, `${got.body.length} bytes`);
    assert.equal(got.length, got.body.length);
    const list = JSON.parse(got.body.toString('utf8')) as { items: Array<{ metadata: { name: string }; data: { payload: string } }> };
    assert.deepEqual(list.items.map((i) => i.metadata.name), names());
    for (const item of list.items) assert.ok(item.data.payload.startsWith(item.metadata.name));
  });

  it('answers the Protobuf list byte for byte as the list encoder writes the JSON list', { timeout: 30_000 }, async () => {
    const json = JSON.parse((await get(server.url, LIST, 'application/json')).body.toString('utf8')) as { metadata: Record<string, unknown>; items: Array<Record<string, unknown>> };
    const got = await get(server.url, LIST, PB);
    assert.equal(got.status, 200);
    assert.equal(got.length, got.body.length);
    assert.deepEqual(got.body, encodeProtobufList('ConfigMapList', 'v1', json.metadata, json.items));
  });

  it('answers the Table with a row per object, in order', { timeout: 30_000 }, async () => {
    for (const include of ['Metadata', 'Object']) {
      const got = await get(server.url, `${LIST}?includeObject=${include}`, TABLE);
      assert.equal(got.status, 200);
      assert.equal(got.length, got.body.length);
      const table = JSON.parse(got.body.toString('utf8')) as { rows: Array<{ cells: unknown[]; object: { metadata: { name: string } } }> };
      assert.deepEqual(table.rows.map((r) => r.cells[0]), names(), include);
      assert.deepEqual(table.rows.map((r) => r.object.metadata.name), names(), include);
    }
  });

  it('gives a reader that pauses the same body, and serves others meanwhile', { timeout: 30_000 }, async () => {
    const whole = await get(server.url, LIST, 'application/json');
    const paused = get(server.url, LIST, 'application/json', { pauseMs: 500 });
    await sleep(50);
    const other = await mustOk(call(server.url, 'GET', `${LIST}/small-000`));
    assert.equal(other.json.metadata.name, 'small-000');
    assert.deepEqual((await paused).body, whole.body);
  });

  it('goes on serving after a reader goes away in the middle of a list', { timeout: 30_000 }, async () => {
    for (const accept of ['application/json', PB, TABLE]) {
      const gone = await get(server.url, LIST, accept, { abandon: true });
      assert.ok(gone.body.length < gone.length, `${accept}: left after ${gone.body.length} of ${gone.length} bytes`);
    }
    await sleep(100);
    const got = await get(server.url, LIST, 'application/json');
    assert.equal(got.length, got.body.length);
    assert.equal((JSON.parse(got.body.toString('utf8')) as { items: unknown[] }).items.length, BIG + SMALL);
  });
});

describe('lists of several megabytes over HTTPS and HTTP/2', { timeout: 120_000 }, () => {
  let dir: string;
  let server: RunningServer;
  let tls: ClientTls;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'capstan-large-lists-'));
    server = await startServer({ bindAddress: '127.0.0.1', port: 0, storage: 'memory', dataDir: dir });
    const m = server.material!;
    tls = { ca: m.caCert, cert: m.adminCert, key: m.adminKey };
    await fill(server, tls);
  });

  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers an HTTP/2 stream that pauses the same list as HTTP/1.1 over TLS', { timeout: 30_000 }, async () => {
    const overHttp1 = await call(server.url, 'GET', LIST, { tls });
    assert.equal(overHttp1.status, 200);
    const session = http2Connect(server.url, tls);
    session.on('error', () => undefined);
    try {
      for (const pauseMs of [0, 400]) {
        const stream = session.request({ ':path': LIST, accept: 'application/json' });
        const body = await new Promise<Buffer>((resolve, reject) => {
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => {
            if (chunks.length === 0 && pauseMs) {
              stream.pause();
              setTimeout(() => stream.resume(), pauseMs);
            }
            chunks.push(c);
          });
          stream.on('end', () => resolve(Buffer.concat(chunks)));
          stream.on('error', reject);
        });
        const text = body.toString('utf8');
        if (text !== overHttp1.text) {
          let i = 0;
          while (text[i] === overHttp1.text[i]) i++;
          assert.fail(`paused ${pauseMs} ms: ${text.length} against ${overHttp1.text.length} characters, first difference at ${i}: ${JSON.stringify(text.slice(i - 40, i + 40))} against ${JSON.stringify(overHttp1.text.slice(i - 40, i + 40))}`);
        }
        // The controllers of a TLS server publish kube-root-ca.crt in every namespace.
        const listed = (JSON.parse(text) as { items: Array<{ metadata: { name: string } }> }).items.map((i) => i.metadata.name);
        assert.deepEqual(listed.filter((name) => name !== 'kube-root-ca.crt'), names());
      }
    } finally {
      session.close();
    }
  });
});
