// The listener as the reference's Go HTTP server behaves (issue 14): requests it cannot read
// (a bad escape in the path, an unknown method, headers over 1 MiB) answered as Go answers them,
// headers up to 1 MiB read, slow headers cut off, a refused oversize body never leaving a
// keep-alive or HTTP/2 client hanging, and --tls-min-version / --tls-cipher-suites served.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect as http2Connect, constants as h2 } from 'node:http2';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { call, memoryServer, sleep, until } from '../helpers.js';

const CM = '/api/v1/namespaces/default/configmaps';
const LIMIT = 3 * 1024 * 1024;

interface Exchange {
  /** Everything the server sent. */
  text: string;
  /** Whether it closed the connection (within the wait). */
  closed: boolean;
  /** Milliseconds until it closed (or the wait ran out). */
  ms: number;
}

/** Writes `chunks` on a fresh connection, then reads until the server closes it or `waitMs` pass. */
async function exchange(port: number, chunks: Array<string | Buffer>, waitMs = 3000, pauseMs = 0): Promise<Exchange> {
  const socket = netConnect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  const started = Date.now();
  let text = '';
  let closed = false;
  socket.on('data', (d: Buffer) => { text += d.toString('latin1'); });
  socket.on('error', () => undefined);
  const done = new Promise<void>((resolve) => socket.once('close', () => { closed = true; resolve(); }));
  for (const chunk of chunks) {
    if (socket.destroyed) break;
    socket.write(chunk);
    if (pauseMs) await sleep(pauseMs);
  }
  await Promise.race([done, sleep(waitMs)]);
  const ms = Date.now() - started;
  socket.destroy();
  return { text, closed, ms };
}

