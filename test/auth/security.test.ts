// Secure serving end to end: who may do what over HTTPS — client certificates, static tokens,
// service-account tokens, anonymous requests, impersonation — against RBAC with the bootstrap
// policy; escalation refused; bad credentials 401; the reference's 401/403 answers.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { TokenIssuer } from '../../src/auth/tokens.js';
import { ensureServingMaterial } from '../../src/server/certs.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { call, fixture, placeholders, type ClientTls, type Reply } from '../helpers.js';

const TEAM = 'team';

describe('authentication and RBAC over HTTPS', () => {
  let server: RunningServer;
  let dir: string;
  let admin: ClientTls;
  let anonymous: ClientTls;
  let robotToken = '';

  const as = (who: ClientTls | string) => (typeof who === 'string' ? { tls: anonymous, headers: { Authorization: `Bearer ${who}` } } : { tls: who });
  const req = (who: ClientTls | string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> => {
    const o = as(who);
    return call(server.url, method, path, { body, tls: o.tls, headers: { ...('headers' in o ? o.headers : {}), ...headers } });
  };
  const must = async (p: Promise<Reply>, status: number) => {
    const r = await p;
    assert.equal(r.status, status, r.text);
    return r;
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'capstan-security-'));
    const tokens = join(dir, 'tokens.csv');
    writeFileSync(tokens, ['alice-token,alice,1001,"team-editors"', 'bob-token,bob,1002', 'carol-token,carol,1003', 'imp-token,imp,1004'].join('\n') + '\n');
    server = await startServer({ bindAddress: '127.0.0.1', port: 0, storage: 'memory', dataDir: dir, tokenAuthFile: tokens });
    const m = server.material!;
    admin = { ca: m.caCert, cert: m.adminCert, key: m.adminKey };
    anonymous = { ca: m.caCert };
    const rbac = '/apis/rbac.authorization.k8s.io/v1';
    await must(req(admin, 'POST', '/api/v1/namespaces', { metadata: { name: TEAM } }), 201);
    await must(req(admin, 'POST', '/api/v1/namespaces', { metadata: { name: 'other' } }), 201);
    const bind = (name: string, role: string, subject: object, ns = TEAM) => must(req(admin, 'POST', `${rbac}/namespaces/${ns}/rolebindings`, { metadata: { name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role }, subjects: [subject] }), 201);
    await bind('editors', 'edit', { kind: 'Group', name: 'team-editors', apiGroup: 'rbac.authorization.k8s.io' });
    await bind('viewer', 'view', { kind: 'User', name: 'bob', apiGroup: 'rbac.authorization.k8s.io' });
    await bind('admin', 'admin', { kind: 'User', name: 'carol', apiGroup: 'rbac.authorization.k8s.io' });
    await bind('robot', 'view', { kind: 'ServiceAccount', name: 'robot', namespace: TEAM });
    await must(req(admin, 'POST', `${rbac}/clusterroles`, { metadata: { name: 'impersonator' }, rules: [{ apiGroups: [''], resources: ['users'], verbs: ['impersonate'] }] }), 201);
    await must(req(admin, 'POST', `${rbac}/clusterrolebindings`, { metadata: { name: 'imp' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'impersonator' }, subjects: [{ kind: 'User', name: 'imp', apiGroup: 'rbac.authorization.k8s.io' }] }), 201);
    await must(req(admin, 'POST', `/api/v1/namespaces/${TEAM}/serviceaccounts`, { metadata: { name: 'robot' } }), 201);
    await must(req(admin, 'POST', `/api/v1/namespaces/${TEAM}/secrets`, { metadata: { name: 's' }, stringData: { a: 'b' } }), 201);
    const token = await must(req(admin, 'POST', `/api/v1/namespaces/${TEAM}/serviceaccounts/robot/token`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} }), 201);
    robotToken = token.json.status.token;
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // who × verb × resource × namespace → status
  const matrix: Array<[string, string, string, string, unknown, number]> = [
    ['admin', 'GET', `/api/v1/namespaces/${TEAM}/pods`, 'list pods', undefined, 200],
    ['admin', 'POST', '/api/v1/namespaces/other/configmaps', 'create configmap elsewhere', { metadata: { name: 'by-admin' } }, 201],
    ['admin', 'GET', '/api/v1/nodes', 'list nodes', undefined, 200],
    ['alice', 'GET', `/api/v1/namespaces/${TEAM}/pods`, 'list pods', undefined, 200],
    ['alice', 'POST', `/api/v1/namespaces/${TEAM}/configmaps`, 'create configmap', { metadata: { name: 'by-alice' } }, 201],
    ['alice', 'GET', `/api/v1/namespaces/${TEAM}/secrets/s`, 'get a secret', undefined, 200],
    ['alice', 'GET', '/api/v1/namespaces/other/pods', 'list pods elsewhere', undefined, 403],
    ['alice', 'POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${TEAM}/roles`, 'create a role', { metadata: { name: 'r' }, rules: [] }, 403],
    ['alice', 'GET', '/api/v1/nodes', 'list nodes', undefined, 403],
    ['bob', 'GET', `/api/v1/namespaces/${TEAM}/pods`, 'list pods', undefined, 200],
    ['bob', 'POST', `/api/v1/namespaces/${TEAM}/configmaps`, 'create configmap', { metadata: { name: 'by-bob' } }, 403],
    ['bob', 'GET', `/api/v1/namespaces/${TEAM}/secrets/s`, 'get a secret', undefined, 403],
    ['bob', 'GET', '/api/v1/namespaces/other/configmaps', 'list configmaps elsewhere', undefined, 403],
    ['robot', 'GET', `/api/v1/namespaces/${TEAM}/configmaps`, 'list configmaps', undefined, 200],
    ['robot', 'DELETE', `/api/v1/namespaces/${TEAM}/configmaps/by-alice`, 'delete configmap', undefined, 403],
    ['anonymous', 'GET', '/version', 'get /version', undefined, 200],
    ['anonymous', 'GET', '/readyz', 'get /readyz', undefined, 200],
    ['anonymous', 'GET', '/api', 'discovery', undefined, 403],
    ['anonymous', 'GET', `/api/v1/namespaces/${TEAM}/configmaps`, 'list configmaps', undefined, 403],
    ['carol', 'POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${TEAM}/roles`, 'create a role within her rights', { metadata: { name: 'cm-reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }] }, 201],
  ];
  for (const [who, method, path, what, body, status] of matrix) {
    it(`${who}: ${what} (${method} ${path}) → ${status}`, async () => {
      const creds: Record<string, ClientTls | string> = { admin, anonymous, alice: 'alice-token', bob: 'bob-token', carol: 'carol-token', robot: robotToken };
      const r = await req(creds[who]!, method, path, body);
      assert.equal(r.status, status, r.text);
      if (status === 403) assert.equal(r.json.reason, 'Forbidden');
    });
  }

  it('403 answers as the reference words them', async () => {
    const f = fixture('errors/anonymous-list-namespaces');
    const r = await req(anonymous, 'GET', '/api/v1/namespaces');
    assert.deepEqual(r.json, f.response.body);
    const g = fixture('errors/anonymous-get-missing-path');
    assert.deepEqual((await req(anonymous, 'GET', '/apis/nope.example.com/v1')).json, g.response.body);
    const bob = await req('bob-token', 'POST', `/api/v1/namespaces/${TEAM}/configmaps`, { metadata: { name: 'x' } });
    assert.equal(bob.json.message, `configmaps is forbidden: User "bob" cannot create resource "configmaps" in API group "" in the namespace "${TEAM}"`);
    assert.deepEqual(bob.json.details, { kind: 'configmaps' });
  });

  it('a bad credential is 401 with a Status, never anonymous', async () => {
    const f = fixture('errors/unauthorized-bogus-token');
    const r = await req('bogus-token-for-fixtures', 'GET', '/api/v1/namespaces');
    assert.equal(r.status, 401);
    assert.deepEqual(r.json, f.response.body);
    const foreign = await ensureServingMaterial(join(dir, 'other-pki'), []);
    const wrongKey = await new TokenIssuer(foreign.serviceAccountKey, foreign.serviceAccountPublicKey).issue({ namespace: TEAM, name: 'robot', uid: 'x' }, ['https://kubernetes.default.svc.cluster.local'], 3600);
    assert.equal((await req(wrongKey.token, 'GET', '/version')).status, 401, 'signed by another key');
    const otherAudience = await must(req(admin, 'POST', `/api/v1/namespaces/${TEAM}/serviceaccounts/robot/token`, { spec: { audiences: ['vault'] } }), 201);
    assert.equal((await req(otherAudience.json.status.token, 'GET', '/version')).status, 401, 'wrong audience');
    const m = server.material!;
    const expired = await new TokenIssuer(m.serviceAccountKey, m.serviceAccountPublicKey).issue({ namespace: TEAM, name: 'robot', uid: 'x' }, ['https://kubernetes.default.svc.cluster.local'], 600, undefined, new Date(Date.now() - 3600_000));
    assert.equal((await req(expired.token, 'GET', '/version')).status, 401, 'expired');
    // A token outlives nothing: delete the service account and its token stops working.
    await must(req(admin, 'POST', `/api/v1/namespaces/${TEAM}/serviceaccounts`, { metadata: { name: 'temp' } }), 201);
    const temp = await must(req(admin, 'POST', `/api/v1/namespaces/${TEAM}/serviceaccounts/temp/token`, { spec: {} }), 201);
    assert.equal((await req(temp.json.status.token, 'GET', '/version')).status, 200);
    await must(req(admin, 'DELETE', `/api/v1/namespaces/${TEAM}/serviceaccounts/temp`), 200);
    assert.equal((await req(temp.json.status.token, 'GET', '/version')).status, 401, 'deleted service account');
  });

  it('refuses escalation: a role granting more than its writer holds, a binding to a role it may not bind', async () => {
    const role = await req('carol-token', 'POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${TEAM}/roles`, { metadata: { name: 'too-much' }, rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['list'] }] });
    assert.equal(role.status, 403, role.text);
    assert.match(role.json.message, /^roles\.rbac\.authorization\.k8s\.io "too-much" is forbidden: user "carol" \(groups=\["system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\[""\], Resources:\["nodes"\], Verbs:\["list"\]\}$/);
    const binding = await req('carol-token', 'POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${TEAM}/rolebindings`, { metadata: { name: 'grab' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' }, subjects: [{ kind: 'User', name: 'carol', apiGroup: 'rbac.authorization.k8s.io' }] });
    assert.equal(binding.status, 403, binding.text);
    const ok = await req('carol-token', 'POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${TEAM}/rolebindings`, { metadata: { name: 'share-view' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'User', name: 'dave', apiGroup: 'rbac.authorization.k8s.io' }] });
    assert.equal(ok.status, 201, ok.text);
  });

  it('impersonation needs the impersonate verb and then acts as the impersonated user', async () => {
    const asBob = { 'Impersonate-User': 'bob' };
    assert.equal((await req('imp-token', 'GET', `/api/v1/namespaces/${TEAM}/pods`, undefined, asBob)).status, 200);
    assert.equal((await req('imp-token', 'POST', `/api/v1/namespaces/${TEAM}/configmaps`, { metadata: { name: 'imp' } }, asBob)).status, 403);
    const refused = await req('alice-token', 'GET', `/api/v1/namespaces/${TEAM}/pods`, undefined, asBob);
    assert.equal(refused.status, 403);
    assert.equal(refused.json.message, 'users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope');
    const me = await req('imp-token', 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { spec: { resourceAttributes: { namespace: TEAM, verb: 'list', resource: 'pods' } } }, asBob);
    assert.equal(me.json.status.allowed, true);
  });

  it('answers the review APIs from the same authorizer', async () => {
    const sar = await must(req(admin, 'POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', { spec: { user: 'bob', resourceAttributes: { namespace: TEAM, verb: 'list', resource: 'pods' } } }), 201);
    assert.equal(sar.json.status.allowed, true);
    assert.equal(sar.json.status.reason, `RBAC: allowed by RoleBinding "viewer/${TEAM}" of ClusterRole "view" to User "bob"`);
    const denied = await must(req(admin, 'POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', { spec: { user: 'bob', resourceAttributes: { namespace: TEAM, verb: 'delete', resource: 'pods' } } }), 201);
    assert.equal(denied.json.status.allowed, false);
    const rules = await must(req('bob-token', 'POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { spec: { namespace: TEAM } }), 201);
    assert.ok(rules.json.status.resourceRules.some((r: { verbs: string[]; resources?: string[] }) => r.resources?.includes('pods') && r.verbs.includes('list')));
    const review = await must(req(admin, 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', { spec: { token: robotToken } }), 201);
    assert.equal(review.json.status.authenticated, true);
    assert.equal(review.json.status.user.username, `system:serviceaccount:${TEAM}:robot`);
    const bogus = fixture('create/authentication.k8s.io-v1-tokenreviews');
    const bad = await must(req(admin, 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', bogus.request.body, { 'User-Agent': 'recorder/1.0 (record.mjs; node)' }), 201);
    const expected = structuredClone(bogus.response.body) as { spec: { token: string } };
    expected.spec.token = 'bogus-token-for-fixtures';
    assert.deepEqual(placeholders(bad.json), expected);
  });
});
