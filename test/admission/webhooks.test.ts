// Admission webhooks end to end: a real capstan calling real HTTPS webhook servers on loopback
// (certificates from a throwaway CA), configured through admissionregistration.k8s.io/v1 objects.
// Rules, selectors, match and failure policies, timeouts, dry run, review versions, JSONPatch
// mutations and their reinvocation, warnings, denials, service references, DELETE and subresources.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { defaultEnabled } from '../../src/api/catalog.js';
import { builtinResourceDefinitions } from '../../src/registry/builtin/index.js';
import type { AdmissionAttributes } from '../../src/admission/types.js';
import { mutatingAdmissionWebhook, validatingAdmissionWebhook } from '../../src/admission/webhooks/index.js';
import { ensureServingMaterial, type ServingMaterial } from '../../src/server/certs.js';
import type { RunningServer } from '../../src/server/server.js';
import { Registry } from '../../src/registry/store.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { call, memoryServer, mustOk, sleep } from '../helpers.js';
import { answer, WebhookServer, type Handler, type Review } from './webhook-server.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- reviews are checked field by field */

const REGISTRATION = '/apis/admissionregistration.k8s.io/v1';
const SERVICE_NAME = 'hook';
const SERVICE_NAMESPACE = 'webhooks';

function jsonPatch(ops: unknown[]): Record<string, unknown> {
  return { allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64') };
}

describe('admission webhooks', () => {
  let server: RunningServer;
  let material: ServingMaterial;
  let otherCa: ServingMaterial;
  let caBundle: string;
  const dirs: string[] = [];
  const hooks = new WebhookServer();
  const req = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => call(server.url, method, path, { body, headers });

  /** A webhook entry calling `url`: CREATE of core v1 configmaps unless `extra` says otherwise. */
  const webhook = (name: string, url: string, extra: Record<string, unknown> = {}) => ({
    name,
    clientConfig: { url, caBundle },
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    ...extra,
  });
  const configure = async (kind: 'validating' | 'mutating', name: string, ...webhooks: unknown[]) => {
    const resource = `${kind}webhookconfigurations`;
    const kindName = kind === 'validating' ? 'ValidatingWebhookConfiguration' : 'MutatingWebhookConfiguration';
    await mustOk(req('POST', `${REGISTRATION}/${resource}`, { apiVersion: 'admissionregistration.k8s.io/v1', kind: kindName, metadata: { name }, webhooks }), 201);
  };
  /** Stores a configuration as is, past validation (for values v1 no longer admits, such as sideEffects Some). */
  const store = async (kind: 'validating' | 'mutating', name: string, ...webhooks: unknown[]) => {
    const kindName = kind === 'validating' ? 'ValidatingWebhookConfiguration' : 'MutatingWebhookConfiguration';
    const obj = { kind: kindName, apiVersion: 'admissionregistration.k8s.io/v1', metadata: { name, uid: randomUUID(), creationTimestamp: '2024-01-01T00:00:00Z' }, webhooks };
    await server.storage.create(`/registry/admissionregistration.k8s.io/${kind}webhookconfigurations/${name}`, (rev) => {
      (obj.metadata as Record<string, unknown>)['resourceVersion'] = String(rev);
      return Buffer.from(JSON.stringify(obj));
    });
    await sleep(10); // the watch cache takes it in a microtask or two
  };
  const configMap = (name: string, labels?: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(labels ? { labels } : {}) }, data: { k: 'v' } });
  const createCm = (ns: string, name: string, labels?: Record<string, string>, query = '') => req('POST', `/api/v1/namespaces/${ns}/configmaps${query}`, configMap(name, labels));
  const namespace = (name: string, labels?: Record<string, string>) => mustOk(req('POST', '/api/v1/namespaces', { metadata: { name, ...(labels ? { labels } : {}) } }), 201);

  before(async () => {
    for (let i = 0; i < 2; i++) dirs.push(await mkdtemp(join(tmpdir(), 'capstan-webhooks-')));
    // One CA whose serving certificate covers 127.0.0.1 and the service's DNS name; another to distrust.
    material = await ensureServingMaterial(dirs[0]!, [`${SERVICE_NAME}.${SERVICE_NAMESPACE}.svc`]);
    otherCa = await ensureServingMaterial(dirs[1]!, []);
    caBundle = Buffer.from(material.caCert).toString('base64');
    await hooks.start(material);
    server = await memoryServer();
    await namespace('wh');
  });

  after(async () => {
    await server?.close();
    await hooks.stop();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  afterEach(async () => {
    // Configurations are exempt from webhooks, so even a deny-everything one can always be removed.
    await mustOk(req('DELETE', `${REGISTRATION}/validatingwebhookconfigurations`));
    await mustOk(req('DELETE', `${REGISTRATION}/mutatingwebhookconfigurations`));
    hooks.reset();
  });

  describe('validating', () => {
    it('sends the reference review and answers a denial with its exact Status; nothing is stored', async () => {
      const url = hooks.on('/deny', (r) => answer(r, { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'no configmaps today' } }));
      await configure('validating', 'deny', webhook('deny.example.com', url));
      const r = await req('POST', '/api/v1/namespaces/wh/configmaps?fieldManager=tester', configMap('denied'));
      assert.equal(r.status, 403, r.text);
      assert.deepEqual(r.json, {
        kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
        message: 'admission webhook "deny.example.com" denied the request: no configmaps today', reason: 'Forbidden', code: 403,
      });
      assert.equal((await req('GET', '/api/v1/namespaces/wh/configmaps/denied')).status, 404);

      const [review] = hooks.reviews('/deny');
      assert.equal(review!.apiVersion, 'admission.k8s.io/v1');
      assert.equal(review!.kind, 'AdmissionReview');
      assert.equal((review as any).query, '?timeout=10s');
      const request = review!.request;
      assert.deepEqual(Object.keys(request), [
        'uid', 'kind', 'resource', 'requestKind', 'requestResource', 'name', 'namespace', 'operation', 'userInfo', 'object', 'oldObject', 'dryRun', 'options',
      ]);
      assert.match(request.uid, /^[0-9a-f-]{36}$/);
      assert.deepEqual(request.kind, { group: '', version: 'v1', kind: 'ConfigMap' });
      assert.deepEqual(request.resource, { group: '', version: 'v1', resource: 'configmaps' });
      assert.deepEqual(request.requestKind, request.kind);
      assert.deepEqual(request.requestResource, request.resource);
      assert.equal(request.name, 'denied');
      assert.equal(request.namespace, 'wh');
      assert.equal(request.operation, 'CREATE');
      assert.equal(request.userInfo.username, 'system:admin');
      assert.deepEqual(request.userInfo.groups, ['system:masters', 'system:authenticated']);
      assert.equal(request.object.kind, 'ConfigMap');
      assert.equal(request.object.apiVersion, 'v1');
      assert.deepEqual(request.object.data, { k: 'v' });
      assert.equal(request.object.metadata.namespace, 'wh');
      assert.equal(request.oldObject, null);
      assert.equal(request.dryRun, false);
      assert.deepEqual(request.options, { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'tester' });
    });

    it('a denial without a status is a 400 "without explanation"; a code under 400 becomes 400', async () => {
      const bare = hooks.on('/bare', (r) => answer(r, { allowed: false }));
      const low = hooks.on('/low', (r) => answer(r, { allowed: false, status: { code: 200, message: 'nope' } }));
      await configure('validating', 'bare', webhook('bare.example.com', bare));
      let r = await createCm('wh', 'bare');
      assert.equal(r.status, 400);
      assert.deepEqual(r.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'admission webhook "bare.example.com" denied the request without explanation', code: 400 });
      await mustOk(req('DELETE', `${REGISTRATION}/validatingwebhookconfigurations/bare`));
      await configure('validating', 'low', webhook('low.example.com', low));
      r = await createCm('wh', 'low');
      assert.equal(r.status, 400);
      assert.equal(r.json.message, 'admission webhook "low.example.com" denied the request: nope');
    });

    it('webhooks are called in parallel; the first denial in order answers', async () => {
      let inFlight = 0;
      let most = 0;
      const slowAllow = async (r: Review) => {
        inFlight++;
        most = Math.max(most, inFlight);
        await sleep(150);
        inFlight--;
        return answer(r, { allowed: true });
      };
      const a = hooks.on('/par-a', slowAllow);
      const b = hooks.on('/par-b', slowAllow);
      const deny = hooks.on('/par-deny', (r) => answer(r, { allowed: false, status: { message: 'second says no' } }));
      await configure('validating', 'par', webhook('a.example.com', a), webhook('b.example.com', b));
      await mustOk(createCm('wh', 'parallel'), 201);
      assert.equal(most, 2);
      await configure('validating', 'par2', webhook('deny.example.com', deny));
      const r = await createCm('wh', 'parallel-2');
      assert.equal(r.json.message, 'admission webhook "deny.example.com" denied the request: second says no');
    });

    it('rules: operations, groups, versions and resources must all match', async () => {
      const url = hooks.on('/rules', (r) => answer(r, { allowed: false, status: { message: 'caught' } }));
      await configure('validating', 'rules',
        webhook('update-only.example.com', url, { rules: [{ operations: ['UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] }),
        webhook('secrets.example.com', url, { rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['secrets'] }] }),
        webhook('apps.example.com', url, { rules: [{ operations: ['*'], apiGroups: ['apps'], apiVersions: ['*'], resources: ['*'] }] }),
        webhook('v2.example.com', url, { rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v2'], resources: ['*'] }] }));
      await mustOk(createCm('wh', 'rules'), 201);
      assert.equal(hooks.reviews('/rules').length, 0);
      const r = await req('PUT', '/api/v1/namespaces/wh/configmaps/rules', { ...configMap('rules'), data: { k: 'w' } });
      assert.equal(r.status, 400);
      assert.equal(r.json.message, 'admission webhook "update-only.example.com" denied the request: caught');
      assert.equal(hooks.reviews('/rules')[0]!.request.operation, 'UPDATE');
      assert.deepEqual(hooks.reviews('/rules')[0]!.request.oldObject.data, { k: 'v' });
      assert.deepEqual(hooks.reviews('/rules')[0]!.request.options, { kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1' });
    });

    it('scope: Namespaced skips namespaces and cluster objects, Cluster catches a namespace', async () => {
      const url = hooks.on('/scope', (r) => answer(r, { allowed: false, status: { message: r.request.resource.resource } }));
      await configure('validating', 'scope',
        webhook('cluster.example.com', url, { rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps', 'namespaces'], scope: 'Cluster' }] }));
      await mustOk(createCm('wh', 'scoped'), 201);
      let r = await req('POST', '/api/v1/namespaces', { metadata: { name: 'scope-ns' } });
      assert.equal(r.status, 400);
      assert.equal(r.json.message, 'admission webhook "cluster.example.com" denied the request: namespaces');
      await mustOk(req('DELETE', `${REGISTRATION}/validatingwebhookconfigurations/scope`));
      await configure('validating', 'scope2',
        webhook('namespaced.example.com', url, { rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps', 'namespaces'], scope: 'Namespaced' }] }));
      await mustOk(req('POST', '/api/v1/namespaces', { metadata: { name: 'scope-ns' } }), 201);
      r = await createCm('wh', 'scoped-2');
      assert.equal(r.json.message, 'admission webhook "namespaced.example.com" denied the request: configmaps');
    });

    it('namespaceSelector: the namespace\'s labels, and a namespace\'s own labels', async () => {
      await namespace('wh-prod', { env: 'prod' });
      const url = hooks.on('/ns', (r) => answer(r, { allowed: false, status: { message: 'prod is locked' } }));
      await configure('validating', 'ns', webhook('ns.example.com', url, {
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps', 'namespaces'] }],
        namespaceSelector: { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }] },
      }));
      await mustOk(createCm('wh', 'free'), 201);
      assert.equal((await createCm('wh-prod', 'locked')).status, 400);
      assert.equal((await req('POST', '/api/v1/namespaces', { metadata: { name: 'wh-prod-2', labels: { env: 'prod' } } })).status, 400);
      await mustOk(req('POST', '/api/v1/namespaces', { metadata: { name: 'wh-dev', labels: { env: 'dev' } } }), 201);
      const [review] = hooks.reviews('/ns').filter((rv) => rv.request.resource.resource === 'namespaces');
      assert.equal(review!.request.namespace, undefined); // a namespace being created has no admission namespace yet
    });

    it('objectSelector: the object\'s labels or the old object\'s', async () => {
      const url = hooks.on('/obj', (r) => answer(r, { allowed: false, status: { message: 'guarded' } }));
      await mustOk(createCm('wh', 'guarded', { guard: 'on' }), 201);
      await configure('validating', 'obj', webhook('obj.example.com', url, {
        rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
        objectSelector: { matchLabels: { guard: 'on' } },
      }));
      await mustOk(createCm('wh', 'unguarded'), 201);
      assert.equal((await createCm('wh', 'guarded-2', { guard: 'on' })).status, 400);
      // Removing the label is still judged: the old object matches.
      const r = await req('PUT', '/api/v1/namespaces/wh/configmaps/guarded', configMap('guarded'));
      assert.equal(r.status, 400, r.text);
      assert.equal(hooks.reviews('/obj').length, 2);
    });

    it('matchPolicy Equivalent sends the request in the matched version; Exact does not match', async () => {
      const url = hooks.on('/hpa', (r) => answer(r, { allowed: true }));
      const rule = [{ operations: ['CREATE'], apiGroups: ['autoscaling'], apiVersions: ['v1'], resources: ['horizontalpodautoscalers'] }];
      await configure('validating', 'hpa', webhook('equivalent.example.com', url, { rules: rule }), webhook('exact.example.com', url.replace('/hpa', '/hpa-exact'), { rules: rule, matchPolicy: 'Exact' }));
      const hpa = { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'hpa' }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 3 } };
      await mustOk(req('POST', '/apis/autoscaling/v2/namespaces/wh/horizontalpodautoscalers', hpa), 201);
      assert.equal(hooks.reviews('/hpa-exact').length, 0);
      const [review] = hooks.reviews('/hpa');
      assert.deepEqual(review!.request.kind, { group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler' });
      assert.deepEqual(review!.request.resource, { group: 'autoscaling', version: 'v1', resource: 'horizontalpodautoscalers' });
      assert.deepEqual(review!.request.requestKind, { group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler' });
      assert.deepEqual(review!.request.requestResource, { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers' });
      assert.equal(review!.request.object.apiVersion, 'autoscaling/v1');
    });

    it('matchPolicy Equivalent: a core events rule catches an events.k8s.io write (one stored object), sent as a core/v1 Event', async () => {
      const url = hooks.on('/events', (r) => answer(r, { allowed: true }));
      const rule = [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['events'] }];
      await configure('validating', 'events', webhook('events.example.com', url, { rules: rule }));
      // A mutating one patches the core/v1 shape it was sent; the change reaches the events.k8s.io object.
      const mutate = hooks.on('/events-mutate', (r) => answer(r, jsonPatch([{ op: 'replace', path: '/message', value: 'patched' }])));
      await configure('mutating', 'events-mutate', webhook('events-mutate.example.com', mutate, { rules: rule }));
      const event = {
        apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e' }, eventTime: '2024-01-02T03:04:05.000000Z',
        reportingController: 'example.com/c', reportingInstance: 'c-1', action: 'Act', reason: 'Why', regarding: { kind: 'Pod', namespace: 'wh', name: 'p' }, note: 'hello', type: 'Normal',
      };
      const created = await mustOk(req('POST', '/apis/events.k8s.io/v1/namespaces/wh/events', event), 201);
      assert.equal(created.json.note, 'patched');
      assert.equal(hooks.reviews('/events-mutate')[0]!.request.object.message, 'hello');
      const [review] = hooks.reviews('/events');
      assert.deepEqual(review!.request.kind, { group: '', version: 'v1', kind: 'Event' });
      assert.deepEqual(review!.request.resource, { group: '', version: 'v1', resource: 'events' });
      assert.deepEqual(review!.request.requestKind, { group: 'events.k8s.io', version: 'v1', kind: 'Event' });
      assert.equal(review!.request.object.apiVersion, 'v1');
      assert.equal(review!.request.object.message, 'patched');
      assert.equal(review!.request.object.reportingComponent, 'example.com/c');
      assert.deepEqual(review!.request.object.involvedObject, { kind: 'Pod', namespace: 'wh', name: 'p' });
    });

    it('DELETE: the old object and DeleteOptions; a denied delete leaves the object', async () => {
      await mustOk(createCm('wh', 'keep'), 201);
      const url = hooks.on('/del', (r) => answer(r, { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'kept' } }));
      await configure('validating', 'del', webhook('del.example.com', url, { rules: [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] }));
      const r = await req('DELETE', '/api/v1/namespaces/wh/configmaps/keep?propagationPolicy=Foreground&gracePeriodSeconds=5');
      assert.equal(r.status, 403);
      assert.equal(r.json.message, 'admission webhook "del.example.com" denied the request: kept');
      await mustOk(req('GET', '/api/v1/namespaces/wh/configmaps/keep'));
      const request = hooks.reviews('/del')[0]!.request;
      assert.equal(request.operation, 'DELETE');
      assert.equal(request.name, 'keep');
      assert.equal(request.object, null);
      assert.equal(request.oldObject.metadata.name, 'keep');
      assert.deepEqual(request.options, { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1', gracePeriodSeconds: 5, propagationPolicy: 'Foreground' });
    });

    it('subresources: pods/status and */* catch a status write, pods alone does not; scale is sent as a Scale', async () => {
      const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
      await mustOk(req('POST', '/api/v1/namespaces/wh/pods', pod), 201);
      const status = hooks.on('/status', (r) => answer(r, { allowed: false, status: { message: 'status is frozen' } }));
      const main = hooks.on('/main', (r) => answer(r, { allowed: true }));
      await configure('validating', 'sub',
        webhook('status.example.com', status, { rules: [{ operations: ['UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/status'] }] }),
        webhook('main.example.com', main, { rules: [{ operations: ['UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] }));
      const merge = { 'Content-Type': 'application/merge-patch+json' };
      await mustOk(req('PATCH', '/api/v1/namespaces/wh/pods/p', { metadata: { labels: { a: 'b' } } }, merge));
      assert.equal(hooks.reviews('/status').length, 0);
      assert.equal(hooks.reviews('/main').length, 1);
      const r = await req('PATCH', '/api/v1/namespaces/wh/pods/p/status', { status: { message: 'hi' } }, merge);
      assert.equal(r.status, 400, r.text);
      assert.equal(r.json.message, 'admission webhook "status.example.com" denied the request: status is frozen');
      assert.equal(hooks.reviews('/main').length, 1);
      const request = hooks.reviews('/status')[0]!.request;
      assert.equal(request.subResource, 'status');
      assert.equal(request.requestSubResource, 'status');
      assert.equal(request.object.kind, 'Pod');
      assert.deepEqual(request.options, { kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1' });

      await mustOk(req('DELETE', `${REGISTRATION}/validatingwebhookconfigurations/sub`));
      const all = hooks.on('/all', (r) => answer(r, { allowed: true }));
      await configure('validating', 'all', webhook('all.example.com', all, { rules: [{ operations: ['UPDATE'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] }] }));
      await mustOk(req('PATCH', '/api/v1/namespaces/wh/pods/p/status', { status: { message: 'hi' } }, merge));
      const deploy = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { replicas: 1, selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } };
      await mustOk(req('POST', '/apis/apps/v1/namespaces/wh/deployments', deploy), 201);
      await mustOk(req('PATCH', '/apis/apps/v1/namespaces/wh/deployments/d/scale', { spec: { replicas: 3 } }, merge));
      const scale = hooks.reviews('/all').map((rv) => rv.request).find((rq) => rq.subResource === 'scale');
      assert.deepEqual(scale.kind, { group: 'autoscaling', version: 'v1', kind: 'Scale' });
      assert.deepEqual(scale.resource, { group: 'apps', version: 'v1', resource: 'deployments' });
      assert.equal(scale.object.kind, 'Scale');
      assert.equal(scale.object.spec.replicas, 3);
      assert.equal(scale.oldObject.spec.replicas, 1);
    });

    it('writes of webhook configurations are never sent to webhooks', async () => {
      const url = hooks.on('/everything', (r) => answer(r, { allowed: false }));
      await configure('validating', 'deny-all', webhook('all.example.com', url, { rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] }] }));
      await configure('mutating', 'also-fine', webhook('m.example.com', url));
      await mustOk(req('DELETE', `${REGISTRATION}/validatingwebhookconfigurations/deny-all`));
      assert.equal(hooks.reviews('/everything').length, 0);
    });
  });

  describe('failures', () => {
    it('a dead URL: Fail answers 500 with the call\'s error, Ignore lets the request through', async () => {
      await configure('validating', 'dead', webhook('dead.example.com', 'https://127.0.0.1:1/x'));
      const r = await createCm('wh', 'dead');
      assert.equal(r.status, 500);
      const message = 'failed calling webhook "dead.example.com": failed to call webhook: Post "https://127.0.0.1:1/x?timeout=10s": dial tcp 127.0.0.1:1: connect: connection refused';
      assert.deepEqual(r.json, {
        kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `Internal error occurred: ${message}`,
        reason: 'InternalError', details: { causes: [{ message }] }, code: 500,
      });
      assert.equal((await req('GET', '/api/v1/namespaces/wh/configmaps/dead')).status, 404);
      await mustOk(req('DELETE', `${REGISTRATION}/validatingwebhookconfigurations/dead`));
      await configure('mutating', 'dead-ignored', webhook('dead.example.com', 'https://127.0.0.1:1/x', { failurePolicy: 'Ignore' }));
      await configure('validating', 'dead-ignored', webhook('dead.example.com', 'https://127.0.0.1:1/x', { failurePolicy: 'Ignore' }));
      await mustOk(createCm('wh', 'dead'), 201);
    });

    it('a webhook slower than timeoutSeconds fails the call (context deadline exceeded)', async () => {
      // Headers at once, the body too late: the deadline covers the whole answer.
      const url = hooks.on('/slow', async (r, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' }).write('{');
        await sleep(1500);
        res.end(JSON.stringify(answer(r, { allowed: true })).slice(1));
      });
      await configure('validating', 'slow', webhook('slow.example.com', url, { timeoutSeconds: 1 }));
      const started = Date.now();
      const r = await createCm('wh', 'slow');
      assert.ok(Date.now() - started < 1400, 'the call is cut at the timeout');
      assert.equal(r.status, 500);
      assert.equal(r.json.message, `Internal error occurred: failed calling webhook "slow.example.com": failed to call webhook: Post "${url}?timeout=1s": context deadline exceeded`);
      assert.equal((hooks.reviews('/slow')[0] as any).query, '?timeout=1s');
      await mustOk(req('DELETE', `${REGISTRATION}/validatingwebhookconfigurations/slow`));
      await configure('validating', 'slow-ignored', webhook('slow.example.com', url, { timeoutSeconds: 1, failurePolicy: 'Ignore' }));
      await mustOk(createCm('wh', 'slow'), 201);
    });

    it('bad answers: wrong uid, wrong review version, an error status, an untrusted certificate', async () => {
      const cases: Array<[string, Handler | undefined, Record<string, unknown>, string]> = [
        ['/bad-uid', (r) => ({ ...(answer(r, { allowed: true }) as object), response: { uid: 'nope', allowed: true } }), {},
          `received invalid webhook response: expected response.uid="UID", got "nope"`],
        ['/bad-version', (r) => ({ ...(answer(r, { allowed: true }) as object), apiVersion: 'admission.k8s.io/v1beta1' }), {},
          'received invalid webhook response: expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got admission.k8s.io/v1beta1, Kind=AdmissionReview'],
        ['/no-response', () => ({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }), {}, 'received invalid webhook response: webhook response was absent'],
        ['/boom', (_r, res) => void res.writeHead(500, { 'Content-Type': 'text/plain' }).end('boom\n'), {},
          'failed to call webhook: an error on the server ("boom") has prevented the request from succeeding'],
        ['/not-json', (_r, res) => void res.writeHead(200, { 'Content-Type': 'application/json' }).end('hello'), {},
          "failed to call webhook: invalid character 'h' looking for beginning of value"],
        ['/untrusted', undefined, { caBundle: Buffer.from(otherCa.caCert).toString('base64') },
          'failed to call webhook: Post "URL?timeout=10s": x509: certificate signed by unknown authority'],
      ];
      for (const [path, handler, clientConfigExtra, expected] of cases) {
        const url = hooks.on(path, handler ?? ((r) => answer(r, { allowed: true })));
        const name = `bad${path.replace(/\//g, '-')}.example.com`;
        await configure('validating', `bad${path.replace(/\//g, '-')}`, webhook(name, url, { clientConfig: { url, caBundle, ...clientConfigExtra } }));
        const r = await createCm('wh', `bad${path.replace(/\//g, '-')}`);
        assert.equal(r.status, 500, `${path}: ${r.text}`);
        const uid = hooks.reviews(path)[0]?.request.uid ?? '';
        assert.equal(r.json.message, `Internal error occurred: failed calling webhook "${name}": ${expected.replace('UID', uid).replace('URL', url)}`, path);
        await mustOk(req('DELETE', `${REGISTRATION}/validatingwebhookconfigurations/bad${path.replace(/\//g, '-')}`));
      }
    });
  });

  describe('dry run and review versions', () => {
    it('sideEffects None and NoneOnDryRun get dryRun: true; Some and Unknown refuse a dry run', async () => {
      const url = hooks.on('/dry', (r) => answer(r, { allowed: true }));
      await configure('validating', 'dry', webhook('none.example.com', url), webhook('none-on-dry-run.example.com', url, { sideEffects: 'NoneOnDryRun' }));
      await mustOk(createCm('wh', 'dry', undefined, '?dryRun=All'), 201);
      assert.equal((await req('GET', '/api/v1/namespaces/wh/configmaps/dry')).status, 404);
      const reviews = hooks.reviews('/dry');
      assert.equal(reviews.length, 2);
      for (const rv of reviews) {
        assert.equal(rv.request.dryRun, true);
        assert.deepEqual(rv.request.options.dryRun, ['All']);
      }
      for (const sideEffects of ['Some', 'Unknown']) {
        await store('validating', `side-${sideEffects}`, webhook(`${sideEffects.toLowerCase()}.example.com`, url, { sideEffects }));
        const r = await createCm('wh', 'dry', undefined, '?dryRun=All');
        assert.equal(r.status, 400);
        assert.deepEqual(r.json, {
          kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
          message: `admission webhook "${sideEffects.toLowerCase()}.example.com" does not support dry run`, reason: 'BadRequest', code: 400,
        });
        // Without dryRun the webhook is called as any other.
        await mustOk(createCm('wh', `wet-${sideEffects.toLowerCase()}`), 201);
        await mustOk(req('DELETE', `${REGISTRATION}/validatingwebhookconfigurations/side-${sideEffects}`));
      }
    });

    it('the first known admissionReviewVersion is sent; a v1beta1 answer is taken as it is', async () => {
      const v1beta1 = hooks.on('/beta', (r) => ({ apiVersion: r.apiVersion, kind: 'AdmissionReview', response: { allowed: false, status: { message: `got ${r.apiVersion}` } } }));
      const v1 = hooks.on('/v1', (r) => answer(r, { allowed: true }));
      await configure('validating', 'versions',
        webhook('v1.example.com', v1, { admissionReviewVersions: ['v2', 'v1', 'v1beta1'] }),
        webhook('beta.example.com', v1beta1, { admissionReviewVersions: ['v1beta1', 'v1'] }));
      const r = await createCm('wh', 'versions');
      assert.equal(r.json.message, 'admission webhook "beta.example.com" denied the request: got admission.k8s.io/v1beta1');
      assert.equal(hooks.reviews('/v1')[0]!.apiVersion, 'admission.k8s.io/v1');
      const beta = hooks.reviews('/beta')[0]!;
      assert.equal(beta.request.kind.kind, 'ConfigMap');
      assert.equal(beta.request.operation, 'CREATE');
    });
  });

  describe('mutating', () => {
    it('a JSONPatch is applied and stored; the webhook sees the new object without server fields', async () => {
      const url = hooks.on('/label', (r) => answer(r, jsonPatch([
        { op: 'add', path: '/metadata/labels', value: { patched: 'yes' } },
        { op: 'replace', path: '/data/k', value: 'patched' },
      ])));
      await configure('mutating', 'label', webhook('label.example.com', url));
      const created = await mustOk(createCm('wh', 'mutated'), 201);
      assert.deepEqual(created.json.metadata.labels, { patched: 'yes' });
      const stored = await mustOk(req('GET', '/api/v1/namespaces/wh/configmaps/mutated'));
      assert.deepEqual(stored.json.metadata.labels, { patched: 'yes' });
      assert.deepEqual(stored.json.data, { k: 'patched' });
      assert.match(stored.json.metadata.uid, /^[0-9a-f-]{36}$/);
      const sent = hooks.reviews('/label')[0]!.request.object;
      assert.equal(sent.metadata.uid, undefined);
      assert.equal(sent.metadata.creationTimestamp, undefined);
      assert.equal(sent.metadata.name, 'mutated');
      assert.equal(hooks.reviews('/label')[0]!.request.name, 'mutated');

      // A generated name does not exist yet when webhooks are asked.
      const generated = await mustOk(req('POST', '/api/v1/namespaces/wh/configmaps', { metadata: { generateName: 'gen-' }, data: { k: 'v' } }), 201);
      assert.match(generated.json.metadata.name, /^gen-[a-z0-9]{5}$/);
      assert.deepEqual(generated.json.metadata.labels, { patched: 'yes' });
      const review = hooks.reviews('/label')[1]!.request;
      assert.equal(review.name, undefined);
      assert.equal(review.object.metadata.name, undefined);
      assert.equal(review.object.metadata.generateName, 'gen-');
    });

    it('webhooks run in order (configurations by name); the next one sees the previous patch', async () => {
      const first = hooks.on('/first', (r) => answer(r, jsonPatch([{ op: 'add', path: '/data/first', value: '1' }])));
      const second = hooks.on('/second', (r) => answer(r, jsonPatch([{ op: 'add', path: '/data/second', value: String(Object.keys(r.request.object.data).length) }])));
      await configure('mutating', 'b-second', webhook('second.example.com', second));
      await configure('mutating', 'a-first', webhook('first.example.com', first));
      const created = await mustOk(createCm('wh', 'ordered'), 201);
      assert.deepEqual(created.json.data, { k: 'v', first: '1', second: '2' });
    });

    it('reinvocationPolicy IfNeeded calls an earlier webhook again after a later one changed the object', async () => {
      const watcher = hooks.on('/watcher', (r) => answer(r, { allowed: true }));
      const never = hooks.on('/never', (r) => answer(r, { allowed: true }));
      const changer = hooks.on('/changer', (r) => answer(r, jsonPatch([{ op: 'add', path: '/data/changed', value: 'yes' }])));
      await configure('mutating', 'reinvoke',
        webhook('watcher.example.com', watcher, { reinvocationPolicy: 'IfNeeded' }),
        webhook('never.example.com', never),
        webhook('changer.example.com', changer));
      await mustOk(createCm('wh', 'reinvoked'), 201);
      assert.equal(hooks.reviews('/watcher').length, 2);
      assert.equal(hooks.reviews('/never').length, 1);
      assert.equal(hooks.reviews('/changer').length, 1);
      assert.equal(hooks.reviews('/watcher')[1]!.request.object.data.changed, 'yes');
    });

    it('warnings are sent to the client as Warning headers', async () => {
      const url = hooks.on('/warn', (r) => answer(r, { allowed: true, warnings: ['mind the gap', 'second warning'] }));
      await configure('mutating', 'warn', webhook('warn.example.com', url));
      const r = await mustOk(createCm('wh', 'warned'), 201);
      assert.deepEqual(r.headers['warning'], '299 - "mind the gap", 299 - "second warning"');
    });

    it('a patch for an equivalent version is converted back to the request\'s version', async () => {
      const url = hooks.on('/hpa-patch', (r) => answer(r, jsonPatch([{ op: 'replace', path: '/spec/maxReplicas', value: 7 }])));
      await configure('mutating', 'hpa', webhook('hpa.example.com', url, { rules: [{ operations: ['CREATE'], apiGroups: ['autoscaling'], apiVersions: ['v1'], resources: ['horizontalpodautoscalers'] }] }));
      const hpa = { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'hpa-m' }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 3 } };
      const r = await mustOk(req('POST', '/apis/autoscaling/v2/namespaces/wh/horizontalpodautoscalers', hpa), 201);
      assert.equal(r.json.apiVersion, 'autoscaling/v2');
      assert.equal(r.json.spec.maxReplicas, 7);
      assert.equal(hooks.reviews('/hpa-patch')[0]!.request.object.apiVersion, 'autoscaling/v1');
    });

    it('a patch on DELETE is refused (500); a failing patch is a 500', async () => {
      await mustOk(createCm('wh', 'undeletable'), 201);
      const url = hooks.on('/del-patch', (r) => answer(r, jsonPatch([{ op: 'add', path: '/metadata/labels', value: { a: 'b' } }])));
      await configure('mutating', 'del', webhook('del.example.com', url, { rules: [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] }));
      let r = await req('DELETE', '/api/v1/namespaces/wh/configmaps/undeletable');
      assert.equal(r.status, 500);
      assert.equal(r.json.message, 'Internal error occurred: admission webhook "del.example.com" attempted to modify the object, which is not supported for this operation');
      await mustOk(req('GET', '/api/v1/namespaces/wh/configmaps/undeletable'));
      const bad = hooks.on('/bad-patch', (rv) => answer(rv, jsonPatch([{ op: 'remove', path: '/spec/nothing' }])));
      await configure('mutating', 'bad', webhook('bad.example.com', bad));
      r = await createCm('wh', 'bad-patch');
      assert.equal(r.status, 500);
      assert.equal(r.json.reason, 'InternalError');
    });
  });

  describe('service references', () => {
    it('a service is reached through its Endpoints, the certificate checked for <name>.<namespace>.svc', async () => {
      await namespace(SERVICE_NAMESPACE);
      await mustOk(req('POST', `/api/v1/namespaces/${SERVICE_NAMESPACE}/services`, {
        metadata: { name: SERVICE_NAME }, spec: { ports: [{ name: 'https', port: 8443, targetPort: hooks.port }] },
      }), 201);
      // Endpoints may not name a loopback address through the API (as in the reference); the test's
      // webhook listens on loopback, so its Endpoints are stored directly.
      const endpoints = {
        kind: 'Endpoints', apiVersion: 'v1',
        metadata: { name: SERVICE_NAME, namespace: SERVICE_NAMESPACE, uid: randomUUID(), creationTimestamp: '2024-01-01T00:00:00Z' },
        subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: hooks.port }] }],
      };
      await server.storage.create(`/registry/endpoints/${SERVICE_NAMESPACE}/${SERVICE_NAME}`, (rev) => Buffer.from(JSON.stringify({ ...endpoints, metadata: { ...endpoints.metadata, resourceVersion: String(rev) } })));
      await sleep(10);
      hooks.on('/via-service', (r) => answer(r, { allowed: false, status: { message: 'reached through the service' } }));
      await configure('validating', 'svc', webhook('svc.example.com', '', {
        clientConfig: { service: { namespace: SERVICE_NAMESPACE, name: SERVICE_NAME, path: '/via-service', port: 8443 }, caBundle },
      }));
      let r = await createCm('wh', 'svc');
      assert.equal(r.json.message, 'admission webhook "svc.example.com" denied the request: reached through the service', r.text);

      await mustOk(req('DELETE', `${REGISTRATION}/validatingwebhookconfigurations/svc`));
      await configure('validating', 'svc-missing', webhook('missing.example.com', '', {
        clientConfig: { service: { namespace: SERVICE_NAMESPACE, name: 'missing', path: '/x' }, caBundle },
      }));
      r = await createCm('wh', 'svc');
      assert.equal(r.status, 500);
      assert.equal(hooks.reviews('/via-service').length, 1);
      assert.equal(r.json.message, 'Internal error occurred: failed calling webhook "missing.example.com": failed to call webhook: Post "https://missing.webhooks.svc:443/x?timeout=10s": service "missing" not found');
    });

    it('without Endpoints, the service\'s EndpointSlices give the address', async () => {
      await mustOk(req('POST', `/api/v1/namespaces/${SERVICE_NAMESPACE}/services`, {
        metadata: { name: 'sliced' }, spec: { ports: [{ port: 443, targetPort: hooks.port }] },
      }), 201);
      await mustOk(req('POST', `/apis/discovery.k8s.io/v1/namespaces/${SERVICE_NAMESPACE}/endpointslices`, {
        metadata: { name: 'sliced-abcde', labels: { 'kubernetes.io/service-name': 'sliced' } }, addressType: 'IPv4',
        endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }], ports: [{ port: hooks.port, protocol: 'TCP' }],
      }), 201);
      hooks.on('/via-slice', (r) => answer(r, { allowed: false, status: { message: 'reached through a slice' } }));
      // The certificate is for hook.webhooks.svc, not sliced.webhooks.svc: the name is checked.
      await configure('validating', 'sliced', webhook('sliced.example.com', '', {
        clientConfig: { service: { namespace: SERVICE_NAMESPACE, name: 'sliced', path: '/via-slice' }, caBundle },
      }));
      const r = await createCm('wh', 'sliced');
      assert.equal(r.status, 500);
      assert.match(r.json.message, /Post "https:\/\/sliced\.webhooks\.svc:443\/via-slice\?timeout=10s": x509: certificate is valid for .*hook\.webhooks\.svc.*, not sliced\.webhooks\.svc$/);
    });
  });
});

describe('webhook audit annotations', () => {
  let registry: Registry;
  const hooks = new WebhookServer();
  const dirs: string[] = [];
  let caBundle = '';

  before(async () => {
    dirs.push(await mkdtemp(join(tmpdir(), 'capstan-webhooks-')));
    const material = await ensureServingMaterial(dirs[0]!, []);
    caBundle = Buffer.from(material.caCert).toString('base64');
    await hooks.start(material);
    registry = new Registry(builtinResourceDefinitions(defaultEnabled), new MemoryStorage());
  });

  after(async () => {
    await hooks.stop();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  const attributes = (): AdmissionAttributes => ({
    operation: 'CREATE', info: registry.definitions.lookup('', 'v1', 'configmaps')!, namespace: 'default', name: 'cm',
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default', labels: { remove: 'me' } } },
    user: { name: 'u', groups: [] }, dryRun: false, warnings: [], annotations: {},
  });

  it('records each mutation and patch by round and index, failed-open calls, and the webhooks\' own annotations', async () => {
    const add = hooks.on('/add', (r) => answer(r, { ...jsonPatch([{ value: 'test', path: '/metadata/labels/added', op: 'add' }]), auditAnnotations: { key1: 'value1' } }));
    const remove = hooks.on('/remove', (r) => answer(r, jsonPatch([{ op: 'remove', path: '/metadata/labels/remove' }])));
    const entry = (name: string, url: string, extra: Record<string, unknown> = {}) => ({
      name, clientConfig: { url, caBundle }, sideEffects: 'None', admissionReviewVersions: ['v1'], reinvocationPolicy: 'IfNeeded',
      rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] }], ...extra,
    });
    const info = registry.definitions.lookup('admissionregistration.k8s.io', 'v1', 'mutatingwebhookconfigurations')!;
    await registry.create(info, undefined, { metadata: { name: 'cfg' }, webhooks: [entry('add-label.example.com', add), entry('remove-label.example.com', remove), entry('dead.example.com', 'https://127.0.0.1:1/', { failurePolicy: 'Ignore' })] });
    const attrs = attributes();
    await mutatingAdmissionWebhook().mutate!(attrs, { registry });
    assert.deepEqual(attrs.object!['metadata'], { name: 'cm', namespace: 'default', labels: { added: 'test' } });
    assert.deepEqual(attrs.annotations, {
      'add-label.example.com/key1': 'value1',
      'mutation.webhook.admission.k8s.io/round_0_index_0': '{"configuration":"cfg","webhook":"add-label.example.com","mutated":true}',
      'patch.webhook.admission.k8s.io/round_0_index_0': '{"configuration":"cfg","webhook":"add-label.example.com","patch":[{"op":"add","path":"/metadata/labels/added","value":"test"}],"patchType":"JSONPatch"}',
      'mutation.webhook.admission.k8s.io/round_0_index_1': '{"configuration":"cfg","webhook":"remove-label.example.com","mutated":true}',
      'patch.webhook.admission.k8s.io/round_0_index_1': '{"configuration":"cfg","webhook":"remove-label.example.com","patch":[{"op":"remove","path":"/metadata/labels/remove"}],"patchType":"JSONPatch"}',
      'mutation.webhook.admission.k8s.io/round_0_index_2': '{"configuration":"cfg","webhook":"dead.example.com","mutated":false}',
      'failed-open.mutation.webhook.admission.k8s.io/round_0_index_2': 'dead.example.com',
      // Reinvoked because remove-label changed the object after it: its add is a no-op the second time.
      'mutation.webhook.admission.k8s.io/round_1_index_0': '{"configuration":"cfg","webhook":"add-label.example.com","mutated":false}',
      'patch.webhook.admission.k8s.io/round_1_index_0': '{"configuration":"cfg","webhook":"add-label.example.com","patch":[{"op":"add","path":"/metadata/labels/added","value":"test"}],"patchType":"JSONPatch"}',
    });
    assert.equal(hooks.reviews('/add').length, 2);
    assert.equal(hooks.reviews('/remove').length, 1);

    const vinfo = registry.definitions.lookup('admissionregistration.k8s.io', 'v1', 'validatingwebhookconfigurations')!;
    await registry.create(vinfo, undefined, { metadata: { name: 'v' }, webhooks: [entry('ok.example.com', add.replace('/add', '/ok')), entry('dead.example.com', 'https://127.0.0.1:1/', { failurePolicy: 'Ignore' })] });
    const vattrs = attributes();
    await validatingAdmissionWebhook().validate!(vattrs, { registry });
    assert.deepEqual(vattrs.annotations, { 'failed-open.validating.webhook.admission.k8s.io/round_0_index_1': 'dead.example.com' });
  });
});