describe('the listener, as Go\'s HTTP server', { timeout: 60_000 }, () => {
  let server: RunningServer;
  before(async () => {
    server = await memoryServer({ requestHeaderTimeoutMs: 600 });
  });
  after(() => server.close());

  it('answers a path with a bad escape as Go does: 400 "400 Bad Request", connection closed (was 500 URI malformed)', async () => {
    for (const path of [`${CM}/%`, `${CM}/%zz`, `${CM}/a%2`]) {
      const r = await exchange(server.port, [`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`]);
      assert.match(r.text, /^HTTP\/1\.1 400 Bad Request\r\n/, path);
      assert.match(r.text, /\r\nContent-Type: text\/plain; charset=utf-8\r\n/i, path);
      assert.match(r.text, /\r\nConnection: close\r\n/i, path);
      assert.ok(r.text.endsWith('400 Bad Request') || r.text.includes('\r\n\r\nf\r\n400 Bad Request'), JSON.stringify(r.text));
      assert.equal(r.closed, true, path);
    }
  });

  it('answers a method it does not know with the reference\'s 405 Status (was 400 with an empty body)', async () => {
    const r = await exchange(server.port, [`FOO ${CM} HTTP/1.1\r\nHost: x\r\n\r\n`]);
    assert.match(r.text, /^HTTP\/1\.1 405 Method Not Allowed\r\n/);
    const body = JSON.parse(r.text.slice(r.text.indexOf('\r\n\r\n') + 4));
    assert.deepEqual(body, {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server does not allow this method on the requested resource',
      reason: 'MethodNotAllowed', details: {}, code: 405,
    });
    assert.equal(r.closed, true);
  });

  it('reads a label selector of almost 1 MiB (Node\'s own limit is 16 KiB), and refuses one past 1 MiB with Go\'s 431', async () => {
    // 100,000 requirements: 900 KB of query.
    const selector = Array.from({ length: 100_000 }, (_, i) => `k${i}=v`).join(',');
    const r = await call(server.url, 'GET', `${CM}?labelSelector=${selector}`);
    assert.equal(r.status, 200, r.text.slice(0, 300));
    assert.deepEqual(r.json.items, []);
    const over = await exchange(server.port, [`GET ${CM}?labelSelector=a%3D${'b'.repeat((1 << 20) + 8192)} HTTP/1.1\r\nHost: x\r\n\r\n`]);
    assert.match(over.text, /^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    assert.ok(over.text.endsWith('431 Request Header Fields Too Large'), over.text);
    assert.equal(over.closed, true);
  });

  it('closes the connection of a client whose headers take longer than the header timeout, answering nothing', async () => {
    // Headers trickled in forever: one line every 100 ms.
    const lines = [`GET ${CM} HTTP/1.1\r\n`, ...Array.from({ length: 50 }, (_, i) => `X-Slow-${i}: 1\r\n`)];
    const r = await exchange(server.port, lines, 10_000, 100);
    assert.equal(r.closed, true);
    assert.equal(r.text, '');
    // 600 ms, checked every 150 ms.
    assert.ok(r.ms >= 550 && r.ms < 2500, `closed after ${r.ms} ms`);
  });

  it('closes a keep-alive connection after refusing an oversize chunked body, so the client never hangs on it (HTTP/1.1)', async () => {
    const socket = netConnect(server.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let text = '';
    socket.on('data', (d: Buffer) => { text += d.toString('latin1'); });
    socket.on('error', () => undefined);
    const closed = new Promise<boolean>((resolve) => socket.once('close', () => resolve(true)));
    socket.write(`POST ${CM} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    // Past the limit, then the client stops sending (it has its answer) and asks again on the same connection.
    for (let sent = 0; sent <= LIMIT; sent += chunk.length) socket.write(`${chunk.length.toString(16)}\r\n${chunk.toString('latin1')}\r\n`);
    const answered = Date.now();
    while (!text.includes('\r\n\r\n') && Date.now() - answered < 5000) await sleep(20);
    assert.match(text, /^HTTP\/1\.1 413 Payload Too Large\r\n/);
    assert.match(text, /\r\nConnection: close\r\n/i);
    assert.match(text, /"message":"Request entity too large: limit is 3145728","reason":"RequestEntityTooLarge","code":413/);
    socket.write(`GET ${CM} HTTP/1.1\r\nHost: x\r\n\r\n`);
    // The server closes rather than reading the next request as more of the body (which hung).
    assert.equal(await Promise.race([closed, sleep(3000).then(() => false)]), true, 'the connection was left open');
    socket.destroy();
    // Nothing was stored, and the next connection is served.
    assert.deepEqual((await call(server.url, 'GET', CM)).json.items, []);
  });

  it('refuses a body declared over the limit at once, closing the connection', async () => {
    const r = await exchange(server.port, [`POST ${CM} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${LIMIT + 1}\r\n\r\n{"a":`]);
    assert.match(r.text, /^HTTP\/1\.1 413 Payload Too Large\r\n/);
    assert.equal(r.closed, true);
  });
});

describe('the TLS listener: HTTP/2 and the TLS flags', { timeout: 60_000 }, () => {
  let dir: string;
  let server: RunningServer;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'capstan-listener-'));
    server = await startServer({
      bindAddress: '127.0.0.1', port: 0, storage: 'memory', dataDir: dir,
      tlsCipherSuites: ['TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256'], requestHeaderTimeoutMs: 600,
    });
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 413 on an HTTP/2 stream that sends too much and resets it; the session goes on serving', async () => {
    const m = server.material!;
    const session = http2Connect(server.url, { ca: m.caCert, cert: m.adminCert, key: m.adminKey });
    session.on('error', () => undefined);
    try {
      const big = session.request({ ':method': 'POST', ':path': CM, 'content-type': 'application/json' });
      big.on('error', () => undefined);
      const response = new Promise<{ status: number; body: string }>((resolve) => {
        big.on('response', (headers) => {
          let body = '';
          big.on('data', (d: Buffer) => { body += d; });
          big.on('end', () => resolve({ status: Number(headers[':status']), body }));
        });
      });
      const chunk = Buffer.alloc(256 * 1024, 0x20);
      // Past the limit, and never ended.
      for (let sent = 0; sent <= LIMIT; sent += chunk.length) big.write(chunk);
      const answer = await response;
      assert.equal(answer.status, 413);
      assert.equal(JSON.parse(answer.body).reason, 'RequestEntityTooLarge');
      // Reset by the server (RST_STREAM NO_ERROR: stop sending), though the client never ended it.
      await until('the stream reset', () => big.closed, 3000);
      assert.equal(big.rstCode, h2.NGHTTP2_NO_ERROR);
      // The same session is not stuck behind the refused body.
      const next = session.request({ ':path': CM });
      const status = await new Promise<number>((resolve) => next.on('response', (h) => { next.resume(); resolve(Number(h[':status'])); }));
      assert.equal(status, 200);
    } finally {
      session.close();
    }
  });

  it('serves the cipher suites --tls-cipher-suites names for TLS 1.2, and no other', async () => {
    const handshake = (ciphers: string) => new Promise<string>((resolve) => {
      const socket = tlsConnect({ port: server.port, host: '127.0.0.1', rejectUnauthorized: false, maxVersion: 'TLSv1.2', ciphers }, () => {
        resolve(socket.getCipher().standardName);
        socket.destroy();
      });
      socket.on('error', (err) => resolve(`refused: ${(err as NodeJS.ErrnoException).code ?? err.message}`));
    });
    // capstan's serving key is ECDSA.
    assert.equal(await handshake('ECDHE-ECDSA-AES128-GCM-SHA256'), 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256');
    assert.match(await handshake('ECDHE-ECDSA-AES256-GCM-SHA384'), /^refused/);
  });

  it('closes a connection that never finishes its TLS handshake after the header timeout', async () => {
    const r = await exchange(server.port, [], 10_000);
    assert.equal(r.closed, true);
    assert.ok(r.ms >= 550 && r.ms < 2500, `closed after ${r.ms} ms`);
  });
});

describe('--tls-min-version', { timeout: 60_000 }, () => {
  it('refuses clients below it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'capstan-tls13-'));
    const server = await startServer({ bindAddress: '127.0.0.1', port: 0, storage: 'memory', dataDir: dir, tlsMinVersion: 'VersionTLS13' });
    try {
      const version = (maxVersion: 'TLSv1.2' | 'TLSv1.3') => new Promise<string>((resolve) => {
        const socket = tlsConnect({ port: server.port, host: '127.0.0.1', rejectUnauthorized: false, maxVersion }, () => {
          resolve(socket.getProtocol() ?? '');
          socket.destroy();
        });
        socket.on('error', () => resolve('refused'));
      });
      assert.equal(await version('TLSv1.3'), 'TLSv1.3');
      assert.equal(await version('TLSv1.2'), 'refused');
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
