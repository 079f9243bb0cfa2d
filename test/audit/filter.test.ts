// The audit filter on its own: a panic (an error that is no Status) is the event's last stage,
// the legacy format, omitManagedFields, source IPs and users request after request (with the
// audit ID filter around the user, as the server has it: that one completes the events).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openAuditor, type AuditSettings } from '../../src/audit/auditor.js';
import { sendBytes } from '../../src/endpoints/request.js';
import { audit, auditId } from '../../src/server/filters/audit.js';
import { filterChain, RequestContext, type Filter } from '../../src/server/filters/context.js';
import { recover } from '../../src/server/filters/recover.js';
import { requestInfo } from '../../src/server/filters/request-info.js';

const ALICE: Filter = (ctx, next) => {
  ctx.user = { name: 'alice', groups: ['system:authenticated'], extra: { scopes: ['b', 'a'] } };
  return next();
};

const OBJECT = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'x', namespace: 'default', managedFields: [{ manager: 'kubectl' }] }, data: { a: '1' } };

describe('audit filter', { timeout: 30_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-audit-filter-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function serve(policy: string, settings: Partial<AuditSettings>, requests: (base: string) => Promise<void>, who: Filter = ALICE): Promise<string> {
    writeFileSync(join(dir, 'policy.yaml'), `apiVersion: audit.k8s.io/v1\nkind: Policy\n${policy}`);
    const log = join(dir, `${Math.random().toString(36).slice(2)}.log`);
    const auditor = (await openAuditor({
      policyFile: join(dir, 'policy.yaml'), logPath: log, logFormat: 'json', logMode: 'blocking', logMaxAge: 0, logMaxBackup: 0, logMaxSize: 0,
      logCompress: false, logBatchBufferSize: 100, logBatchMaxSize: 1, ...settings,
    }))!;
    const handle = filterChain([recover(), requestInfo(), auditId(auditor), who, audit(auditor)], async (ctx) => {
      if (ctx.info.path.endsWith('/boom')) throw new Error('boom');
      sendBytes(ctx.res, 200, Buffer.from(JSON.stringify(OBJECT)), ctx.out);
    });
    const server: Server = createServer((req, res) => void handle(new RequestContext(req, res)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      await requests(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await auditor.close();
    }
    return readFileSync(log, 'utf8');
  }

  it('a panic: RequestReceived then Panic with the reference\'s 500 status, and the client gets a 500 Status', async () => {
    let status = 0;
    const text = await serve('rules:\n- level: Metadata\n', {}, async (base) => {
      const r = await fetch(`${base}/api/v1/namespaces/default/configmaps/boom`);
      status = r.status;
      assert.equal((await r.json() as { reason: string }).reason, 'InternalError');
    });
    assert.equal(status, 500);
    const events = text.trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(events.map((e) => e.stage), ['RequestReceived', 'Panic']);
    assert.deepEqual(events[1].responseStatus, { metadata: {}, status: 'Failure', message: "APIServer panic'd: boom", reason: 'InternalError', code: 500 });
    assert.deepEqual(events[1].user, { username: 'alice', groups: ['system:authenticated'], extra: { scopes: ['b', 'a'] } });
  });

  it('omitManagedFields drops managedFields from the response object; the legacy format is one text line per event', async () => {
    const json = await serve('omitManagedFields: true\nomitStages: [RequestReceived]\nrules:\n- level: RequestResponse\n', {}, async (base) => {
      await fetch(`${base}/api/v1/namespaces/default/configmaps/x`);
    });
    const event = JSON.parse(json.trim());
    assert.deepEqual(event.responseObject, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'x', namespace: 'default' }, data: { a: '1' } });
    const legacy = await serve('rules:\n- level: Metadata\n', { logFormat: 'legacy' }, async (base) => {
      await fetch(`${base}/version`, { headers: { 'User-Agent': 'test/1.0', 'Audit-ID': 'id-1' } });
    });
    const lines = legacy.trim().split('\n');
    assert.equal(lines.length, 2);
    assert.match(lines[0]!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z AUDIT: id="id-1" stage="RequestReceived" ip="127\.0\.0\.1" method="get" user="alice" groups="\\"system:authenticated\\"" as="<self>" asgroups="<lookup>" user-agent="test\/1\.0" namespace="<none>" uri="\/version" response="<deferred>"$/);
    assert.match(lines[1]!, /stage="ResponseComplete" .* response="200"$/);
  });
  it('source IPs: forwarded addresses first, then the peer; a keep-alive connection\'s later requests list their own', { timeout: 20_000 }, async () => {
    const text = await serve('rules:\n- level: Metadata\n', {}, async (base) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const get = (headers: Record<string, string>) => new Promise<void>((resolve, reject) => {
        request(`${base}/api/v1/namespaces/default/configmaps/x`, { agent, headers }, (res) => {
          res.resume();
          res.on('end', resolve);
        }).on('error', reject).end();
      });
      await get({});
      await get({ 'X-Forwarded-For': '10.0.0.1, not-an-ip, ::ffff:10.0.0.3', 'X-Real-Ip': '10.0.0.2' });
      await get({});
      agent.destroy();
    });
    const completes = text.trim().split('\n').map((l) => JSON.parse(l)).filter((e) => e.stage === 'ResponseComplete');
    assert.deepEqual(completes.map((e) => e.sourceIPs), [['127.0.0.1'], ['10.0.0.1', '10.0.0.3', '10.0.0.2', '127.0.0.1'], ['127.0.0.1']]);
  });

  it('each event carries its own audit ID over one connection, a given one with characters JSON escapes too', { timeout: 20_000 }, async () => {
    // 36 characters, as a UUID: the length a connection's last line (its template) was written with.
    const given = ['a'.repeat(34) + '"\\', 'b'.repeat(35) + '\u00e9', `${'c'.repeat(17)}\t${'c'.repeat(18)}`, 'd'.repeat(36), 'e'.repeat(36)];
    const answered: string[] = [];
    const text = await serve('rules:\n- level: Metadata\n', {}, async (base) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const get = (headers: Record<string, string>) => new Promise<void>((resolve, reject) => {
        request(`${base}/api/v1/namespaces/default/configmaps/x`, { agent, headers }, (res) => {
          answered.push(String(res.headers['audit-id']));
          res.resume();
          res.on('end', resolve);
        }).on('error', reject).end();
      });
      await get({});
      await get({});
      for (const id of given) await get({ 'Audit-ID': id });
      await get({});
      agent.destroy();
      // A user without extras, whose lines a connection keeps (with extras, each line is written whole).
    }, (ctx, next) => {
      ctx.user = { name: 'carol', groups: ['system:authenticated'] };
      return next();
    });
    const events = text.trim().split('\n').map((l) => JSON.parse(l) as { auditID: string; stage: string; stageTimestamp: string });
    const ids = [...new Set(events.map((e) => e.auditID))];
    // Each request's two events, in order, with the ID its answer carried.
    assert.deepEqual(events.map((e) => e.stage), answered.flatMap(() => ['RequestReceived', 'ResponseComplete']));
    assert.deepEqual(events.map((e) => e.auditID), answered.flatMap((id) => [id, id]));
    assert.equal(ids.length, answered.length);
    assert.deepEqual(answered.slice(2, 2 + given.length), given);
    for (const e of events) assert.match(e.stageTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  });

  it('the user of each event is its request\'s, for one name with other groups and uid from request to request', async () => {
    const fromHeaders: Filter = (ctx, next) => {
      const groups = String(ctx.req.headers['x-groups'] ?? '');
      const uid = ctx.req.headers['x-uid'];
      ctx.user = { name: 'bob', groups: groups ? groups.split(',') : [], ...(typeof uid === 'string' ? { uid } : {}) };
      return next();
    };
    const text = await serve('rules:\n- level: Metadata\n', {}, async (base) => {
      const sequence: Array<Record<string, string>> = [{ 'x-groups': 'a,b' }, { 'x-groups': 'a,b' }, { 'x-groups': 'a' }, { 'x-groups': 'a', 'x-uid': 'u1' }, {}];
      for (const headers of sequence) {
        await (await fetch(`${base}/api/v1/namespaces/default/configmaps/x`, { headers })).arrayBuffer();
      }
    }, fromHeaders);
    const completes = text.trim().split('\n').map((l) => JSON.parse(l)).filter((e) => e.stage === 'ResponseComplete');
    assert.deepEqual(completes.map((e) => e.user), [
      { username: 'bob', groups: ['a', 'b'] }, { username: 'bob', groups: ['a', 'b'] }, { username: 'bob', groups: ['a'] },
      { username: 'bob', uid: 'u1', groups: ['a'] }, { username: 'bob' },
    ]);
  });
});
