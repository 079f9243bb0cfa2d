// What audit logging costs a GET: every request audited at Metadata level to a log file (all
// stages; BENCH_AUDIT_OMIT_RECEIVED=1 without RequestReceived, as many policies have it) against
// the same server without an audit policy, compared as on-off.ts compares (both servers at once;
// target at most 10% CPU per request), and the audit work of one GET timed directly, in this
// process.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { metadataAuditPolicy } from './common.js';
import { compareOnOff, type OnOffServers } from './on-off.js';
import { Auditor } from '../src/audit/auditor.js';
import { LogBackend } from '../src/audit/log-backend.js';
import { parsePolicy, PolicyEvaluator } from '../src/audit/policy.js';
import { auditOf } from '../src/audit/record.js';
import { audit as auditFilter, auditId } from '../src/server/filters/audit.js';
import { RequestContext } from '../src/server/filters/context.js';
import { addAnswerHeader, AnswerResponse } from '../src/endpoints/response.js';

const TARGET_COST = 0.10;

/** Lines in a log file, counted on its bytes (a log of 100 MB made into one string costs as much again). */
function linesIn(file: string): number {
  const bytes = readFileSync(file);
  let lines = 0;
  for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) lines++;
  return lines;
}

/**
 * The audit work of one GET at Metadata level, timed in this process without the server around it:
 * the audit ID and audit filters, the authorizer's annotations, both events built and encoded into
 * the log's queue (written to /dev/null), beside the same request with only its Audit-Id header set
 * (what a server without a policy does), in CPU time. A figure the machine's other load barely moves.
 */
export async function directAuditWorkUs(): Promise<number> {
  const backend = new LogBackend({ path: '/dev/null', format: 'json', maxSizeMb: 0, maxBackups: 0, maxAgeDays: 0, compress: false, bufferSize: 1_000_000, maxBatchSize: 1 });
  await backend.open();
  const auditor = new Auditor(new PolicyEvaluator(parsePolicy(metadataAuditPolicy())), backend, false);
  const outer = auditId(auditor);
  const inner = auditFilter(auditor);
  const info = { isResourceRequest: true as const, path: '/api/v1/namespaces/default/configmaps/bench-get', verb: 'get', apiPrefix: 'api' as const, apiGroup: '', apiVersion: 'v1', namespace: 'default', resource: 'configmaps', name: 'bench-get', parts: ['configmaps', 'bench-get'] };
  const user = { name: 'system:anonymous', groups: ['system:unauthenticated'] };
  const socket = new Socket();
  Object.defineProperty(socket, 'remoteAddress', { value: '127.0.0.1' });
  const handler = (ctx: RequestContext): Promise<void> => {
    const record = auditOf(ctx.res);
    record?.annotate('authorization.k8s.io/decision', 'allow');
    record?.annotate('authorization.k8s.io/reason', '');
    ctx.res.end();
    return Promise.resolve();
  };
  const context = (): RequestContext => {
    const req = new IncomingMessage(socket);
    // HTTP/1.1, as the server's requests here (a connection's state is kept on its socket).
    req.httpVersionMajor = 1;
    req.httpVersionMinor = 1;
    req.url = info.path;
    req.headers = { 'user-agent': 'autocannon' };
    const ctx = new RequestContext(req, new AnswerResponse(req));
    ctx.info = info;
    // A user object of its own, as every authenticator hands out per request (one shared object
    // hid the cost of writing the user into the event: its cache by object always hit).
    ctx.user = { ...user, groups: [...user.groups] };
    return ctx;
  };
  const audited = async () => {
    const ctx = context();
    await outer(ctx, () => inner(ctx, () => handler(ctx)));
  };
  const plain = async () => {
    const ctx = context();
    addAnswerHeader(ctx.res, 'Audit-Id', '00000000-0000-0000-0000-000000000000');
    await handler(ctx);
  };
  // CPU time of the whole process (the log is written by libuv's threads), not the wall clock,
  // which other processes on a shared machine stretch.
  const time = async (f: () => Promise<void>) => {
    const n = 100_000;
    const before = process.cpuUsage();
    // A turn of the event loop now and then, so that the log's queue is written as in a server.
    for (let i = 0; i < n; i++) {
      await f();
      if (i % 64 === 0) await new Promise((r) => setImmediate(r));
    }
    const used = process.cpuUsage(before);
    return (used.user + used.system) / n;
  };
  await time(audited);
  await time(plain);
  const us = (await time(audited)) - (await time(plain));
  await auditor.close();
  return us;
}

export const auditServers = { name: 'audit', script: 'audit-server.js', labels: { off: 'no audit policy', on: 'audit at Metadata' }, targetCost: TARGET_COST } as const satisfies OnOffServers;

export function audit(): Promise<void> {
  const omitReceived = process.env['BENCH_AUDIT_OMIT_RECEIVED'] === '1';
  const logged = { events: 0, bytes: 0, files: 0 };
  return compareOnOff({
    ...auditServers, direct: directAuditWorkUs,
    note: `to a log file${omitReceived ? ', RequestReceived omitted (BENCH_AUDIT_OMIT_RECEIVED)' : ', every stage'}`,
    // Its log, written out by the stop (past 100 MB it has rotated: the backups count too).
    stopped: (dir, mode) => {
      if (mode === 'off') return;
      const files = readdirSync(dir).filter((n) => n.startsWith('audit') && n.endsWith('.log')).map((n) => join(dir, n));
      const events = files.reduce((sum, f) => sum + linesIn(f), 0);
      if (events === 0) throw new Error('the audited server wrote no events');
      logged.events += events;
      logged.bytes += files.reduce((sum, f) => sum + statSync(f).size, 0);
      logged.files += files.length;
    },
  }).then(() => console.log(`audit log: ${logged.events} events, ${(logged.bytes / 1e6).toFixed(1)} MB in ${logged.files} file(s) over all pairs`));
}
