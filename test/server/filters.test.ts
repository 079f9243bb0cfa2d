// The filter chain: filters run in their declared order around the handler, and whatever goes
// wrong inside comes back as a Status, never as a bare error or a dropped connection.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { StatusError } from '../../src/errors.js';
import { authorization } from '../../src/server/filters/authorization.js';
import { filterChain, RequestContext, type Filter } from '../../src/server/filters/context.js';
import { recover } from '../../src/server/filters/recover.js';
import { requestInfo } from '../../src/server/filters/request-info.js';
import { Guard, alwaysAllow } from '../../src/auth/guard.js';
import { call } from '../helpers.js';

/** Serves `handle` on a free loopback port. */
async function serve(handle: (ctx: RequestContext) => Promise<void>): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => void handle(new RequestContext(req, res)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('filter chain', { timeout: 10_000 }, () => {
  const servers: Server[] = [];
  const start = async (handle: (ctx: RequestContext) => Promise<void>) => {
    const s = await serve(handle);
    servers.push(s.server);
    return s.url;
  };
  after(() => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))));

  it('runs the filters outermost first, each around the next', async () => {
    const seen: string[] = [];
    const step = (name: string): Filter => async (_ctx, next) => {
      seen.push(`${name} in`);
      await next();
      seen.push(`${name} out`);
    };
    const url = await start(filterChain([step('a'), step('b'), step('c')], async (ctx) => {
      seen.push('handler');
      ctx.res.end('done');
    }));
    const r = await call(url, 'GET', '/x');
    assert.equal(r.text, 'done');
    assert.deepEqual(seen, ['a in', 'b in', 'c in', 'handler', 'c out', 'b out', 'a out']);
  });

  it('a filter that answers ends the request there', async () => {
    let reached = false;
    const refuse: Filter = () => {
      throw new StatusError(429, 'TooManyRequests', 'Too many requests, please try again later.', {});
    };
    const url = await start(filterChain([recover(), requestInfo(), refuse], async () => {
      reached = true;
    }));
    const r = await call(url, 'GET', '/api/v1/pods');
    assert.equal(r.status, 429);
    assert.equal(r.json.kind, 'Status');
    assert.equal(r.json.reason, 'TooManyRequests');
    assert.equal(reached, false);
  });

  it('answers an unexpected throw as the reference\'s 500 InternalError Status', async () => {
    const url = await start(filterChain([recover(), requestInfo()], async () => {
      throw new Error('boom');
    }));
    const r = await call(url, 'GET', '/api/v1/namespaces');
    assert.equal(r.status, 500);
    assert.match(String(r.headers['content-type']), /^application\/json/);
    assert.deepEqual(r.json, {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Internal error occurred: boom',
      reason: 'InternalError', details: { causes: [{ message: 'boom' }] }, code: 500,
    });
  });

  it('indents the Status when the request asks for it', async () => {
    const url = await start(filterChain([recover(), requestInfo()], async () => {
      throw new StatusError(404, 'NotFound', 'gone', {});
    }));
    const r = await call(url, 'GET', '/api/v1/namespaces/x?pretty=true');
    assert.equal(r.status, 404);
    assert.ok(r.text.includes('\n  "kind": "Status"'), r.text);
  });

  it('filters out of order fail as a Status, not a crash: authorization needs a user first', async () => {
    const url = await start(filterChain([recover(), requestInfo(), authorization(new Guard(async () => undefined, alwaysAllow))], async (ctx) => {
      ctx.res.end('unreachable');
    }));
    const r = await call(url, 'GET', '/api/v1/namespaces');
    assert.equal(r.status, 500);
    assert.equal(r.json.reason, 'InternalError');
    assert.match(r.json.message, /before the filter that sets it ran/);
  });
});
