// Protobuf request bodies on every verb and subresource that takes one, as client-go and
// controller-runtime send them for built-in types: DeleteOptions on delete and deletecollection,
// Scale, Binding, Eviction, TokenRequest, the reviews, and status, finalize and approval updates.
// (Every built-in kind's create and update in Protobuf: test/registry/create-fixtures.test.ts.)
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { encodeProtobufObject } from '../../src/encoding/protobuf-encode.js';
import { decodeProtobufObject, PROTOBUF_MEDIA_TYPE } from '../../src/encoding/protobuf.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { call, fixture, mustOk, type ClientTls, type Reply } from '../helpers.js';

const NS = 'pb-bodies';
const CORE = `/api/v1/namespaces/${NS}`;
const APPS = `/apis/apps/v1/namespaces/${NS}`;
const CLIENT_GO_ACCEPT = 'application/vnd.kubernetes.protobuf, */*';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test convenience

describe('Protobuf request bodies', { timeout: 60_000 }, () => {
  let server: RunningServer;
  let dir: string;
  let admin: ClientTls;

  /** A request with a JSON body (or none), as the admin. */
  const json = (method: string, path: string, body?: unknown): Promise<Reply> => call(server.url, method, path, { body, tls: admin });
  /** A request whose body is `object` in Protobuf, answered in JSON. */
  const protobuf = (method: string, path: string, object: Json): Promise<Reply> =>
    call(server.url, method, path, { body: encodeProtobufObject(object), headers: { 'Content-Type': PROTOBUF_MEDIA_TYPE }, tls: admin });
  const exists = async (path: string) => (await json('GET', path)).status === 200;
  /** A POST of Protobuf bytes asking a Protobuf answer, as client-go does: the answer's bytes. */
  const bytesOf = (path: string, body: Buffer): Promise<{ status: number; type: string; body: Buffer }> => new Promise((resolve, reject) => {
    const headers = { 'Content-Type': PROTOBUF_MEDIA_TYPE, 'Content-Length': String(body.length), Accept: CLIENT_GO_ACCEPT };
    const req = request(new URL(path, server.url), { method: 'POST', headers, ...admin }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });

  const deployment = (name: string) => ({
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
    spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  });
  const pod = (name: string, spec: Json = {}) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec } });
  const configMap = (name: string, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data: { k: 'v' } });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'capstan-pb-bodies-'));
    // Secured (TLS, an issuer): TokenRequest needs the service-account token issuer.
    server = await startServer({ bindAddress: '127.0.0.1', port: 0, storage: 'memory', dataDir: dir });
    const m = server.material!;
    admin = { ca: m.caCert, cert: m.adminCert, key: m.adminKey };
    await mustOk(protobuf('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }), 201);
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('DeleteOptions', () => {
    it('delete: a Protobuf body\'s preconditions, dry run and propagation policy are honoured', async () => {
      const created = (await mustOk(protobuf('POST', `${APPS}/deployments`, deployment('web')), 201)).json;
      const path = `${APPS}/deployments/web`;
      // client-go sends the group's own version of DeleteOptions.
      const stale = await protobuf('DELETE', path, { apiVersion: 'apps/v1', kind: 'DeleteOptions', preconditions: { uid: '00000000-0000-0000-0000-000000000001' } });
      assert.equal(stale.status, 409, stale.text);
      assert.match(stale.json.message, /the UID in the precondition \(00000000-0000-0000-0000-000000000001\) does not match/);
      await mustOk(protobuf('DELETE', path, { apiVersion: 'apps/v1', kind: 'DeleteOptions', dryRun: ['All'] }));
      assert.ok(await exists(path), 'a dry run deletes nothing');
      const foreground = await mustOk(protobuf('DELETE', path, {
        apiVersion: 'apps/v1', kind: 'DeleteOptions', propagationPolicy: 'Foreground', preconditions: { uid: created.metadata.uid },
      }));
      assert.deepEqual(foreground.json.metadata.finalizers, ['foregroundDeletion']);
      assert.ok(foreground.json.metadata.deletionTimestamp);
    });

    it('delete: meta.k8s.io/v1 DeleteOptions (controller-runtime\'s), a present orphanDependents: false and a grace period', async () => {
      await mustOk(json('POST', `${CORE}/pods`, pod('graceful', { nodeName: 'node-1' })), 201);
      const graceful = await mustOk(protobuf('DELETE', `${CORE}/pods/graceful`, { apiVersion: 'meta.k8s.io/v1', kind: 'DeleteOptions', gracePeriodSeconds: 7 }));
      assert.equal(graceful.json.metadata.deletionGracePeriodSeconds, 7);
      await mustOk(json('POST', `${CORE}/configmaps`, configMap('owner')), 201);
      // orphanDependents: false names the Background policy: deleted at once, no orphan finalizer.
      await mustOk(protobuf('DELETE', `${CORE}/configmaps/owner`, { apiVersion: 'meta.k8s.io/v1', kind: 'DeleteOptions', orphanDependents: false }));
      assert.equal(await exists(`${CORE}/configmaps/owner`), false);
      await mustOk(json('POST', `${CORE}/configmaps`, configMap('orphaning')), 201);
      const orphaning = await mustOk(protobuf('DELETE', `${CORE}/configmaps/orphaning`, { apiVersion: 'v1', kind: 'DeleteOptions', orphanDependents: true }));
      assert.deepEqual(orphaning.json.metadata.finalizers, ['orphan']);
    });

    it('deletecollection: a Protobuf body\'s dry run deletes nothing, without it the selected objects go', async () => {
      for (const name of ['batch-a', 'batch-b']) await mustOk(json('POST', `${CORE}/configmaps`, configMap(name, { batch: 'yes' })), 201);
      const selected = `${CORE}/configmaps?labelSelector=batch%3Dyes`;
      const dry = await mustOk(protobuf('DELETE', selected, { apiVersion: 'v1', kind: 'DeleteOptions', dryRun: ['All'] }));
      assert.deepEqual(dry.json.items.map((i: Json) => i.metadata.name), ['batch-a', 'batch-b']);
      assert.equal((await mustOk(json('GET', selected))).json.items.length, 2);
      await mustOk(protobuf('DELETE', selected, { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0 }));
      assert.equal((await mustOk(json('GET', selected))).json.items.length, 0);
    });

    it('a Protobuf body that does not decode is refused with the reference\'s message', async () => {
      await mustOk(json('POST', `${CORE}/configmaps`, configMap('kept')), 201);
      const bad = await call(server.url, 'DELETE', `${CORE}/configmaps/kept`, { body: Buffer.from('{"kind":"DeleteOptions"}'), headers: { 'Content-Type': PROTOBUF_MEDIA_TYPE }, tls: admin });
      assert.equal(bad.status, 400, bad.text);
      assert.match(bad.json.message, /^the object provided is unrecognized \(must be of type DeleteOptions\): provided data does not appear to be a protobuf message/);
      assert.ok(await exists(`${CORE}/configmaps/kept`));
    });
  });

  it('scale: PUT of a Protobuf Scale on deployments, replicasets, statefulsets and replicationcontrollers', async () => {
    const template = { metadata: { labels: { app: 's' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
    const workloads: Array<[string, Json]> = [
      [`${APPS}/deployments`, deployment('scaled')],
      [`${APPS}/replicasets`, { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'scaled' }, spec: { selector: { matchLabels: { app: 's' } }, template } }],
      [`${APPS}/statefulsets`, { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'scaled' }, spec: { serviceName: 's', selector: { matchLabels: { app: 's' } }, template } }],
      [`${CORE}/replicationcontrollers`, { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'scaled' }, spec: { selector: { app: 's' }, template } }],
    ];
    for (const [collection, object] of workloads) {
      await mustOk(json('POST', collection, object), 201);
      const scalePath = `${collection}/scaled/scale`;
      for (const replicas of [5, 0]) {
        const scale = (await mustOk(json('GET', scalePath))).json;
        const answer = await mustOk(protobuf('PUT', scalePath, { ...scale, spec: { replicas } }));
        assert.equal(answer.json.kind, 'Scale', collection);
        assert.equal(answer.json.spec.replicas ?? 0, replicas, collection);
        assert.equal((await mustOk(json('GET', `${collection}/scaled`))).json.spec.replicas, replicas, collection);
      }
    }
  });

  it('pods: Binding (subresource and collection) and Eviction in Protobuf', async () => {
    await mustOk(json('POST', `${CORE}/pods`, pod('bound')), 201);
    await mustOk(protobuf('POST', `${CORE}/pods/bound/binding`, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'bound' }, target: { apiVersion: 'v1', kind: 'Node', name: 'node-3' } }), 201);
    assert.equal((await mustOk(json('GET', `${CORE}/pods/bound`))).json.spec.nodeName, 'node-3');
    await mustOk(json('POST', `${CORE}/pods`, pod('bound-too')), 201);
    await mustOk(protobuf('POST', `${CORE}/bindings`, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'bound-too' }, target: { kind: 'Node', name: 'node-4' } }), 201);
    assert.equal((await mustOk(json('GET', `${CORE}/pods/bound-too`))).json.spec.nodeName, 'node-4');
    await mustOk(json('POST', `${CORE}/pods`, pod('evicted')), 201);
    await mustOk(protobuf('POST', `${CORE}/pods/evicted/eviction`, {
      apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'evicted', namespace: NS }, deleteOptions: { gracePeriodSeconds: 0 },
    }), 201);
    assert.equal(await exists(`${CORE}/pods/evicted`), false);
  });

  it('serviceaccounts/token: a Protobuf TokenRequest, answered in Protobuf as client-go asks', async () => {
    await mustOk(json('POST', `${CORE}/serviceaccounts`, { metadata: { name: 'robot' } }), 201);
    const reply = await bytesOf(`${CORE}/serviceaccounts/robot/token`, encodeProtobufObject({
      apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: ['vault'], expirationSeconds: 3600 },
    }));
    assert.equal(reply.status, 201, reply.body.toString());
    assert.equal(reply.type, PROTOBUF_MEDIA_TYPE);
    const answered = decodeProtobufObject(reply.body).object as Json;
    assert.equal(answered.kind, 'TokenRequest');
    assert.deepEqual(answered.spec.audiences, ['vault']);
    assert.equal(answered.spec.expirationSeconds, 3600);
    // The token is the robot's, for the audience and lifetime the Protobuf body asked.
    const claims = JSON.parse(Buffer.from(String(answered.status.token).split('.')[1]!, 'base64url').toString()) as Json;
    assert.deepEqual(claims.aud, ['vault']);
    assert.equal(claims.exp - claims.iat, 3600);
    assert.equal(claims.sub, `system:serviceaccount:${NS}:robot`);
  });

  it('the reviews: SubjectAccessReview, SelfSubjectAccessReview, LocalSubjectAccessReview, SelfSubjectRulesReview, TokenReview', async () => {
    const authz = '/apis/authorization.k8s.io/v1';
    const attributes = { namespace: NS, verb: 'get', resource: 'pods' };
    const sar = await mustOk(protobuf('POST', `${authz}/subjectaccessreviews`, {
      apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'nobody', resourceAttributes: attributes },
    }), 201);
    assert.equal(sar.json.status.allowed, false);
    assert.equal(sar.json.spec.user, 'nobody');
    const ssar = await mustOk(protobuf('POST', `${authz}/selfsubjectaccessreviews`, {
      apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: attributes },
    }), 201);
    assert.equal(ssar.json.status.allowed, true);
    const lsar = await mustOk(protobuf('POST', `${authz}/namespaces/${NS}/localsubjectaccessreviews`, {
      apiVersion: 'authorization.k8s.io/v1', kind: 'LocalSubjectAccessReview', metadata: { namespace: NS }, spec: { groups: ['system:masters'], user: 'x', resourceAttributes: attributes },
    }), 201);
    assert.equal(lsar.json.status.allowed, true);
    const ssrr = await mustOk(protobuf('POST', `${authz}/selfsubjectrulesreviews`, {
      apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: NS },
    }), 201);
    assert.ok(ssrr.json.status.resourceRules.some((r: Json) => r.verbs.includes('*') && r.resources.includes('*')), ssrr.text);
    const tokenReview = await mustOk(protobuf('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
      apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 'not-a-token' },
    }), 201);
    assert.equal(tokenReview.json.status.authenticated ?? false, false);
  });

  it('status, finalize and approval: PUTs of a Protobuf object change their part', async () => {
    await mustOk(json('POST', `${CORE}/pods`, pod('reported')), 201);
    const current = (await mustOk(json('GET', `${CORE}/pods/reported`))).json;
    const reported = await mustOk(protobuf('PUT', `${CORE}/pods/reported/status`, { ...current, status: { ...current.status, phase: 'Running', podIP: '10.0.0.9' } }));
    assert.equal(reported.json.status.phase, 'Running');
    assert.equal(reported.json.status.podIP, '10.0.0.9');

    await mustOk(json('POST', '/api/v1/namespaces', { metadata: { name: 'pb-finalized' } }), 201);
    const ns = (await mustOk(json('GET', '/api/v1/namespaces/pb-finalized'))).json;
    const finalized = await mustOk(protobuf('PUT', '/api/v1/namespaces/pb-finalized/finalize', { ...ns, spec: { finalizers: [] } }));
    assert.equal(finalized.json.spec.finalizers, undefined);

    const f = fixture('create/certificates.k8s.io-v1-certificatesigningrequests');
    const csr = (await mustOk(json('POST', f.request.path, f.request.body), 201)).json;
    const approved = await mustOk(protobuf('PUT', `${f.request.path}/${csr.metadata.name}/approval`, {
      ...csr, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Test', message: 'approved in protobuf' }] },
    }));
    assert.deepEqual(approved.json.status.conditions.map((c: Json) => [c.type, c.message]), [['Approved', 'approved in protobuf']]);
  });
});
