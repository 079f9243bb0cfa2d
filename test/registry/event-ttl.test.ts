// --event-ttl: an Event goes away the TTL after it was last written (a later write keeps it
// longer), watchers see it deleted, and nothing but Events expires.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/server.js';
import { call, memoryServer, mustOk, sleep, until } from '../helpers.js';

const EVENTS = '/api/v1/namespaces/default/events';

function event(name: string): object {
  return {
    apiVersion: 'v1', kind: 'Event', metadata: { name }, reason: 'Tested', message: name, type: 'Normal',
    involvedObject: { kind: 'ConfigMap', namespace: 'default', name: 'x', apiVersion: 'v1' },
  };
}

describe('event ttl', { timeout: 30_000 }, () => {
  let server: RunningServer;
  before(async () => {
    server = await memoryServer({ eventTtlMs: 2_000 });
  });
  after(() => server.close());

  it('deletes an Event the TTL after its last write, and tells watchers', async () => {
    const watched: string[] = [];
    const watch = request(`${server.url}${EVENTS}?watch=true`, (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        for (const line of chunk.split('\n').filter(Boolean)) {
          const e = JSON.parse(line) as { type: string; object: { metadata: { name: string } } };
          watched.push(`${e.type} ${e.object.metadata.name}`);
        }
      });
    });
    watch.end();
    try {
      await sleep(200);
      const started = Date.now();
      await mustOk(call(server.url, 'POST', EVENTS, { body: event('once') }), 201);
      await mustOk(call(server.url, 'POST', EVENTS, { body: event('again') }), 201);
      await mustOk(call(server.url, 'POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'stays' } } }), 201);
      await sleep(1_200);
      await mustOk(call(server.url, 'PATCH', `${EVENTS}/again`, { headers: { 'Content-Type': 'application/merge-patch+json' }, body: { count: 2 } }));
      await until('the Event written once is gone', async () => (await call(server.url, 'GET', `${EVENTS}/once`)).status === 404, 4_000, 50);
      assert.ok(Date.now() - started >= 2_000, 'not before its TTL');
      assert.equal((await call(server.url, 'GET', `${EVENTS}/again`)).status, 200, 'written again since: kept');
      await until('the Event written again is gone too', async () => (await call(server.url, 'GET', `${EVENTS}/again`)).status === 404, 4_000, 50);
      assert.equal((await call(server.url, 'GET', '/api/v1/namespaces/default/configmaps/stays')).status, 200);
      await until('watchers told', () => watched.includes('DELETED once') && watched.includes('DELETED again'), 2_000, 20);
    } finally {
      watch.destroy();
    }
  });
});
