// What API Priority and Fairness costs: GETs of one small ConfigMap (32 keep-alive connections,
// autocannon) on two servers alike but for APF on (the client's requests classified to the
// Limited global-default level: a seat of its share, the apiserver_flowcontrol_* numbers) and off
// (the max-in-flight filter in its place, as the reference has one or the other), metrics on in
// both, compared as on-off.ts compares (target at most 5%).
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { compareOnOff, type OnOffServers } from './on-off.js';
import { bootstrapConfiguration } from '../src/server/flowcontrol/bootstrap.js';
import { FlowControl } from '../src/server/flowcontrol/controller.js';
import { priorityAndFairness } from '../src/server/filters/priority-and-fairness.js';
import { RequestContext } from '../src/server/filters/context.js';
import { addAnswerHeader, AnswerResponse } from '../src/endpoints/response.js';
import type { Registry } from '../src/registry/store.js';
import { ServerMetrics } from '../src/metrics/server-metrics.js';

/**
 * The APF work of one GET on a Limited level, timed in this process without the server around it:
 * the filter's classification, seat, headers and metrics around a handler that answers (its status
 * line and headers written with a server's Audit-Id, as a server's response writes them: the two
 * headers APF adds cost most in being written out), beside the same answer without the filter. A figure the machine's other load
 * barely moves.
 */
export async function directApfWorkUs(): Promise<number> {
  const metrics = new ServerMetrics({ major: '1', minor: '25', gitVersion: 'v1.25.0', gitCommit: '', gitTreeState: '', buildDate: '', goVersion: '', compiler: '', platform: '' });
  const flowControl = new FlowControl(undefined as unknown as Registry, { serverConcurrencyLimit: 600, waitLimitMs: 15_000 }, metrics.flowcontrol);
  const config = bootstrapConfiguration();
  const uid = (o: Record<string, unknown>, i: number) => ({ ...o, metadata: { ...(o['metadata'] as object), uid: `00000000-0000-0000-0000-${String(i).padStart(12, '0')}` } });
  flowControl.configure(config.schemas.map((e, i) => uid(e.object, i)), config.levels.map((e, i) => uid(e.object, 100 + i)));
  const filter = priorityAndFairness(flowControl, metrics.requests);
  // Each request's strings made afresh, as a server parses them from each request's path (strings
  // used again and again carry their hashes: a bench that reuses one request's does not see the
  // hashing a map lookup by them costs in a server).
  const fresh = (s: string) => [...s].join('');
  const requestInfo = () => ({ isResourceRequest: true as const, path: fresh('/api/v1/namespaces/default/configmaps/bench-get'), verb: 'get', apiPrefix: 'api' as const, apiGroup: '', apiVersion: 'v1', namespace: fresh('default'), resource: fresh('configmaps'), name: fresh('bench-get'), parts: [fresh('configmaps'), fresh('bench-get')] });
  const user = { name: 'alice', groups: ['system:authenticated'] };
  const req = new IncomingMessage(new Socket());
  const query = new URLSearchParams();
  const context = () => {
    const ctx = new RequestContext(req, new AnswerResponse(req));
    ctx.info = requestInfo();
    ctx.query = query;
    ctx.user = { ...user, groups: [...user.groups] };
    addAnswerHeader(ctx.res, 'Audit-Id', '00000000-0000-0000-0000-000000000000');
    return ctx;
  };
  const answer = (ctx: RequestContext) => () => {
    ctx.res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': 2 });
    ctx.res.end('{}');
    return Promise.resolve();
  };
  const once = async () => {
    const ctx = context();
    await filter(ctx, answer(ctx));
  };
  const baseline = async () => {
    const ctx = context();
    await answer(ctx)();
  };
  const time = async (f: () => Promise<void>) => {
    for (let i = 0; i < 50_000; i++) await f();
    const n = 200_000;
    const t = performance.now();
    for (let i = 0; i < n; i++) await f();
    return ((performance.now() - t) * 1000) / n;
  };
  const us = (await time(once)) - (await time(baseline));
  metrics.stop();
  return us;
}

export const apfServers = { name: 'apf', script: 'apf-server.js', labels: { off: 'APF off (max-in-flight)', on: 'APF on (global-default)' }, targetCost: 0.05 } as const satisfies OnOffServers;

export function apf(): Promise<void> {
  return compareOnOff({ ...apfServers, direct: directApfWorkUs, note: 'metrics on in both' });
}
