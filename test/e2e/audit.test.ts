// Audit logging end to end: the capstan command with an audit policy and log, known requests by
// kubectl and by hand, then the log read back — every event's fields, the stages of each request,
// request and response objects only at their levels, and the Audit-Id header.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { call, kubeconfigTls, memoryServer, until, type ClientTls } from '../helpers.js';
import { ok, kubectl, startCapstan, stopCapstan, type Capstan } from './harness.js';

interface AuditEvent {
  kind: string;
  apiVersion: string;
  level: string;
  auditID: string;
  stage: string;
  requestURI: string;
  verb: string;
  user: { username?: string; groups?: string[] };
  impersonatedUser?: { username: string; groups?: string[] };
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: Record<string, string>;
  responseStatus?: { metadata: object; code: number; status?: string; message?: string; reason?: string; details?: unknown };
  requestObject?: Record<string, unknown>;
  responseObject?: Record<string, unknown>;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  nonResourceURLs: ["/api", "/api/*", "/apis", "/apis/*", "/openapi/*", "/healthz*", "/readyz*", "/livez*"]
- level: RequestResponse
  resources: [{group: "", resources: [configmaps]}]
- level: Request
  resources: [{group: "", resources: [secrets]}]
- level: None
  resources: [{group: "", resources: [events]}]
- level: Metadata
`;

const MICRO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function readEvents(path: string): AuditEvent[] {
  return readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as AuditEvent);
}

describe('audit log (capstan command, kubectl)', { timeout: 120_000 }, () => {
  let dir: string;
  let capstan: Capstan;
  let log: string;
  let base: string;
  let tls: ClientTls;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'capstan-audit-e2e-'));
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
    log = join(dir, 'logs', 'audit.log');
    capstan = await startCapstan(join(dir, 'data'), ['--audit-policy-file', join(dir, 'policy.yaml'), '--audit-log-path', log]);
    base = /server: (\S+)/.exec(readFileSync(capstan.kubeconfig, 'utf8'))![1]!;
    tls = kubeconfigTls(capstan.kubeconfig);
  });

  after(async () => {
    await stopCapstan(capstan);
    rmSync(dir, { recursive: true, force: true });
  });

  /** The events of requests whose URI starts with `uri` and whose verb is `verb`, once `count` are written. */
  async function eventsOf(verb: string, uri: string, count: number): Promise<AuditEvent[]> {
    return until(`${count} events of ${verb} ${uri}`, () => {
      const found = readEvents(log).filter((e) => e.verb === verb && e.requestURI.startsWith(uri));
      return found.length >= count && found;
    });
  }

  it('a ConfigMap created by kubectl: RequestReceived then ResponseComplete, at RequestResponse with both objects', async () => {
    await ok(capstan.kubeconfig, ['create', 'configmap', 'audited', '-n', 'default', '--from-literal=a=1']);
    const [received, complete] = await eventsOf('create', '/api/v1/namespaces/default/configmaps', 2);
    assert.deepEqual([received!.stage, complete!.stage], ['RequestReceived', 'ResponseComplete']);
    assert.equal(received!.auditID, complete!.auditID);
    assert.match(complete!.auditID, UUID);
    assert.equal(complete!.kind, 'Event');
    assert.equal(complete!.apiVersion, 'audit.k8s.io/v1');
    assert.equal(complete!.level, 'RequestResponse');
    assert.equal(complete!.user.username, 'kubernetes-admin');
    assert.deepEqual(complete!.user.groups, ['system:masters', 'system:authenticated']);
    assert.deepEqual(complete!.sourceIPs, ['127.0.0.1']);
    assert.match(complete!.userAgent!, /^kubectl\//);
    assert.deepEqual(complete!.objectRef, { resource: 'configmaps', namespace: 'default', name: 'audited', apiVersion: 'v1' });
    assert.deepEqual(complete!.responseStatus, { metadata: {}, code: 201 });
    assert.deepEqual((complete!.requestObject as { data: unknown }).data, { a: '1' });
    assert.equal((complete!.responseObject as { metadata: { name: string } }).metadata.name, 'audited');
    assert.deepEqual(complete!.annotations, { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': '' });
    // RequestReceived carries neither objects nor a status; its stage time is the receipt.
    assert.equal(received!.requestObject, undefined);
    assert.equal(received!.responseStatus, undefined);
    assert.equal(received!.stageTimestamp, received!.requestReceivedTimestamp);
    for (const e of [received!, complete!]) {
      assert.match(e.requestReceivedTimestamp, MICRO_TIME);
      assert.match(e.stageTimestamp, MICRO_TIME);
    }
    assert.ok(complete!.stageTimestamp >= complete!.requestReceivedTimestamp);
  });

  it('get, list (a Table for kubectl), a 404: statuses and objects as the reference records them', async () => {
    await ok(capstan.kubeconfig, ['get', 'configmap', 'audited', '-n', 'default', '-o', 'json']);
    await ok(capstan.kubeconfig, ['get', 'configmaps', '-n', 'default']);
    const missing = await kubectl(capstan.kubeconfig, ['get', 'configmap', 'nope', '-n', 'default']);
    assert.equal(missing.code, 1);
    const [, got] = await eventsOf('get', '/api/v1/namespaces/default/configmaps/audited', 2);
    assert.equal(got!.responseStatus!.code, 200);
    assert.equal((got!.responseObject as { kind: string }).kind, 'ConfigMap');
    assert.equal(got!.requestObject, undefined);
    const [, listed] = await eventsOf('list', '/api/v1/namespaces/default/configmaps', 2);
    assert.deepEqual(listed!.objectRef, { resource: 'configmaps', namespace: 'default', apiVersion: 'v1' });
    assert.equal((listed!.responseObject as { kind: string }).kind, 'Table');
    const [, notFound] = await eventsOf('get', '/api/v1/namespaces/default/configmaps/nope', 2);
    assert.deepEqual(notFound!.responseStatus, {
      metadata: {}, status: 'Failure', message: 'configmaps "nope" not found', reason: 'NotFound', details: { name: 'nope', kind: 'configmaps' }, code: 404,
    });
  });

  it('a watch: RequestReceived, ResponseStarted, ResponseComplete', async () => {
    const r = await call(base, 'GET', '/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1', { tls });
    assert.equal(r.status, 200);
    const events = await eventsOf('watch', '/api/v1/namespaces/default/configmaps?watch=true', 3);
    assert.deepEqual(events.map((e) => e.stage), ['RequestReceived', 'ResponseStarted', 'ResponseComplete']);
    assert.deepEqual(events[1]!.responseStatus, { metadata: {}, code: 200 });
    assert.equal(events[2]!.responseObject, undefined, 'a watch has no response object');
    assert.equal(new Set(events.map((e) => e.auditID)).size, 1);
    assert.equal(r.headers['audit-id'], events[0]!.auditID);
  });

  it('a 403 by an impersonated, unprivileged user: impersonatedUser, forbid, the Status; Request level keeps no response', async () => {
    const r = await kubectl(capstan.kubeconfig, ['get', 'secrets', '-n', 'default', '--as', 'nobody']);
    assert.equal(r.code, 1);
    const [, refused] = await eventsOf('list', '/api/v1/namespaces/default/secrets', 2);
    assert.equal(refused!.level, 'Request');
    assert.equal(refused!.user.username, 'kubernetes-admin');
    assert.deepEqual(refused!.impersonatedUser, { username: 'nobody', groups: ['system:authenticated'] });
    assert.equal(refused!.responseStatus!.code, 403);
    assert.equal(refused!.responseStatus!.reason, 'Forbidden');
    assert.equal(refused!.responseStatus!.message, 'secrets is forbidden: User "nobody" cannot list resource "secrets" in API group "" in the namespace "default"');
    assert.deepEqual(refused!.annotations, { 'authorization.k8s.io/decision': 'forbid', 'authorization.k8s.io/reason': '' });
    assert.equal(refused!.responseObject, undefined);
  });

  it('a non-resource URL at Metadata: the lowercase method as verb, no objectRef, no objects', async () => {
    const r = await call(base, 'GET', '/version', { tls });
    const version = await until('the /version event', () => readEvents(log).find((e) => e.auditID === r.headers['audit-id'] && e.stage === 'ResponseComplete'));
    assert.equal(version!.level, 'Metadata');
    assert.equal(version!.objectRef, undefined);
    assert.equal(version!.responseObject, undefined);
    assert.deepEqual(version!.responseStatus, { metadata: {}, code: 200 });
    assert.equal(version.verb, 'get');
    assert.equal(version.requestURI, '/version');
    // Discovery is left out by the policy's None rule.
    assert.equal(readEvents(log).filter((e) => e.requestURI.startsWith('/apis?') || e.requestURI === '/api').length, 0);
  });

  it('a deprecated version: k8s.io/deprecated and k8s.io/removed-release', async () => {
    await ok(capstan.kubeconfig, ['get', '--raw', '/apis/autoscaling/v2beta2/namespaces/default/horizontalpodautoscalers']);
    const [, hpa] = await eventsOf('list', '/apis/autoscaling/v2beta2/', 2);
    assert.equal(hpa!.annotations!['k8s.io/deprecated'], 'true');
    assert.equal(hpa!.annotations!['k8s.io/removed-release'], '1.26');
    assert.deepEqual(hpa!.objectRef, { resource: 'horizontalpodautoscalers', namespace: 'default', apiGroup: 'autoscaling', apiVersion: 'v2beta2' });
  });

  it('admission plugins\' annotations: Pod Security\'s enforce-policy on a pod create', async () => {
    const pod = JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'audited', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
    await ok(capstan.kubeconfig, ['create', '-f', '-'], pod);
    const [, created] = await eventsOf('create', '/api/v1/namespaces/default/pods', 2);
    assert.equal(created!.level, 'Metadata');
    assert.equal(created!.annotations!['pod-security.kubernetes.io/enforce-policy'], 'privileged:latest');
    assert.equal(created!.annotations!['authorization.k8s.io/decision'], 'allow');
    assert.equal(created!.requestObject, undefined);
  });

  it('a request whose Audit-ID header is set keeps it; a bad credential is audited with no user (401, ResponseStarted)', async () => {
    const given = await call(base, 'GET', '/api/v1/namespaces/default/pods', { tls, headers: { 'Audit-ID': 'my-audit-id' } });
    assert.equal(given.headers['audit-id'], 'my-audit-id');
    const [received] = await eventsOf('list', '/api/v1/namespaces/default/pods', 2);
    assert.equal(received!.auditID, 'my-audit-id');
    const bad = await call(base, 'GET', '/api/v1/namespaces/kube-system/pods', { tls: { ca: tls.ca }, headers: { Authorization: 'Bearer nonsense' } });
    assert.equal(bad.status, 401);
    const [refused] = await eventsOf('list', '/api/v1/namespaces/kube-system/pods', 1);
    assert.equal(refused!.stage, 'ResponseStarted');
    assert.deepEqual(refused!.user, {});
    assert.deepEqual(refused!.responseStatus, { metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
    assert.equal(bad.headers['audit-id'], refused!.auditID);
  });

  it('every request audited has exactly its stages: two, or three for a watch', () => {
    const byId = new Map<string, string[]>();
    for (const e of readEvents(log)) byId.set(e.auditID, [...(byId.get(e.auditID) ?? []), e.stage]);
    for (const [id, stages] of byId) {
      const expected = stages.length === 1 ? [['ResponseStarted']] : [['RequestReceived', 'ResponseComplete'], ['RequestReceived', 'ResponseStarted', 'ResponseComplete']];
      assert.ok(expected.some((s) => JSON.stringify(s) === JSON.stringify(stages)), `${id}: ${stages.join(', ')}`);
    }
  });
});

describe('audit log rotation by size', { timeout: 60_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-audit-rotation-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('rotates past --audit-log-maxsize into lumberjack-named backups, keeping --audit-log-maxbackup of them', async () => {
    writeFileSync(join(dir, 'policy.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: RequestResponse\n');
    const log = join(dir, 'audit.log');
    const server = await memoryServer({ auditPolicyFile: join(dir, 'policy.yaml'), auditLogPath: log, auditLogMaxSize: 1, auditLogMaxBackup: 2 });
    try {
      const big = 'x'.repeat(300 * 1024);
      for (let i = 0; i < 6; i++) {
        const r = await call(server.url, 'POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `big-${i}` }, data: { big } } });
        assert.equal(r.status, 201);
        // Apart, so that each backup has its own millisecond.
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    } finally {
      // Closing writes what is queued.
      await server.close();
    }
    const backups = readdirSync(dir).filter((n) => n.startsWith('audit-'));
    assert.equal(backups.length, 2);
    {
      for (const name of backups) assert.match(name, /^audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log$/);
      for (const name of [...backups, 'audit.log']) {
        const text = readFileSync(join(dir, name), 'utf8');
        assert.ok(Buffer.byteLength(text) <= 1024 * 1024, `${name} is within 1 MiB`);
        // Whole events only.
        for (const line of text.split('\n').filter(Boolean)) assert.equal(JSON.parse(line).kind, 'Event');
      }
    }
    // Six creates of 600 KiB events each: one event per file, the oldest gone.
    const names = [...backups.sort(), 'audit.log'].map((n) => readFileSync(join(dir, n), 'utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as AuditEvent).objectRef!.name));
    assert.deepEqual(names, [['big-3'], ['big-4'], ['big-5']]);
  });
});
