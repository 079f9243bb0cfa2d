// /metrics on an in-process server: admission webhook latencies and counts (a mutating webhook
// that allows, a validating one that denies), DELETE /metrics resetting the server's families,
// and a server started with metrics off answering /metrics as an unknown path.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensureServingMaterial } from '../../src/server/certs.js';
import type { RunningServer } from '../../src/server/server.js';
import { answer, WebhookServer } from '../admission/webhook-server.js';
import { call, memoryServer, mustOk } from '../helpers.js';
import { parsePrometheusText, sampleValue, samplesMatching } from '../prometheus-text.js';

const REGISTRATION = '/apis/admissionregistration.k8s.io/v1';

describe('/metrics (in-process)', { timeout: 60_000 }, () => {
  let server: RunningServer;
  const hooks = new WebhookServer();
  let dir: string;
  let caBundle: string;
  const req = (method: string, path: string, body?: unknown) => call(server.url, method, path, { body });
  const scrape = async () => parsePrometheusText((await mustOk(req('GET', '/metrics'))).text);

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'capstan-metrics-'));
    const material = await ensureServingMaterial(dir, []);
    caBundle = Buffer.from(material.caCert).toString('base64');
    await hooks.start(material);
    hooks.on('/allow', (review) => answer(review, { allowed: true }));
    hooks.on('/deny', (review) => answer(review, { allowed: false, status: { code: 403, message: 'no' } }));
    server = await memoryServer();
  });

  after(async () => {
    await server?.close();
    await hooks.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('records each webhook call: latency by name, type, operation and rejection, and the call with its code', async () => {
    const webhook = (name: string, path: string, resource: string) => ({
      name, clientConfig: { url: `https://127.0.0.1:${hooks.port}${path}`, caBundle }, sideEffects: 'None', admissionReviewVersions: ['v1'],
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: [resource] }],
    });
    await mustOk(req('POST', `${REGISTRATION}/mutatingwebhookconfigurations`, { metadata: { name: 'm' }, webhooks: [webhook('allow.example.com', '/allow', 'configmaps')] }), 201);
    await mustOk(req('POST', `${REGISTRATION}/validatingwebhookconfigurations`, { metadata: { name: 'v' }, webhooks: [webhook('deny.example.com', '/deny', 'secrets')] }), 201);
    await mustOk(req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'hooked' } }), 201);
    assert.equal((await req('POST', '/api/v1/namespaces/default/secrets', { metadata: { name: 'refused' } })).status, 403);

    const m = await scrape();
    const labels = (name: string, type: string, rejected: boolean) => ({ name, operation: 'CREATE', rejected: String(rejected), type });
    assert.equal(sampleValue(m, 'apiserver_admission_webhook_admission_duration_seconds_count', labels('allow.example.com', 'admit', false)), 1);
    assert.equal(sampleValue(m, 'apiserver_admission_webhook_admission_duration_seconds_count', labels('deny.example.com', 'validating', true)), 1);
    assert.equal(sampleValue(m, 'apiserver_admission_webhook_request_total', { ...labels('allow.example.com', 'admit', false), code: '200' }), 1);
    assert.equal(sampleValue(m, 'apiserver_admission_webhook_request_total', { ...labels('deny.example.com', 'validating', true), code: '403' }), 1);
    // The webhook plugins are admission controllers too; the denial is the validating phase's.
    assert.equal(sampleValue(m, 'apiserver_admission_controller_admission_duration_seconds_count', labels('ValidatingAdmissionWebhook', 'validate', true)), 1);
    assert.equal(sampleValue(m, 'apiserver_admission_step_admission_duration_seconds_count', { operation: 'CREATE', rejected: 'true', type: 'validate' }), 1);
    // The SLO latency leaves the webhook's time out.
    const endpoint = { component: 'apiserver', group: '', resource: 'configmaps', scope: 'resource', subresource: '', verb: 'POST', version: 'v1' };
    const total = sampleValue(m, 'apiserver_request_duration_seconds_sum', { ...endpoint, dry_run: '' })!;
    const slo = sampleValue(m, 'apiserver_request_slo_duration_seconds_sum', endpoint)!;
    const hook = sampleValue(m, 'apiserver_admission_webhook_admission_duration_seconds_sum', labels('allow.example.com', 'admit', false))!;
    assert.ok(Math.abs(total - hook - slo) < 1e-6, `${total} - ${hook} should be ${slo}`);
    // The denial is a route's answer: counted with its code.
    assert.equal(sampleValue(m, 'apiserver_request_total', { code: '403', component: 'apiserver', dry_run: '', group: '', resource: 'secrets', scope: 'resource', subresource: '', verb: 'POST', version: 'v1' }), 1);
  });

  it('records only the plugins that handle the operation, as the reference chain skips the others', async () => {
    await mustOk(req('DELETE', '/metrics'));
    await mustOk(req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'handled' } }), 201);
    await mustOk(req('DELETE', '/api/v1/namespaces/default/configmaps/handled'));
    const m = await scrape();
    const recorded = (operation: string) => samplesMatching(m, 'apiserver_admission_controller_admission_duration_seconds_count', { operation })
      .map((s) => `${s.labels['type']} ${s.labels['name']}`).sort();
    // Handles(DELETE): NamespaceLifecycle, Priority and the webhook dispatchers; LimitRanger,
    // ResourceQuota and the others handle CREATE and UPDATE only.
    assert.deepEqual(recorded('DELETE'), ['admit MutatingAdmissionWebhook', 'admit NamespaceLifecycle', 'admit Priority', 'validate Priority', 'validate ValidatingAdmissionWebhook']);
    const created = recorded('CREATE');
    for (const expected of ['admit LimitRanger', 'validate LimitRanger', 'validate ResourceQuota', 'admit ServiceAccount', 'admit RuntimeClass']) {
      assert.ok(created.includes(expected), `${expected} in ${created.join(', ')}`);
    }
    // CertificateApproval and PersistentVolumeClaimResize handle UPDATE only.
    assert.ok(!created.some((c) => c.endsWith(' CertificateApproval') || c.endsWith(' PersistentVolumeClaimResize')), created.join(', '));
    // The configmap was really created and deleted.
    assert.equal((await req('GET', '/api/v1/namespaces/default/configmaps/handled')).status, 404);
  });

  it('DELETE /metrics resets the server families; they count again from there', async () => {
    await mustOk(req('GET', '/api/v1/namespaces/default/configmaps'));
    const reset = await req('DELETE', '/metrics');
    assert.equal(reset.status, 200);
    assert.equal(reset.text, 'metrics reset\n');
    await mustOk(req('GET', '/api/v1/namespaces/default/configmaps'));
    const m = await scrape();
    assert.deepEqual(samplesMatching(m, 'apiserver_request_total').map((s) => [s.labels['verb'], s.labels['resource'], s.value]), [['LIST', 'configmaps', 1]]);
    assert.deepEqual(samplesMatching(m, 'apiserver_admission_webhook_request_total'), []);
    // The process's own are not the server's to reset.
    assert.equal(samplesMatching(m, 'process_cpu_seconds_total').length, 1);
  });

  it('with metrics off (the baseline of the benchmark), /metrics is not found', async () => {
    const off = await memoryServer({ metrics: false });
    try {
      const r = await call(off.url, 'GET', '/metrics');
      assert.equal(r.status, 404);
      assert.equal(r.text, '404 page not found\n');
      await mustOk(call(off.url, 'GET', '/api/v1/namespaces'));
    } finally {
      await off.close();
    }
  });
});
