// /metrics on the real capstan command over TLS: known requests, then a scrape with
// `kubectl get --raw /metrics` read by a strict parser of the text format (test/prometheus-text.ts),
// with the counts and labels the reference would show for them; and who may read it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, it } from 'node:test';
import { call, kubeconfigTls, type ClientTls } from '../helpers.js';
import { parsePrometheusText, sampleValue, samplesMatching, type Family } from '../prometheus-text.js';
import { capstanForSuite, kubectl, ok } from './harness.js';

const NS = 'metrics-e2e';
const API = (resource: string) => `/api/v1/namespaces/${NS}/${resource}`;

/** The labels of apiserver_request_total for a core/v1 request (the reference's full set). */
function core(resource: string, verb: string, scope: string, code: number, dryRun = ''): Record<string, string> {
  return { code: String(code), component: 'apiserver', dry_run: dryRun, group: '', resource, scope, subresource: '', verb, version: 'v1' };
}

/** The same without the code: the labels of apiserver_request_duration_seconds. */
function latencyLabels(resource: string, verb: string, scope: string, dryRun = ''): Record<string, string> {
  const { code: _code, ...rest } = core(resource, verb, scope, 0, dryRun);
  return rest;
}

describe('/metrics', { timeout: 180_000 }, () => {
  const capstan = capstanForSuite();
  let base: string;
  let admin: ClientTls;
  let anonymous: ClientTls;

  async function scrape(): Promise<Map<string, Family>> {
    const text = await ok(capstan.current.kubeconfig, ['get', '--raw', '/metrics']);
    return parsePrometheusText(text);
  }

  before(() => {
    const kubeconfig = readFileSync(capstan.current.kubeconfig, 'utf8');
    base = /server: (\S+)/.exec(kubeconfig)![1]!;
    admin = kubeconfigTls(capstan.current.kubeconfig);
    anonymous = { ca: admin.ca };
  });

  it('counts each request a route answered, errors included, under the reference names and labels', { timeout: 90_000 }, async () => {
    const as = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => call(base, method, path, { body, headers, tls: admin });
    assert.equal((await as('POST', '/api/v1/namespaces', { metadata: { name: NS } })).status, 201);
    assert.equal((await as('POST', API('configmaps'), { metadata: { name: 'one' }, data: { k: 'v' } })).status, 201);
    assert.equal((await as('POST', `${API('configmaps')}?dryRun=All`, { metadata: { name: 'two' } })).status, 201);
    assert.equal((await as('GET', `${API('configmaps')}/one`)).status, 200);
    assert.equal((await as('GET', `${API('configmaps')}/one`)).status, 200);
    assert.equal((await as('GET', `${API('configmaps')}/missing`)).status, 404);
    assert.equal((await as('GET', API('configmaps'))).status, 200);
    // Refused by admission (NamespaceLifecycle): a route's answer, so counted with its code.
    assert.equal((await as('POST', '/api/v1/namespaces/no-such-namespace/configmaps', { metadata: { name: 'x' } })).status, 404);
    const applied = await as('PATCH', `${API('configmaps')}/applied?fieldManager=e2e`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: { a: 'b' } }, { 'Content-Type': 'application/apply-patch+yaml' });
    assert.equal(applied.status, 201);
    for (const name of ['pt-1', 'pt-2']) {
      assert.equal((await as('POST', API('podtemplates'), { metadata: { name }, template: { spec: { containers: [{ name: 'c', image: 'busybox' }] } } })).status, 201);
    }
    // A watch that ends by itself after sending the two objects that exist.
    const watch = await as('GET', `${API('podtemplates')}?watch=true&timeoutSeconds=1`);
    assert.equal(watch.status, 200);
    assert.equal(watch.text.trim().split('\n').length, 2);
    // A deprecated version (autoscaling/v2beta2 goes in 1.26).
    assert.equal((await as('GET', `/apis/autoscaling/v2beta2/namespaces/${NS}/horizontalpodautoscalers`)).status, 200);
    // Refused before any route (authorization, authentication): not in apiserver_request_total, as in the reference.
    assert.equal((await as('GET', `${API('configmaps')}/one`, undefined, { 'Impersonate-User': 'alice' })).status, 403);
    assert.equal((await call(base, 'GET', `${API('configmaps')}/one`, { headers: { Authorization: 'Bearer not-a-token' }, tls: anonymous })).status, 401);

    const m = await scrape();
    const total = (labels: Record<string, string>) => sampleValue(m, 'apiserver_request_total', labels);
    assert.equal(m.get('apiserver_request_total')?.type, 'counter');
    assert.equal(m.get('apiserver_request_total')?.help, '[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.');
    assert.equal(total(core('namespaces', 'POST', 'resource', 201)), 1);
    assert.equal(total(core('configmaps', 'POST', 'resource', 201)), 1);
    assert.equal(total(core('configmaps', 'POST', 'resource', 201, 'All')), 1);
    assert.equal(total(core('configmaps', 'GET', 'resource', 200)), 2);
    assert.equal(total(core('configmaps', 'GET', 'resource', 404)), 1);
    assert.equal(total(core('configmaps', 'LIST', 'namespace', 200)), 1);
    assert.equal(total({ ...core('configmaps', 'POST', 'resource', 404) }), 1);
    assert.equal(total(core('configmaps', 'APPLY', 'resource', 201)), 1);
    assert.equal(total(core('podtemplates', 'POST', 'resource', 201)), 2);
    assert.equal(total(core('podtemplates', 'WATCH', 'namespace', 200)), 1);
    assert.equal(total({ code: '200', component: 'apiserver', dry_run: '', group: 'autoscaling', resource: 'horizontalpodautoscalers', scope: 'namespace', subresource: '', verb: 'LIST', version: 'v2beta2' }), 1);
    // The refusals of the filters are not counted (the reference records requests in its routes).
    assert.deepEqual(samplesMatching(m, 'apiserver_request_total', { code: '403' }), []);
    assert.deepEqual(samplesMatching(m, 'apiserver_request_total', { code: '401' }), []);

    // Latency: one series per label set but the code, with the reference's buckets.
    assert.equal(m.get('apiserver_request_duration_seconds')?.type, 'histogram');
    assert.equal(sampleValue(m, 'apiserver_request_duration_seconds_count', latencyLabels('configmaps', 'GET', 'resource')), 3);
    assert.equal(sampleValue(m, 'apiserver_request_duration_seconds_count', latencyLabels('configmaps', 'POST', 'resource')), 2);
    assert.equal(sampleValue(m, 'apiserver_request_duration_seconds_count', latencyLabels('configmaps', 'POST', 'resource', 'All')), 1);
    const les = samplesMatching(m, 'apiserver_request_duration_seconds_bucket', latencyLabels('configmaps', 'GET', 'resource')).map((s) => s.labels['le']);
    assert.deepEqual(les, ['0.005', '0.025', '0.05', '0.1', '0.2', '0.4', '0.6', '0.8', '1', '1.25', '1.5', '2', '3', '4', '5', '6', '8', '10', '15', '20', '30', '45', '60', '+Inf']);
    // The SLO latency: per endpoint and verb (no dry run, no code), with its own buckets.
    const { dry_run: _dryRun, ...sloLabels } = latencyLabels('configmaps', 'POST', 'resource');
    assert.equal(sampleValue(m, 'apiserver_request_slo_duration_seconds_count', sloLabels), 3);
    assert.equal(samplesMatching(m, 'apiserver_request_slo_duration_seconds_bucket', sloLabels)[0]?.labels['le'], '0.05');
    // Sizes of reads only: GETs (errors too) and LISTs.
    const sizeLabels = (verb: string, scope: string) => { const { dry_run: _d, ...rest } = latencyLabels('configmaps', verb, scope); return rest; };
    assert.equal(sampleValue(m, 'apiserver_response_sizes_count', sizeLabels('GET', 'resource')), 3);
    assert.equal(sampleValue(m, 'apiserver_response_sizes_count', sizeLabels('LIST', 'namespace')), 1);
    assert.ok(sampleValue(m, 'apiserver_response_sizes_sum', sizeLabels('LIST', 'namespace'))! > 100);
    assert.deepEqual(samplesMatching(m, 'apiserver_response_sizes_count', { verb: 'POST' }), []);
    assert.deepEqual(samplesMatching(m, 'apiserver_response_sizes_bucket', sizeLabels('GET', 'resource')).map((s) => s.labels['le']), ['1000', '10000', '100000', '1000000', '10000000', '100000000', '1000000000', '+Inf']);

    // The watch's events, and no watch left open.
    assert.equal(sampleValue(m, 'apiserver_watch_events_total', { group: '', kind: 'PodTemplate', version: 'v1' }), 2);
    assert.equal(sampleValue(m, 'apiserver_watch_events_sizes_count', { group: '', kind: 'PodTemplate', version: 'v1' }), 2);
    assert.equal(sampleValue(m, 'apiserver_longrunning_requests', { component: 'apiserver', group: '', resource: 'podtemplates', scope: 'namespace', subresource: '', verb: 'WATCH', version: 'v1' }), 0);

    assert.equal(sampleValue(m, 'apiserver_requested_deprecated_apis', { group: 'autoscaling', removed_release: '1.26', resource: 'horizontalpodautoscalers', subresource: '', version: 'v2beta2' }), 1);
    assert.equal(samplesMatching(m, 'apiserver_requested_deprecated_apis').length, 1);

    // The store: two podtemplates in it, each written once through it.
    assert.equal(sampleValue(m, 'apiserver_storage_objects', { resource: 'podtemplates' }), 2);
    assert.equal(sampleValue(m, 'apiserver_storage_objects', { resource: 'horizontalpodautoscalers.autoscaling' }), 0);
    assert.equal(sampleValue(m, 'etcd_request_duration_seconds_count', { operation: 'create', type: '*core.PodTemplate' }), 2);
    assert.ok(sampleValue(m, 'etcd_request_duration_seconds_count', { operation: 'create', type: '*core.ConfigMap' })! >= 2);

    // Admission: the phases, and the plugin that refused the create in a missing namespace.
    assert.ok(sampleValue(m, 'apiserver_admission_step_admission_duration_seconds_count', { operation: 'CREATE', rejected: 'false', type: 'admit' })! >= 5);
    assert.ok(sampleValue(m, 'apiserver_admission_step_admission_duration_seconds_count', { operation: 'CREATE', rejected: 'false', type: 'validate' })! >= 5);
    const refusedBy = samplesMatching(m, 'apiserver_admission_controller_admission_duration_seconds_count', { rejected: 'true' });
    assert.deepEqual(refusedBy.map((s) => [s.labels['name'], s.labels['operation'], s.value]), [['NamespaceLifecycle', 'CREATE', 1]]);

    // Authentication: the refused token is an error; every other request a success: the 14 above
    // and the scrape's (kubectl's dispatcher may ask /version first, or know it from its cache).
    assert.equal(sampleValue(m, 'authentication_attempts', { result: 'error' }), 1);
    assert.ok(sampleValue(m, 'authentication_attempts', { result: 'success' })! >= 15);
    assert.equal(m.get('authentication_duration_seconds')?.type, 'histogram');

    assert.deepEqual(samplesMatching(m, 'apiserver_current_inflight_requests').map((s) => s.labels['request_kind']).sort(), ['mutating', 'readOnly']);
    const [build] = samplesMatching(m, 'kubernetes_build_info');
    assert.deepEqual([build?.labels['major'], build?.labels['minor'], build?.value], ['1', '25', 1]);
    assert.match(build?.labels['git_version'] ?? '', /^v1\.25\.0\+capstan\./);
    // The process's own.
    for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'process_start_time_seconds', 'process_open_fds']) {
      assert.equal(samplesMatching(m, name).length, 1, name);
    }
    assert.ok(sampleValue(m, 'process_start_time_seconds', {})! > Date.now() / 1000 - 600);
  });

  it('is read with get on the non-resource URL /metrics: system:monitoring may, others get 403', { timeout: 60_000 }, async () => {
    const kubeconfig = capstan.current.kubeconfig;
    const denied = await kubectl(kubeconfig, ['get', '--raw', '/metrics', '--as', 'alice']);
    assert.notEqual(denied.code, 0);
    assert.match(denied.stderr, /Forbidden/);
    const monitoring = await call(base, 'GET', '/metrics', { headers: { 'Impersonate-User': 'prometheus', 'Impersonate-Group': 'system:monitoring' }, tls: admin });
    assert.equal(monitoring.status, 200);
    assert.equal(monitoring.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
    assert.ok(parsePrometheusText(monitoring.text).has('apiserver_request_total'));
    const anonymousReply = await call(base, 'GET', '/metrics', { tls: anonymous });
    assert.equal(anonymousReply.status, 403);
    assert.equal(anonymousReply.json?.message, 'forbidden: User "system:anonymous" cannot get path "/metrics"');
  });

  it('counts a watch as long-running while it is open', { timeout: 60_000 }, async () => {
    const { request } = await import('node:https');
    const url = new URL(`${API('configmaps')}?watch=true`, base);
    const req = request(url, { ...admin, headers: { Accept: 'application/json' } });
    const opened = new Promise<void>((resolve, reject) => {
      req.on('response', () => resolve());
      req.on('error', (err) => ((err as { code?: string }).code === 'ECONNRESET' ? undefined : reject(err)));
    });
    req.end();
    await opened;
    const watching = { component: 'apiserver', group: '', resource: 'configmaps', scope: 'namespace', subresource: '', verb: 'WATCH', version: 'v1' };
    assert.equal(sampleValue(await scrape(), 'apiserver_longrunning_requests', watching), 1);
    req.destroy();
    let after: number | undefined = 1;
    for (let i = 0; i < 50 && after !== 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      after = sampleValue(await scrape(), 'apiserver_longrunning_requests', watching);
    }
    assert.equal(after, 0);
    assert.equal(sampleValue(await scrape(), 'apiserver_request_total', core('configmaps', 'WATCH', 'namespace', 200)), 1);
  });
});
