// What a request a route took adds to the server's metrics, labelled as the reference labels it:
// counted with its code, its latency and (for reads) its size once answered — a long-running
// request (a watch, a stream) once it ends, and in apiserver_longrunning_requests meanwhile — and
// a deprecated version's series in apiserver_requested_deprecated_apis.
// performance from its module, not the global: the global is an accessor, called at each use.
import { performance } from 'node:perf_hooks';
import type { ServerResponse } from 'node:http';
import { isLongRunningRequest } from '../api/long-running.js';
import type { WebhookLatencies } from '../metrics/admission.js';
import { dryRunLabel, metricScope, reportedVerb, watchParameter } from '../metrics/request-labels.js';
import type { EndpointMetrics } from '../metrics/requests.js';
import type { ServerMetrics } from '../metrics/server-metrics.js';
import type { Scope } from './handlers/scope.js';
import { sentBodyLength } from './request.js';

/** One request being answered; `answered` records it (a long-running one once its response closes). */
export class RequestObservation {
  constructor(
    private readonly endpoint: EndpointMetrics,
    private readonly verb: string,
    private readonly dryRun: string,
    private readonly res: ServerResponse,
    private readonly received: number,
    private readonly endLongRunning: (() => void) | undefined,
    private readonly webhookLatencies: WebhookLatencies | undefined,
  ) {}

  /** The handler is done (its answer sent, or its stream opened). */
  answered(): void {
    const res = this.res;
    if (this.endLongRunning && !res.writableEnded && !res.destroyed) res.once('close', () => this.record());
    else this.record();
  }

  private record(): void {
    this.endLongRunning?.();
    const res = this.res;
    const seconds = (performance.now() - this.received) / 1000;
    this.endpoint.observe(this.verb, this.dryRun, res.headersSent ? res.statusCode : 0, seconds, sentBodyLength(res), seconds - (this.webhookLatencies?.seconds ?? 0));
  }
}

export function observeRequest(metrics: ServerMetrics, scope: Scope, received: number): RequestObservation {
  const { req, res, request: r, info, query } = scope;
  const method = req.method ?? 'GET';
  const subresource = r.subresource ?? '';
  const labelScope = metricScope(true, r.verb, r.name ?? r.selectedName, r.namespace);
  const verb = reportedVerb(method, labelScope, r.verb === 'watch' || watchParameter(method, query), req.headers['content-type']);
  const endpoint = metrics.requests.endpoint(info, subresource, labelScope);
  if (info.deprecationWarning !== undefined) metrics.requests.deprecatedRequested(info.group, info.version, info.resource, subresource, info.removedRelease ?? '');
  const endLongRunning = isLongRunningRequest(r) ? metrics.requests.beginLongRunning(verb, endpoint.labels) : undefined;
  return new RequestObservation(endpoint, verb, dryRunLabel(req.url ?? '', query), res, received, endLongRunning, scope.webhookLatencies);
}
