// What recording metrics costs a GET (on-off.ts: two servers alike but for their metrics, in
// alternating rounds; target at most 5%), and the metrics work of one GET timed directly, in this
// process, as a figure the machine's load barely moves.
import { compareOnOff, type OnOffServers } from './on-off.js';
import { dryRunLabel, metricScope, reportedVerb, watchParameter } from '../src/metrics/request-labels.js';
import { ServerMetrics } from '../src/metrics/server-metrics.js';

/**
 * The metrics work of one GET, timed in this process without the server around it: its labels, its
 * endpoint's series, the observation, the authentication and in-flight counts. A figure the
 * machine's other load barely moves, to set beside the server's CPU per request.
 */
function directMetricsWorkUs(): number {
  const metrics = new ServerMetrics({ major: '1', minor: '25', gitVersion: 'v1.25.0', gitCommit: '', gitTreeState: '', buildDate: '', goVersion: '', compiler: '', platform: '' });
  const info = { group: '', version: 'v1', resource: 'configmaps' };
  const query = new URLSearchParams('');
  const url = '/api/v1/namespaces/default/configmaps/bench-get';
  const once = () => {
    const started = performance.now();
    metrics.authenticated('success', 'system:admin', (performance.now() - started) / 1000);
    metrics.requests.enter(false);
    const scope = metricScope(true, 'get', 'bench-get', 'default');
    const verb = reportedVerb('GET', scope, watchParameter('GET', query), undefined);
    const endpoint = metrics.requests.endpoint(info, '', scope);
    const dryRun = dryRunLabel(url, query);
    const seconds = (performance.now() - started) / 1000;
    endpoint.observe(verb, dryRun, 200, seconds, 420, seconds);
    metrics.requests.leave(false);
  };
  for (let i = 0; i < 100_000; i++) once();
  const n = 500_000;
  const t = performance.now();
  for (let i = 0; i < n; i++) once();
  const us = ((performance.now() - t) * 1000) / n;
  metrics.stop();
  return us;
}

export const metricsServers = { name: 'metrics', script: 'metrics-server.js', labels: { off: 'metrics off', on: 'metrics on' }, targetCost: 0.05 } as const satisfies OnOffServers;

export function metrics(): Promise<void> {
  return compareOnOff({ ...metricsServers, direct: directMetricsWorkUs });
}
