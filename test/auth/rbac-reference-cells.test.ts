// The RBAC cells the reliability probe's matrix (issue 14) found answered unlike the reference,
// end to end over HTTPS with token users: lists and watches named by a metadata.name field
// selector, denials naming missing roles, paths authorized as sent (trailing slash, empty and
// extra segments), impersonated service accounts' groups, `escalate` asked with the request's
// name, and escalations listing only the rights missing, before validation.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { call, type ClientTls, type Reply } from '../helpers.js';

const NS = 'cells';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const G = 'rbac.authorization.k8s.io';

describe('RBAC cells answered as the reference (issue 14 probe)', { timeout: 60_000 }, () => {
  let server: RunningServer;
  let dir: string;
  let admin: ClientTls;
  let anonymous: ClientTls;
  const as = (token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> =>
    call(server.url, method, path, { body, tls: anonymous, headers: { Authorization: `Bearer ${token}`, ...headers } });
  const must = async (p: Promise<Reply>, status: number) => {
    const r = await p;
    assert.equal(r.status, status, r.text);
    return r;
  };
  const adminDoes = (method: string, path: string, body: unknown) => must(call(server.url, method, path, { body, tls: admin }), 201);
  const role = (name: string, rules: object[]) => adminDoes('POST', `${RBAC}/namespaces/${NS}/roles`, { metadata: { name }, rules });
  const bind = (name: string, kind: 'Role' | 'ClusterRole', roleName: string, subject: object) =>
    adminDoes('POST', `${RBAC}/namespaces/${NS}/rolebindings`, { metadata: { name }, roleRef: { apiGroup: G, kind, name: roleName }, subjects: [subject] });
  const user = (name: string) => ({ kind: 'User', name, apiGroup: G });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'capstan-rbac-cells-'));
    const tokens = join(dir, 'tokens.csv');
    writeFileSync(tokens, ['nina,nina,1', 'gina,gina,2', 'plain,plain,3', 'imp,imp,4', 'esc,esc,5'].join('\n') + '\n');
    server = await startServer({ bindAddress: '127.0.0.1', port: 0, storage: 'memory', dataDir: dir, tokenAuthFile: tokens });
    const m = server.material!;
    admin = { ca: m.caCert, cert: m.adminCert, key: m.adminKey };
    anonymous = { ca: m.caCert };
    await adminDoes('POST', '/api/v1/namespaces', { metadata: { name: NS } });
    await adminDoes('POST', `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: 'c1' } });
    await role('cm-named', [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['c1'], verbs: ['get', 'list', 'watch'] }]);
    await bind('nina', 'Role', 'cm-named', user('nina'));
    await bind('gina', 'Role', 'no-such-role', user('gina'));
    await adminDoes('POST', `${RBAC}/clusterrolebindings`, { metadata: { name: 'gina' }, roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'no-such-clusterrole' }, subjects: [user('gina')] });
    await adminDoes('POST', `${RBAC}/clusterroles`, { metadata: { name: 'cells-sa-events' }, rules: [{ apiGroups: [''], resources: ['events'], verbs: ['list'] }] });
    await adminDoes('POST', `${RBAC}/clusterrolebindings`, { metadata: { name: 'cells-sa-events' }, roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'cells-sa-events' }, subjects: [{ kind: 'Group', name: 'system:serviceaccounts', apiGroup: G }] });
    await role('imp', [{ apiGroups: [''], resources: ['serviceaccounts'], verbs: ['impersonate'] }]);
    await bind('imp', 'Role', 'imp', user('imp'));
    await adminDoes('POST', `${RBAC}/clusterroles`, { metadata: { name: 'cells-imp-groups' }, rules: [{ apiGroups: [''], resources: ['groups'], verbs: ['impersonate'] }] });
    await adminDoes('POST', `${RBAC}/clusterrolebindings`, { metadata: { name: 'cells-imp-groups' }, roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'cells-imp-groups' }, subjects: [user('imp')] });
    await role('writer', [{ apiGroups: [G], resources: ['roles'], verbs: ['create', 'update'] }, { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]);
    await role('escalate-big', [{ apiGroups: [G], resources: ['roles'], resourceNames: ['big'], verbs: ['escalate'] }]);
    await role('big', []);
    await bind('esc-writer', 'Role', 'writer', user('esc'));
    await bind('esc-escalate', 'Role', 'escalate-big', user('esc'));
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('authorizes a list or watch with a metadata.name field selector by that name', async () => {
    const cms = `/api/v1/namespaces/${NS}/configmaps`;
    assert.equal((await as('nina', 'GET', `${cms}?fieldSelector=metadata.name%3Dc1`)).status, 200);
    assert.equal((await as('nina', 'GET', `${cms}?fieldSelector=metadata.name%3D%3Dc1&watch=1&timeoutSeconds=1`)).status, 200);
    const other = await as('nina', 'GET', `${cms}?fieldSelector=metadata.name%3Dc2`);
    assert.equal(other.status, 403);
    assert.equal(other.json.message, `configmaps "c2" is forbidden: User "nina" cannot list resource "configmaps" in API group "" in the namespace "${NS}"`);
    assert.equal((await as('nina', 'GET', cms)).status, 403);
  });

  it('names the missing roles a denied user is bound to', async () => {
    const r = await as('gina', 'GET', `/api/v1/namespaces/${NS}/configmaps/c1`);
    assert.equal(r.status, 403);
    assert.equal(r.json.message, `configmaps "c1" is forbidden: User "gina" cannot get resource "configmaps" in API group "" in the namespace "${NS}": RBAC: [clusterrole.rbac.authorization.k8s.io "no-such-clusterrole" not found, role.rbac.authorization.k8s.io "no-such-role" not found]`);
    const cluster = await as('gina', 'GET', '/api/v1/nodes');
    assert.equal(cluster.json.message, 'nodes is forbidden: User "gina" cannot list resource "nodes" in API group "" at the cluster scope: RBAC: clusterrole.rbac.authorization.k8s.io "no-such-clusterrole" not found');
  });

  it('authorizes paths as sent: a trailing slash, empty and extra segments', async () => {
    assert.equal((await as('plain', 'GET', '/readyz')).status, 200);
    const slash = await as('plain', 'GET', '/readyz/');
    assert.equal(slash.status, 403);
    assert.equal(slash.json.message, 'forbidden: User "plain" cannot get path "/readyz/"');
    const empty = await as('plain', 'GET', `/api/v1//namespaces/${NS}/configmaps`);
    assert.equal(empty.status, 403);
    assert.equal(empty.json.message, 'forbidden: User "plain" cannot get resource "/cells" in API group "" at the cluster scope');
    // Past resource/name/subresource the reference ignores the rest: still a request for the resource.
    const extra = await as('plain', 'GET', `/api/v1/namespaces/${NS}/configmaps/c1/x/y`);
    assert.equal(extra.status, 403);
    assert.equal(extra.json.message, `configmaps "c1" is forbidden: User "plain" cannot get resource "configmaps/x" in API group "" in the namespace "${NS}"`);
  });

  it('gives an impersonated service account its groups only when no group is named', async () => {
    const events = `/api/v1/namespaces/${NS}/events`;
    const sa = `system:serviceaccount:${NS}:robot`;
    assert.equal((await as('imp', 'GET', events, undefined, { 'Impersonate-User': sa })).status, 200);
    const named = await as('imp', 'GET', events, undefined, { 'Impersonate-User': sa, 'Impersonate-Group': 'team' });
    assert.equal(named.status, 403);
    assert.equal(named.json.message, `events is forbidden: User "${sa}" cannot list resource "events" in API group "" in the namespace "${NS}"`);
    // Not a valid service-account name: a plain user, checked as one.
    const upper = await as('imp', 'GET', events, undefined, { 'Impersonate-User': 'system:serviceaccount:CELLS:robot' });
    assert.equal(upper.json.message, 'users "system:serviceaccount:CELLS:robot" is forbidden: User "imp" cannot impersonate resource "users" in API group "" at the cluster scope');
  });

  it('asks `escalate` about the request\'s name (none on a create) and lists only the missing rights, before validation', async () => {
    const rules = [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }, { apiGroups: [''], resources: ['pods'], verbs: ['get'] }];
    const roles = `${RBAC}/namespaces/${NS}/roles`;
    const created = await as('esc', 'POST', `${roles}?dryRun=All`, { metadata: { name: 'big' }, rules });
    assert.equal(created.status, 403);
    assert.equal(created.json.message, `roles.rbac.authorization.k8s.io "big" is forbidden: user "esc" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["configmaps"], Verbs:["list"]}\n{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`);
    assert.equal((await as('esc', 'PUT', `${roles}/big?dryRun=All`, { metadata: { name: 'big' }, rules })).status, 200);
    // A namespaced Role may not name URLs (422), but the escalation is refused first.
    const urls = await as('esc', 'POST', `${roles}?dryRun=All`, { metadata: { name: 'urls' }, rules: [{ nonResourceURLs: ['/x'], verbs: ['get'] }] });
    assert.equal(urls.status, 403);
    assert.match(urls.json.message, /\n\{NonResourceURLs:\["\/x"\], Verbs:\["get"\]\}$/);
  });
});
