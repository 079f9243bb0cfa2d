// What a request a route took adds to the server's metrics, labelled as the reference labels it:
// counted with its code, its latency and (for reads) its size once answered — a long-running
// request (a watch, a stream) once it ends, and in apiserver_longrunning_requests meanwhile — and
// a deprecated version's series in apiserver_requested_deprecated_apis.
import { isLongRunningRequest } from '../api/long-running.js';
import { dryRunLabel, metricScope, reportedVerb, watchParameter } from '../metrics/request-labels.js';
import { APISERVER_COMPONENT, type Endpoint } from '../metrics/requests.js';
import type { ServerMetrics } from '../metrics/server-metrics.js';
import type { Scope } from './handlers/scope.js';
import { sentBodyLength } from './request.js';

export interface RequestObservation {
  /** The handler is done (its answer sent, or its stream opened). */
  answered(): void;
}

export function observeRequest(metrics: ServerMetrics, scope: Scope, received: number): RequestObservation {
  const { req, res, request: r, info, query } = scope;
  const method = req.method ?? 'GET';
  const subresource = r.subresource ?? '';
  const metricScopeOf = metricScope(true, r.verb, r.name ?? r.selectedName, r.namespace);
  const verb = reportedVerb(method, metricScopeOf, r.verb === 'watch' || watchParameter(method, query), req.headers['content-type']);
  const endpoint: Endpoint = { group: info.group, version: info.version, resource: info.resource, subresource, scope: metricScopeOf, component: APISERVER_COMPONENT };
  const dryRun = dryRunLabel(req.url ?? '', query);
  if (info.deprecationWarning !== undefined) metrics.requests.deprecatedRequested(info.group, info.version, info.resource, subresource, info.removedRelease ?? '');
  const longRunning = isLongRunningRequest(r);
  const endLongRunning = longRunning ? metrics.requests.beginLongRunning(verb, endpoint) : undefined;
  const record = (): void => {
    endLongRunning?.();
    const code = res.headersSent ? res.statusCode : 0;
    metrics.requests.observe(verb, dryRun, endpoint, code, (performance.now() - received) / 1000, sentBodyLength(res));
  };
  return {
    answered() {
      if (!longRunning || res.writableEnded || res.destroyed) record();
      else res.once('close', record);
    },
  };
}
