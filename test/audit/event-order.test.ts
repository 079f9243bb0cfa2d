// The log's lines are the events as they were when taken, in the order taken, whatever the
// record became afterwards (annotations, the impersonated user, a create's body completing the
// object reference, admission's annotations), and an event of a request that never ends (a
// watch) is in the file within the gather window. A guard for any later change that encodes
// lines after they are taken (deferred or batched encoding).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { LogBackend } from '../../src/audit/log-backend.js';
import type { Level, Stage } from '../../src/audit/policy.js';
import { AuditRecord, BodyCache, type RequestFacts } from '../../src/audit/record.js';

const RECEIVED = 1_795_000_000_000_007; // µs

function config(level: Level) {
  return { level, omitStages: new Set<Stage>(), omitManagedFields: false };
}

function facts(id: string, over: Partial<RequestFacts> = {}): RequestFacts {
  return {
    auditID: id, requestURI: '/api/v1/namespaces/default/configmaps/x', verb: 'get', user: { name: 'alice', groups: ['system:authenticated'] },
    sourceIPs: ['127.0.0.1'], userAgent: 'kubectl/v1.25.0', objectRef: { resource: 'configmaps', namespace: 'default', name: 'x', apiVersion: 'v1' },
    receivedMicros: RECEIVED, ...over,
  };
}

describe('audit log: events as taken, in order', { timeout: 20_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-audit-deferred-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const backend = (name: string) => new LogBackend({ path: join(dir, name), format: 'json', maxSizeMb: 0, maxBackups: 0, maxAgeDays: 0, compress: false, bufferSize: 10_000, maxBatchSize: 1 });

  it('show each event as it was when taken, in the order taken, whatever the record became', async () => {
    const log = backend('order.log');
    await log.open();
    const want: string[] = [];
    /** The event taken now: the line it must be is made now from a copy of the record's state. */
    const take = (record: AuditRecord, stage: Stage, micros: number) => {
      want.push(record.line(stage, micros));
      assert.equal(log.process(record, stage, micros), true);
    };
    const cache = new BodyCache();
    // Two GETs over one connection, a create, an update, an impersonated request, a watch that never ends,
    // their events interleaved as concurrent requests' are.
    const a = new AuditRecord(config('Metadata'), facts('a', { bodyCache: cache }));
    const create = new AuditRecord(config('Request'), facts('create', { verb: 'create', objectRef: { resource: 'configmaps', namespace: 'default', apiVersion: 'v1' } }));
    const imp = new AuditRecord(config('Metadata'), facts('imp'));
    const watch = new AuditRecord(config('Metadata'), facts('watch', { verb: 'watch', requestURI: '/api/v1/namespaces/default/configmaps?watch=1' }));
    // After RequestReceived (and, were lines encoded later, before its line is written): the authorizer's
    // annotations, the create's body (its name completes the object reference), the impersonated
    // user, admission's annotations.
    take(a, 'RequestReceived', RECEIVED);
    take(create, 'RequestReceived', RECEIVED + 1);
    a.annotate('authorization.k8s.io/decision', 'allow');
    a.annotate('authorization.k8s.io/reason', '');
    create.logRequestObject({ metadata: { name: 'made', uid: 'u-1' }, data: { k: 'v' } });
    take(imp, 'RequestReceived', RECEIVED + 2);
    take(watch, 'RequestReceived', RECEIVED + 3);
    imp.logImpersonatedUser({ name: 'bob', groups: ['devs'] });
    imp.annotate('authorization.k8s.io/decision', 'allow');
    const adm = new AuditRecord(config('Metadata'), facts('adm', { verb: 'update' }));
    take(adm, 'RequestReceived', RECEIVED + 4);
    adm.admissionAnnotations['pod-security.kubernetes.io/enforce-policy'] = 'privileged:latest';
    create.admissionAnnotations['pod-security.kubernetes.io/enforce-policy'] = 'privileged:latest';
    a.responded(200);
    take(a, 'ResponseComplete', RECEIVED + 10);
    // The connection's next GET, the same fields (copied from its cache), and a panic.
    const b = new AuditRecord(config('Metadata'), facts('b', { bodyCache: cache }));
    take(b, 'RequestReceived', RECEIVED + 11);
    b.annotate('authorization.k8s.io/decision', 'allow');
    b.panicked('boom');
    take(b, 'Panic', RECEIVED + 12);
    watch.responded(200);
    take(watch, 'ResponseStarted', RECEIVED + 13);
    create.responded(201);
    take(create, 'ResponseComplete', RECEIVED + 14);
    imp.responded(403);
    take(imp, 'ResponseComplete', RECEIVED + 15);
    adm.responded(200);
    take(adm, 'ResponseComplete', RECEIVED + 15);
    const last = new AuditRecord(config('Metadata'), facts('last', { bodyCache: cache }));
    take(last, 'RequestReceived', RECEIVED + 16);
    last.annotate('authorization.k8s.io/decision', 'forbid');
    await log.close();
    const got = readFileSync(join(dir, 'order.log'), 'utf8').split(/(?<=\n)/);
    assert.deepEqual(got, want);
    // What the first lines must not show, spelled out.
    const first = (id: string) => JSON.parse(got.find((l) => l.includes(`"auditID":"${id}","stage":"RequestReceived"`))!) as Record<string, unknown>;
    assert.equal(first('a')['annotations'], undefined);
    assert.equal(first('imp')['impersonatedUser'], undefined);
    assert.deepEqual(first('create')['objectRef'], { resource: 'configmaps', namespace: 'default', apiVersion: 'v1' });
    assert.equal(first('adm')['annotations'], undefined);
    assert.equal(first('last')['annotations'], undefined);
    assert.equal((JSON.parse(got.find((l) => l.includes('"auditID":"create","stage":"ResponseComplete"'))!) as { objectRef: { name: string } }).objectRef.name, 'made');
  });

  it('a request that never ends has its first line in the file within the gather window', async () => {
    const log = backend('watch.log');
    await log.open();
    const watch = new AuditRecord(config('Metadata'), facts('w', { verb: 'watch' }));
    const want = watch.line('RequestReceived', RECEIVED);
    assert.equal(log.process(watch, 'RequestReceived', RECEIVED), true);
    const started = Date.now();
    let text = '';
    while (Date.now() - started < 5_000 && text !== want) {
      await new Promise((r) => setTimeout(r, 10));
      text = readFileSync(join(dir, 'watch.log'), 'utf8');
    }
    assert.equal(text, want);
    // Well within a second (the log gathers events for 50 ms before each write).
    assert.ok(Date.now() - started < 1_000, `${Date.now() - started} ms`);
    await log.close();
  });
});
