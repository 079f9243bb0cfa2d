// /metrics, as the reference serves it with profiling on (its default): GET (any method but
// DELETE) answers the text exposition, DELETE resets the server's metrics. Who may read it is the
// authorizer's to say (`get` on the non-resource URL /metrics, which system:monitoring has). And the
// health paths the reference instruments: /healthz, /livez and /readyz themselves (not their
// checks), with the path as subresource and no component.
import { dryRunLabel, reportedVerb } from '../metrics/request-labels.js';
import { EXPOSITION_CONTENT_TYPE, type ServerMetrics } from '../metrics/server-metrics.js';
import type { RequestContext } from './filters/context.js';

const INSTRUMENTED_HEALTH_PATHS = new Set(['/healthz', '/livez', '/readyz']);

export async function metricsEndpoint(metrics: ServerMetrics, ctx: RequestContext): Promise<void> {
  const { req, res } = ctx;
  if (req.method === 'DELETE') {
    metrics.reset();
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('metrics reset\n');
    return;
  }
  const body = Buffer.from(await metrics.exposition());
  res.writeHead(200, { 'Content-Type': EXPOSITION_CONTENT_TYPE, 'Content-Length': body.length });
  res.end(body);
}

/** Records a health request the health endpoints answered, when its path is one the reference counts. */
export function observeHealthRequest(metrics: ServerMetrics, ctx: RequestContext): void {
  const { req, res, info } = ctx;
  if (!INSTRUMENTED_HEALTH_PATHS.has(info.path)) return;
  const verb = reportedVerb(req.method ?? 'GET', '', false, req.headers['content-type']);
  const endpoint = { group: '', version: '', resource: '', subresource: info.path, scope: '', component: '' } as const;
  const code = res.headersSent ? res.statusCode : 0;
  metrics.requests.observe(verb, dryRunLabel(req.url ?? '', ctx.query), endpoint, code, (performance.now() - ctx.received) / 1000, Number(res.getHeader('content-length') ?? 0));
}
