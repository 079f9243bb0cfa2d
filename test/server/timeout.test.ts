// The request timeout: a request that is not long-running answers the reference's 504 Timeout
// Status once --request-timeout (or a shorter ?timeout=) passes; a watch is exempt (it ends on its
// timeoutSeconds, or between --min-request-timeout and twice it); the server serves on once the
// timed-out handler finishes.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { describe, it } from 'node:test';
import { call, memoryServer } from '../helpers.js';

/** How long a watch of `url` stays open (ms), read to its end. */
function watchDuration(url: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const started = Date.now();
    const req = request(url, (res) => {
      res.resume();
      res.on('end', () => resolve(Date.now() - started));
    });
    req.on('error', reject);
    req.end();
  });
}

const FAR_FUTURE = '/api/v1/namespaces/default/configmaps?resourceVersion=99999999&resourceVersionMatch=NotOlderThan';

describe('request timeout', { timeout: 30_000 }, () => {
  it('answers 504 Timeout at --request-timeout, or sooner when ?timeout= asks', async () => {
    const server = await memoryServer({ requestTimeoutMs: 400 });
    try {
      // A list at a revision not reached yet waits (up to 3 s) for it: longer than the limit.
      const started = Date.now();
      const late = await call(server.url, 'GET', FAR_FUTURE);
      const took = Date.now() - started;
      assert.equal(late.status, 504);
      assert.deepEqual(late.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Timeout: request did not complete within requested timeout - context deadline exceeded', reason: 'Timeout', details: {}, code: 504 });
      assert.ok(took >= 350 && took < 2_000, `answered after ${took} ms`);
      const sooner = Date.now();
      assert.equal((await call(server.url, 'GET', `${FAR_FUTURE}&timeout=100ms`)).status, 504);
      assert.ok(Date.now() - sooner < 350, 'the shorter timeout asked for');
      const bad = await call(server.url, 'GET', '/api/v1/namespaces?timeout=soon');
      assert.equal(bad.status, 400);
      assert.equal(bad.json.message, 'invalid timeout specified in the request URL - time: invalid duration "soon"');
    } finally {
      await server.close();
    }
  });

  it('leaves watches alone, and serves on after a timed-out handler finishes', async () => {
    const server = await memoryServer({ requestTimeoutMs: 300 });
    try {
      const watch = await watchDuration(`${server.url}/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1`);
      assert.ok(watch >= 900, `the watch ran its own second (${watch} ms)`);
      assert.equal((await call(server.url, 'GET', FAR_FUTURE)).status, 504);
      // The handler finished later, its answer dropped: the server is still well.
      await new Promise((r) => setTimeout(r, 3_200));
      assert.equal((await call(server.url, 'GET', '/api/v1/namespaces/default')).status, 200);
    } finally {
      await server.close();
    }
  });

  it('ends a watch that gives no timeoutSeconds between --min-request-timeout and twice it', async () => {
    const server = await memoryServer({ minRequestTimeoutSeconds: 1 });
    try {
      const lasted = await watchDuration(`${server.url}/api/v1/namespaces/default/configmaps?watch=true`);
      assert.ok(lasted >= 950 && lasted < 2_600, `the watch lasted ${lasted} ms`);
    } finally {
      await server.close();
    }
  });
});
