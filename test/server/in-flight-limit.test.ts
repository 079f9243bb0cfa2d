// The max-in-flight limit: read-only and mutating requests counted apart, long-running ones not at
// all; beyond the limit the reference's plain-text 429 with Retry-After, but system:masters is
// always served.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { call, memoryServer, mustOk, until } from '../helpers.js';
import { parsePrometheusText, sampleValue } from '../prometheus-text.js';

const SLOW = '/api/v1/namespaces/default/configmaps?resourceVersion=99999999&resourceVersionMatch=NotOlderThan&timeout=1500ms';
const AS_ALICE = { 'Impersonate-User': 'alice' };

describe('max requests in flight', { timeout: 30_000 }, () => {
  it('answers 429 Retry-After beyond the limit, serves system:masters anyway, and counts mutating requests apart', async () => {
    const server = await memoryServer({ maxRequestsInflight: 2, maxMutatingRequestsInflight: 1, enablePriorityAndFairness: false });
    try {
      // Two slow lists (each waits for a revision that never comes, then times out) fill the read-only slots.
      const slow = [call(server.url, 'GET', SLOW), call(server.url, 'GET', SLOW)];
      await new Promise((r) => setTimeout(r, 300));
      const refused = await call(server.url, 'GET', '/api/v1/namespaces/default/configmaps', { headers: AS_ALICE });
      assert.equal(refused.status, 429);
      assert.equal(refused.headers['retry-after'], '1');
      assert.equal(refused.headers['content-type'], 'text/plain; charset=utf-8');
      assert.equal(refused.text, 'Too many requests, please try again later.\n');
      // The super-user is served over the limit.
      assert.equal((await call(server.url, 'GET', '/api/v1/namespaces/default/configmaps')).status, 200);
      // Mutating requests have slots of their own: alice's create gets past the limit (to be refused by RBAC).
      assert.equal((await call(server.url, 'POST', '/api/v1/namespaces/default/configmaps', { headers: AS_ALICE, body: { metadata: { name: 'x' } } })).status, 403);
      // A watch is long-running: not counted, not refused.
      const watch = await call(server.url, 'GET', '/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1', { headers: AS_ALICE });
      assert.equal(watch.status, 403, 'past the limit (then refused by RBAC)');
      for (const r of await Promise.all(slow)) assert.equal(r.status, 504);
      // Slots free again once the timed-out handlers have finished (their wait lasts 3 s).
      await until('slots free', async () => (await call(server.url, 'GET', '/api/v1/namespaces/default/configmaps', { headers: AS_ALICE })).status === 403, 5_000);
    } finally {
      await server.close();
    }
  });

  it('counts each limited kind in flight as a share of its own limit in apiserver_flowcontrol_read_vs_write_current_requests', async () => {
    const server = await memoryServer({ maxRequestsInflight: 2, maxMutatingRequestsInflight: 1, enablePriorityAndFairness: false });
    // One slow list holds one of the two read-only slots between the two scrapes.
    const slow = call(server.url, 'GET', SLOW);
    try {
      const name = 'apiserver_flowcontrol_read_vs_write_current_requests';
      const scrape = async () => parsePrometheusText((await mustOk(call(server.url, 'GET', '/metrics'))).text);
      const of = (m: ReturnType<typeof parsePrometheusText>, part: 'sum' | 'count', kind: string) => sampleValue(m, `${name}_${part}`, { phase: 'executing', request_kind: kind })!;
      await new Promise((r) => setTimeout(r, 300));
      const during = await scrape();
      await new Promise((r) => setTimeout(r, 400));
      const later = await scrape();
      const ns = of(later, 'count', 'readOnly') - of(during, 'count', 'readOnly');
      assert.ok(ns > 300e6 && ns < 2e9, `${ns} ns of observations in 400 ms`);
      // Every nanosecond at 1 of 2 (the scrapes' own moments at 2 of 2).
      const share = (of(later, 'sum', 'readOnly') - of(during, 'sum', 'readOnly')) / ns;
      assert.ok(Math.abs(share - 0.5) < 0.05, `read-only share ${share}`);
      // No mutating request meanwhile: its share stayed at 0.
      assert.equal(of(later, 'sum', 'mutating'), of(during, 'sum', 'mutating'));
      assert.ok(of(later, 'count', 'mutating') > of(during, 'count', 'mutating'));
      assert.equal((await slow).status, 504);
    } finally {
      await slow.catch(() => undefined);
      await server.close();
    }
  });
});
