// A graceful shutdown (what SIGTERM starts) on an in-process server: a request whose client went
// away while an admission webhook held it is still waited for before the store closes, and an
// HTTP/1.1 answer given while the server drains closes its connection, so that a keep-alive client
// sends nothing more in. An immediate close ends connections and watches at once but also lets
// running handlers finish before the store closes.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { connect, constants } from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensureServingMaterial } from '../../src/server/certs.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { answer, WebhookServer } from '../admission/webhook-server.js';
import { call, memoryServer, mustOk, readReply, sleep, until, type Reply } from '../helpers.js';

const REGISTRATION = '/apis/admissionregistration.k8s.io/v1';

describe('graceful shutdown (in-process)', { timeout: 60_000 }, () => {
  const hooks = new WebhookServer();
  let dir: string;
  let caBundle: string;
  // Reviews the webhook holds, each answered (allowed) when released.
  const held: (() => void)[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'capstan-shutdown-'));
    const material = await ensureServingMaterial(dir, []);
    caBundle = Buffer.from(material.caCert).toString('base64');
    await hooks.start(material);
    hooks.on('/hold', (review) => new Promise((resolve) => held.push(() => resolve(answer(review, { allowed: true })))));
  });

  after(async () => {
    for (const release of held.splice(0)) release();
    await hooks.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** A server whose ConfigMap creates wait for the holding webhook (`tls`: served over HTTPS and HTTP/2). */
  async function heldServer(tls = false): Promise<RunningServer> {
    const server = tls ? await startServer({ bindAddress: '127.0.0.1', port: 0, storage: 'memory', dataDir: '' }) : await memoryServer();
    const m = server.material;
    await mustOk(call(server.url, 'POST', `${REGISTRATION}/validatingwebhookconfigurations`, {
      tls: m && { ca: m.caCert, cert: m.adminCert, key: m.adminKey },
      body: {
        metadata: { name: 'hold' },
        webhooks: [{
          name: 'hold.example.com', clientConfig: { url: `https://127.0.0.1:${hooks.port}/hold`, caBundle }, sideEffects: 'None', admissionReviewVersions: ['v1'],
          rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
        }],
      },
    }), 201);
    return server;
  }

  /** console.error's lines while `run` runs. */
  async function errorsDuring(run: () => Promise<void>): Promise<string[]> {
    const lines: string[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void lines.push(args.map(String).join(' '));
    try {
      await run();
    } finally {
      console.error = original;
    }
    return lines;
  }

  it('waits for a request whose client went away before it closes the store', async () => {
    const server = await heldServer();
    const errors = await errorsDuring(async () => {
      const client = request(`${server.url}/api/v1/namespaces/default/configmaps`, { method: 'POST', headers: { 'Content-Type': 'application/json' } });
      client.on('error', () => {});
      client.end(JSON.stringify({ metadata: { name: 'abandoned' } }));
      await until('the webhook holds the create', () => held.length === 1);
      client.destroy();
      await sleep(100);
      let stopped = false;
      const stopping = server.shutdown().then(() => (stopped = true));
      await sleep(300);
      assert.equal(stopped, false, 'the shutdown waits for the create the webhook holds');
      held.shift()!();
      await stopping;
    });
    assert.deepEqual(errors, [], 'the create finished on an open store');
  });

  it('an immediate close ends open watches at once and still lets a running create finish on an open store', async () => {
    const server = await heldServer();
    const errors = await errorsDuring(async () => {
      const watchEnded = new Promise<void>((resolve) => {
        request(`${server.url}/api/v1/namespaces/default/configmaps?watch=true`, (res) => {
          res.resume();
          res.on('close', resolve);
        }).on('error', () => resolve()).end();
      });
      const client = request(`${server.url}/api/v1/namespaces/default/configmaps`, { method: 'POST', headers: { 'Content-Type': 'application/json' } });
      client.on('error', () => {});
      client.end(JSON.stringify({ metadata: { name: 'cut-off' } }));
      await until('the webhook holds the create', () => held.length === 1);
      const begun = Date.now();
      let closed = false;
      const closing = server.close().then(() => (closed = true));
      await watchEnded;
      await sleep(200);
      assert.equal(closed, false, 'the close waits for the create the webhook holds');
      held.shift()!();
      await closing;
      assert.ok(Date.now() - begun < 3_000, 'the open watch did not hold the close up');
    });
    assert.deepEqual(errors, [], 'the create finished on an open store');
  });

  it('closes an HTTP/1.1 connection after the answer it gives while draining', async () => {
    const server = await heldServer();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      // The connection is kept open between requests until the shutdown.
      const first = await new Promise<Reply>((resolve, reject) => request(`${server.url}/api/v1/namespaces`, { agent }, (res) => resolve(readReply(res))).on('error', reject).end());
      assert.equal(first.status, 200);
      assert.equal(first.headers.connection, 'keep-alive');
      const created = new Promise<Reply>((resolve, reject) => {
        request(`${server.url}/api/v1/namespaces/default/configmaps`, { agent, method: 'POST', headers: { 'Content-Type': 'application/json' } }, (res) => resolve(readReply(res)))
          .on('error', reject)
          .end(JSON.stringify({ metadata: { name: 'while-draining' } }));
      });
      await until('the webhook holds the create', () => held.length === 1);
      const stopping = server.shutdown();
      await sleep(100);
      held.shift()!();
      const reply = await created;
      assert.equal(reply.status, 201);
      assert.equal(reply.json.metadata.name, 'while-draining');
      assert.equal(reply.headers.connection, 'close', 'the client is told to send no more on this connection');
      await stopping;
    } finally {
      agent.destroy();
    }
  });

  it('tells an HTTP/2 client to open no more streams (GOAWAY) and finishes the one in flight', async () => {
    const server = await heldServer(true);
    const m = server.material!;
    const session = connect(server.url, { ca: m.caCert, cert: m.adminCert, key: m.adminKey });
    session.on('error', () => {});
    try {
      const goaway = new Promise<number>((resolve) => session.once('goaway', (code: number) => resolve(code)));
      const created = new Promise<{ status: number; body: string }>((resolve, reject) => {
        const stream = session.request({ [constants.HTTP2_HEADER_METHOD]: 'POST', [constants.HTTP2_HEADER_PATH]: '/api/v1/namespaces/default/configmaps', 'content-type': 'application/json' });
        let status = 0;
        let body = '';
        stream.on('response', (h) => (status = Number(h[':status'])));
        stream.on('data', (c: Buffer) => (body += c.toString()));
        stream.on('end', () => resolve({ status, body }));
        stream.on('error', reject);
        stream.end(JSON.stringify({ metadata: { name: 'over-h2' } }));
      });
      await until('the webhook holds the create', () => held.length === 1);
      const stopping = server.shutdown();
      assert.equal(await goaway, constants.NGHTTP2_NO_ERROR);
      held.shift()!();
      const reply = await created;
      assert.equal(reply.status, 201, reply.body);
      assert.equal((JSON.parse(reply.body) as { metadata: { name: string } }).metadata.name, 'over-h2');
      await stopping;
    } finally {
      session.destroy();
    }
  });
});
