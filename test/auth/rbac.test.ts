import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { aggregatedRules, RbacAuthorizer, uncoveredRules, type PolicyRule, type RbacSource, type Role, type RoleBinding, type Subject } from '../../src/auth/rbac.js';
import { bootstrapPolicy } from '../../src/auth/rbac-bootstrap.js';
import type { Attributes } from '../../src/auth/types.js';
import type { UserInfo } from '../../src/api/user.js';
import { referenceDir } from '../helpers.js';

// ---------------------------------------------------------------------------------------------
// An in-memory RbacSource
// ---------------------------------------------------------------------------------------------

class MemorySource implements RbacSource {
  private v = 1;
  constructor(
    public cr: Role[] = [],
    public r: Role[] = [],
    public crb: RoleBinding[] = [],
    public rb: RoleBinding[] = [],
  ) {}
  version(): number {
    return this.v;
  }
  touch(): void {
    this.v++;
  }
  clusterRoles(): Role[] {
    return this.cr;
  }
  roles(): Role[] {
    return this.r;
  }
  clusterRoleBindings(): RoleBinding[] {
    return this.crb;
  }
  roleBindings(): RoleBinding[] {
    return this.rb;
  }
}

const RBAC = 'rbac.authorization.k8s.io';
const cr = (name: string, rules: PolicyRule[], labels?: Record<string, string>): Role => ({ metadata: { name, ...(labels ? { labels } : {}) }, rules });
const nsRole = (namespace: string, name: string, rules: PolicyRule[]): Role => ({ metadata: { name, namespace }, rules });
const U = (name: string): Subject => ({ kind: 'User', name, apiGroup: RBAC });
const G = (name: string): Subject => ({ kind: 'Group', name, apiGroup: RBAC });
const SA = (name: string, namespace?: string): Subject => ({ kind: 'ServiceAccount', name, ...(namespace ? { namespace } : {}) });
const crb = (name: string, role: string, subjects: Subject[]): RoleBinding => ({ metadata: { name }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: role }, subjects });
const rb = (namespace: string, name: string, kind: 'Role' | 'ClusterRole', role: string, subjects: Subject[]): RoleBinding => ({
  metadata: { name, namespace },
  roleRef: { apiGroup: RBAC, kind, name: role },
  subjects,
});

const user = (name: string, ...groups: string[]): UserInfo => ({ name, groups });
const authed = (name: string, ...groups: string[]): UserInfo => user(name, ...groups, 'system:authenticated');
const anonymous: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };

function res(u: UserInfo, verb: string, resource: string, opts: { group?: string; sub?: string; ns?: string; name?: string } = {}): Attributes {
  const a: Attributes = { user: u, verb, resourceRequest: true, apiGroup: opts.group ?? '', apiVersion: 'v1', resource };
  if (opts.sub) a.subresource = opts.sub;
  if (opts.ns) a.namespace = opts.ns;
  if (opts.name) a.name = opts.name;
  return a;
}
const url = (u: UserInfo, verb: string, path: string): Attributes => ({ user: u, verb, resourceRequest: false, path });

// ---------------------------------------------------------------------------------------------

describe('RBAC rule matching', () => {
  it('matches exact and wildcard verbs, groups and resources', () => {
    const src = new MemorySource(
      [
        cr('exact', [{ verbs: ['get', 'list'], apiGroups: ['apps'], resources: ['deployments'] }]),
        cr('wild-verbs', [{ verbs: ['*'], apiGroups: [''], resources: ['configmaps'] }]),
        cr('wild-groups', [{ verbs: ['get'], apiGroups: ['*'], resources: ['widgets'] }]),
        cr('wild-resources', [{ verbs: ['watch'], apiGroups: ['batch'], resources: ['*'] }]),
      ],
      [],
      [crb('b1', 'exact', [U('alice')]), crb('b2', 'wild-verbs', [U('alice')]), crb('b3', 'wild-groups', [U('alice')]), crb('b4', 'wild-resources', [U('alice')])],
    );
    const z = new RbacAuthorizer(src);
    const alice = user('alice');
    assert.equal(z.authorize(res(alice, 'get', 'deployments', { group: 'apps', ns: 'x' })).allowed, true);
    assert.equal(z.authorize(res(alice, 'list', 'deployments', { group: 'apps' })).allowed, true);
    assert.equal(z.authorize(res(alice, 'delete', 'deployments', { group: 'apps', ns: 'x' })).allowed, false);
    assert.equal(z.authorize(res(alice, 'get', 'deployments', { group: 'extensions', ns: 'x' })).allowed, false);
    assert.equal(z.authorize(res(alice, 'escalate', 'configmaps', { ns: 'x' })).allowed, true);
    assert.equal(z.authorize(res(alice, 'get', 'configmaps', { group: 'apps', ns: 'x' })).allowed, false);
    assert.equal(z.authorize(res(alice, 'get', 'widgets', { group: 'example.com' })).allowed, true);
    assert.equal(z.authorize(res(alice, 'watch', 'cronjobs', { group: 'batch', ns: 'y' })).allowed, true);
    assert.equal(z.authorize(res(alice, 'watch', 'cronjobs', { group: 'batch', ns: 'y', sub: 'status' })).allowed, true, '* covers subresources');
    assert.equal(z.authorize(res(alice, 'get', 'cronjobs', { group: 'batch', ns: 'y' })).allowed, false);
    assert.equal(z.authorize(res(user('bob'), 'get', 'deployments', { group: 'apps', ns: 'x' })).allowed, false);
    // The allowed reason names the first binding that allows it.
    assert.deepEqual(z.authorize(res(alice, 'get', 'deployments', { group: 'apps', ns: 'x' })), {
      allowed: true,
      reason: 'RBAC: allowed by ClusterRoleBinding "b1" of ClusterRole "exact" to User "alice"',
    });
  });

  it('matches subresources exactly, and */subresource for any resource', () => {
    const src = new MemorySource(
      [
        cr('logs', [{ verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }]),
        cr('scale', [{ verbs: ['get', 'update'], apiGroups: ['*'], resources: ['*/scale'] }]),
        cr('pods', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]),
        cr('pods-any', [{ verbs: ['get'], apiGroups: [''], resources: ['pods/*'] }]),
      ],
      [],
      [crb('l', 'logs', [U('l')]), crb('s', 'scale', [U('s')]), crb('p', 'pods', [U('p')]), crb('pa', 'pods-any', [U('pa')])],
    );
    const z = new RbacAuthorizer(src);
    assert.equal(z.authorize(res(user('l'), 'get', 'pods', { sub: 'log', ns: 'a', name: 'p1' })).allowed, true);
    assert.equal(z.authorize(res(user('l'), 'get', 'pods', { ns: 'a', name: 'p1' })).allowed, false);
    assert.equal(z.authorize(res(user('l'), 'get', 'pods', { sub: 'exec', ns: 'a', name: 'p1' })).allowed, false);
    assert.equal(z.authorize(res(user('s'), 'update', 'deployments', { group: 'apps', sub: 'scale', ns: 'a', name: 'd' })).allowed, true);
    assert.equal(z.authorize(res(user('s'), 'get', 'replicationcontrollers', { sub: 'scale', ns: 'a', name: 'rc' })).allowed, true);
    assert.equal(z.authorize(res(user('s'), 'get', 'deployments', { group: 'apps', ns: 'a', name: 'd' })).allowed, false);
    assert.equal(z.authorize(res(user('s'), 'get', 'deployments', { group: 'apps', sub: 'status', ns: 'a', name: 'd' })).allowed, false);
    // A rule for the resource does not cover its subresources.
    assert.equal(z.authorize(res(user('p'), 'get', 'pods', { sub: 'log', ns: 'a', name: 'p1' })).allowed, false);
    // `pods/*` is not a wildcard in 1.25's matching: only the literal resource "pods/*".
    assert.equal(z.authorize(res(user('pa'), 'get', 'pods', { sub: 'log', ns: 'a', name: 'p1' })).allowed, false);
  });

  it('restricts by resourceNames, and never allows create or list/watch without a name', () => {
    const src = new MemorySource(
      [cr('named', [{ verbs: ['get', 'update', 'create', 'list', 'watch', 'delete', 'deletecollection'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['cm1', 'cm2'] }])],
      [],
      [crb('n', 'named', [U('n')])],
    );
    const z = new RbacAuthorizer(src);
    const n = user('n');
    assert.equal(z.authorize(res(n, 'get', 'configmaps', { ns: 'a', name: 'cm1' })).allowed, true);
    assert.equal(z.authorize(res(n, 'update', 'configmaps', { ns: 'a', name: 'cm2' })).allowed, true);
    assert.equal(z.authorize(res(n, 'get', 'configmaps', { ns: 'a', name: 'cm3' })).allowed, false);
    assert.equal(z.authorize(res(n, 'create', 'configmaps', { ns: 'a' })).allowed, false, 'create has no name');
    assert.equal(z.authorize(res(n, 'list', 'configmaps', { ns: 'a' })).allowed, false, 'list has no name');
    assert.equal(z.authorize(res(n, 'watch', 'configmaps', { ns: 'a' })).allowed, false, 'watch has no name');
    assert.equal(z.authorize(res(n, 'deletecollection', 'configmaps', { ns: 'a' })).allowed, false);
    // A list or watch narrowed to one object by metadata.name carries the name, and is allowed.
    assert.equal(z.authorize(res(n, 'watch', 'configmaps', { ns: 'a', name: 'cm1' })).allowed, true);
  });

  it('matches nonResourceURLs exactly, by trailing-* prefix, and *', () => {
    const src = new MemorySource(
      [cr('urls', [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/logs/*'] }]), cr('all-urls', [{ verbs: ['*'], nonResourceURLs: ['*'] }])],
      [],
      [crb('u', 'urls', [U('u')]), crb('all', 'all-urls', [U('root')])],
    );
    const z = new RbacAuthorizer(src);
    assert.equal(z.authorize(url(user('u'), 'get', '/healthz')).allowed, true);
    assert.equal(z.authorize(url(user('u'), 'get', '/healthz/etcd')).allowed, false);
    assert.equal(z.authorize(url(user('u'), 'post', '/healthz')).allowed, false);
    assert.equal(z.authorize(url(user('u'), 'get', '/logs/')).allowed, true);
    assert.equal(z.authorize(url(user('u'), 'get', '/logs/kube.log')).allowed, true);
    assert.equal(z.authorize(url(user('u'), 'get', '/logs')).allowed, false);
    assert.equal(z.authorize(url(user('root'), 'delete', '/anything/at/all')).allowed, true);
    // URL rules never allow resource requests, nor resource rules URLs.
    assert.equal(z.authorize(res(user('root'), 'get', 'pods', { ns: 'a' })).allowed, false);
  });
});

describe('RBAC bindings', () => {
  const mk = () =>
    new MemorySource(
      [cr('pod-reader', [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }]), cr('urls', [{ verbs: ['get'], nonResourceURLs: ['/metrics'] }])],
      [nsRole('ns1', 'cm-writer', [{ verbs: ['create'], apiGroups: [''], resources: ['configmaps'] }])],
      [],
      [
        rb('ns1', 'read-pods', 'ClusterRole', 'pod-reader', [U('jane')]),
        rb('ns1', 'write-cms', 'Role', 'cm-writer', [U('jane')]),
        rb('ns2', 'write-cms', 'Role', 'cm-writer', [U('joe')]), // refers to a Role missing in ns2
        rb('ns1', 'urls', 'ClusterRole', 'urls', [U('jane')]),
      ],
    );

  it('grants a RoleBinding (to a Role or a ClusterRole) in its namespace only', () => {
    const z = new RbacAuthorizer(mk());
    const jane = user('jane');
    assert.deepEqual(z.authorize(res(jane, 'list', 'pods', { ns: 'ns1' })), {
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "read-pods/ns1" of ClusterRole "pod-reader" to User "jane"',
    });
    assert.deepEqual(z.authorize(res(jane, 'create', 'configmaps', { ns: 'ns1' })), {
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "write-cms/ns1" of Role "cm-writer" to User "jane"',
    });
    assert.equal(z.authorize(res(jane, 'list', 'pods', { ns: 'ns2' })).allowed, false);
    assert.equal(z.authorize(res(jane, 'list', 'pods')).allowed, false, 'not cluster-wide');
    assert.equal(z.authorize(res(user('joe'), 'create', 'configmaps', { ns: 'ns2' })).allowed, false, "a Role of another namespace is not used");
    // RoleBindings never grant non-resource URLs.
    assert.equal(z.authorize(url(jane, 'get', '/metrics')).allowed, false);
  });

  it('has the reason format of the LocalSubjectAccessReview fixture', () => {
    const path = join(referenceDir, 'create', 'authorization.k8s.io-v1-localsubjectaccessreviews.json');
    const f = JSON.parse(readFileSync(path, 'utf8')) as { response: { body: { status: { reason: string } } } };
    const src = new MemorySource(
      [],
      [nsRole('ref-create', 'pod-reader', [{ verbs: ['get', 'watch', 'list'], apiGroups: [''], resources: ['pods'] }])],
      [],
      [rb('ref-create', 'read-pods', 'Role', 'pod-reader', [U('jane')])],
    );
    const d = new RbacAuthorizer(src).authorize(res(user('jane'), 'list', 'pods', { ns: 'ref-create' }));
    assert.deepEqual(d, { allowed: true, reason: f.response.body.status.reason });
    // The SubjectAccessReview fixture: delete is not granted → allowed false (no reason).
    assert.deepEqual(new RbacAuthorizer(src).authorize(res(user('jane'), 'delete', 'pods', { ns: 'ref-create' })), { allowed: false, reason: '' });
  });

  it('matches ServiceAccount subjects by user name, and the service-account groups', () => {
    const src = new MemorySource(
      [cr('reader', [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }])],
      [],
      [crb('sa-explicit', 'reader', [SA('robot', 'tools')]), crb('all-sas', 'reader', [G('system:serviceaccounts:ci')])],
      [rb('apps', 'sa-default-ns', 'ClusterRole', 'reader', [SA('builder')])],
    );
    const z = new RbacAuthorizer(src);
    const robot = user('system:serviceaccount:tools:robot', 'system:serviceaccounts', 'system:serviceaccounts:tools', 'system:authenticated');
    assert.deepEqual(z.authorize(res(robot, 'get', 'secrets', { ns: 'anywhere', name: 's' })), {
      allowed: true,
      reason: 'RBAC: allowed by ClusterRoleBinding "sa-explicit" of ClusterRole "reader" to ServiceAccount "robot/tools"',
    });
    // Same name, other namespace: no.
    assert.equal(z.authorize(res(user('system:serviceaccount:other:robot', 'system:serviceaccounts:other'), 'get', 'secrets', { ns: 'x', name: 's' })).allowed, false);
    // A ServiceAccount subject of a RoleBinding without a namespace means the binding's namespace.
    const builder = user('system:serviceaccount:apps:builder', 'system:serviceaccounts', 'system:serviceaccounts:apps');
    assert.deepEqual(z.authorize(res(builder, 'get', 'secrets', { ns: 'apps', name: 's' })), {
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "sa-default-ns/apps" of ClusterRole "reader" to ServiceAccount "builder/apps"',
    });
    assert.equal(z.authorize(res(builder, 'get', 'secrets', { ns: 'other', name: 's' })).allowed, false);
    // The group of every service account of a namespace.
    const ciBot = user('system:serviceaccount:ci:bot', 'system:serviceaccounts', 'system:serviceaccounts:ci');
    assert.deepEqual(z.authorize(res(ciBot, 'get', 'secrets', { ns: 'ci', name: 's' })), {
      allowed: true,
      reason: 'RBAC: allowed by ClusterRoleBinding "all-sas" of ClusterRole "reader" to Group "system:serviceaccounts:ci"',
    });
  });

  it('always allows system:masters, with an empty reason', () => {
    const z = new RbacAuthorizer(new MemorySource());
    assert.deepEqual(z.authorize(res(user('admin', 'system:masters'), 'delete', 'nodes', { name: 'n1' })), { allowed: true, reason: '' });
    assert.deepEqual(z.authorize(url(user('admin', 'system:masters'), 'post', '/whatever')), { allowed: true, reason: '' });
    assert.deepEqual(z.authorize(res(user('nobody'), 'get', 'pods', { ns: 'a' })), { allowed: false, reason: '' });
  });

  it('rebuilds its index when the source version changes', () => {
    const src = mk();
    const z = new RbacAuthorizer(src);
    const bob = user('bob');
    assert.equal(z.authorize(res(bob, 'get', 'pods', { ns: 'ns1' })).allowed, false);
    src.crb.push(crb('bob-reads', 'pod-reader', [U('bob')]));
    assert.equal(z.authorize(res(bob, 'get', 'pods', { ns: 'ns1' })).allowed, false, 'same version: cached index');
    src.touch();
    assert.equal(z.authorize(res(bob, 'get', 'pods', { ns: 'ns1' })).allowed, true);
    src.cr[0]!.rules = [{ verbs: ['get'], apiGroups: [''], resources: ['services'] }];
    src.touch();
    assert.equal(z.authorize(res(bob, 'get', 'pods', { ns: 'ns1' })).allowed, false);
    assert.equal(z.authorize(res(bob, 'get', 'services', { ns: 'ns1' })).allowed, true);
  });
});

// ---------------------------------------------------------------------------------------------
// The bootstrap policy
// ---------------------------------------------------------------------------------------------

/** Runs aggregation to a fixed point, as the clusterrole-aggregation controller would. */
function aggregate(roles: Role[]): void {
  for (let changed = true; changed; ) {
    changed = false;
    for (const r of roles) {
      if (!r.aggregationRule) continue;
      const next = aggregatedRules(r, roles);
      if (JSON.stringify(next) !== JSON.stringify(r.rules ?? [])) {
        r.rules = next;
        changed = true;
      }
    }
  }
}

function bootstrapSource(): MemorySource {
  const p = bootstrapPolicy();
  aggregate(p.clusterRoles);
  return new MemorySource(p.clusterRoles, p.roles, p.clusterRoleBindings, p.roleBindings);
}

describe('RBAC bootstrap policy', () => {
  it('has the reference labels, annotations and shapes', () => {
    const p = bootstrapPolicy();
    const names = p.clusterRoles.map(r => r.metadata.name);
    for (const n of [
      'cluster-admin', 'admin', 'edit', 'view', 'system:discovery', 'system:basic-user', 'system:public-info-viewer',
      'system:service-account-issuer-discovery', 'system:monitoring', 'system:node', 'system:node-proxier', 'system:kube-scheduler',
      'system:kube-controller-manager', 'system:auth-delegator', 'system:heapster', 'system:kube-aggregator', 'system:kube-dns',
      'system:persistent-volume-provisioner', 'system:volume-scheduler', 'system:certificates.k8s.io:kubelet-serving-approver',
      'system:controller:namespace-controller', 'system:controller:clusterrole-aggregation-controller', 'system:controller:generic-garbage-collector',
    ])
      assert.ok(names.includes(n), n);
    assert.equal(new Set(names).size, names.length, 'unique names');
    for (const o of [...p.clusterRoles, ...p.clusterRoleBindings, ...p.roles, ...p.roleBindings]) {
      assert.equal(o.metadata.labels?.['kubernetes.io/bootstrapping'], 'rbac-defaults', o.metadata.name);
      assert.equal(o.metadata.annotations?.['rbac.authorization.kubernetes.io/autoupdate'], 'true', o.metadata.name);
    }
    // Every binding refers to a role that exists.
    for (const b of p.clusterRoleBindings) assert.ok(names.includes(b.roleRef.name), b.metadata.name);
    for (const b of p.roleBindings) assert.ok(p.roles.some(r => r.metadata.name === b.roleRef.name && r.metadata.namespace === b.metadata.namespace), b.metadata.name);
    const view = p.clusterRoles.find(r => r.metadata.name === 'view')!;
    assert.deepEqual(view.aggregationRule, { clusterRoleSelectors: [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } }] });
    assert.equal(view.metadata.labels?.['rbac.authorization.k8s.io/aggregate-to-edit'], 'true');
    assert.deepEqual(p.clusterRoleBindings.find(b => b.metadata.name === 'cluster-admin')!.subjects, [{ apiGroup: RBAC, kind: 'Group', name: 'system:masters' }]);
    assert.deepEqual(
      p.roles.map(r => `${r.metadata.namespace}/${r.metadata.name}`).sort(),
      [
        'kube-public/system:controller:bootstrap-signer',
        'kube-system/extension-apiserver-authentication-reader',
        'kube-system/system::leader-locking-kube-controller-manager',
        'kube-system/system::leader-locking-kube-scheduler',
        'kube-system/system:controller:bootstrap-signer',
        'kube-system/system:controller:cloud-provider',
        'kube-system/system:controller:token-cleaner',
      ],
    );
    // Fresh objects each call.
    assert.notEqual(bootstrapPolicy().clusterRoles[0], p.clusterRoles[0]);
  });

  it('lets authenticated users discover, and anonymous users only the public info', () => {
    const z = new RbacAuthorizer(bootstrapSource());
    const jane = authed('jane');
    for (const p of ['/api', '/api/v1', '/apis', '/apis/apps/v1', '/version', '/healthz', '/livez', '/readyz', '/openapi/v2']) assert.equal(z.authorize(url(jane, 'get', p)).allowed, true, p);
    assert.equal(z.authorize(url(jane, 'get', '/metrics')).allowed, false);
    assert.match(z.authorize(url(jane, 'get', '/api')).reason, /^RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"$/);
    assert.equal(z.authorize(res(jane, 'create', 'selfsubjectaccessreviews', { group: 'authorization.k8s.io' })).allowed, true);
    for (const p of ['/version', '/version/', '/healthz', '/livez', '/readyz'])
      assert.deepEqual(z.authorize(url(anonymous, 'get', p)), {
        allowed: true,
        reason: 'RBAC: allowed by ClusterRoleBinding "system:public-info-viewer" of ClusterRole "system:public-info-viewer" to Group "system:unauthenticated"',
      });
    assert.equal(z.authorize(url(anonymous, 'get', '/api')).allowed, false);
    assert.equal(z.authorize(url(anonymous, 'get', '/healthz/etcd')).allowed, false);
    assert.equal(z.authorize(res(anonymous, 'list', 'namespaces')).allowed, false);
    assert.equal(z.authorize(res(jane, 'list', 'namespaces')).allowed, false);
    // Service accounts may read the issuer discovery documents.
    const sa = user('system:serviceaccount:default:default', 'system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated');
    assert.equal(z.authorize(url(sa, 'get', '/openid/v1/jwks')).allowed, true);
    assert.equal(z.authorize(url(jane, 'get', '/openid/v1/jwks')).allowed, false);
  });

  it('gives view, edit and admin (bound in a namespace) their reference powers', () => {
    const src = bootstrapSource();
    src.rb.push(rb('team', 'viewers', 'ClusterRole', 'view', [U('v')]), rb('team', 'editors', 'ClusterRole', 'edit', [U('e')]), rb('team', 'admins', 'ClusterRole', 'admin', [U('a')]));
    src.touch();
    const z = new RbacAuthorizer(src);
    const [v, e, a] = [authed('v'), authed('e'), authed('a')];
    const ns = { ns: 'team' };
    // view
    assert.equal(z.authorize(res(v, 'list', 'pods', ns)).allowed, true);
    assert.equal(z.authorize(res(v, 'get', 'deployments', { ...ns, group: 'apps', name: 'd' })).allowed, true);
    assert.equal(z.authorize(res(v, 'get', 'secrets', { ...ns, name: 's' })).allowed, false, 'view cannot read secrets');
    assert.equal(z.authorize(res(v, 'list', 'secrets', ns)).allowed, false);
    assert.equal(z.authorize(res(v, 'create', 'pods', ns)).allowed, false);
    assert.equal(z.authorize(res(v, 'list', 'pods', { ns: 'elsewhere' })).allowed, false);
    // edit
    assert.equal(z.authorize(res(e, 'get', 'secrets', { ...ns, name: 's' })).allowed, true, 'edit can read secrets');
    assert.equal(z.authorize(res(e, 'create', 'deployments', { ...ns, group: 'apps' })).allowed, true);
    assert.equal(z.authorize(res(e, 'create', 'pods', { ...ns, sub: 'exec', name: 'p' })).allowed, true);
    assert.equal(z.authorize(res(e, 'list', 'pods', ns)).allowed, true, 'edit includes view');
    assert.equal(z.authorize(res(e, 'create', 'roles', { ...ns, group: RBAC })).allowed, false, 'edit cannot create roles');
    assert.equal(z.authorize(res(e, 'create', 'rolebindings', { ...ns, group: RBAC })).allowed, false);
    // admin
    assert.deepEqual(z.authorize(res(a, 'create', 'roles', { ...ns, group: RBAC })), {
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "admins/team" of ClusterRole "admin" to User "a"',
    });
    assert.equal(z.authorize(res(a, 'create', 'rolebindings', { ...ns, group: RBAC })).allowed, true);
    assert.equal(z.authorize(res(a, 'get', 'secrets', { ...ns, name: 's' })).allowed, true, 'admin includes edit');
    assert.equal(z.authorize(res(a, 'create', 'roles', { ns: 'other', group: RBAC })).allowed, false);
    assert.equal(z.authorize(res(a, 'create', 'clusterroles', { group: RBAC })).allowed, false);
  });

  it('aggregates a new ClusterRole labelled aggregate-to-view into view (and so edit and admin)', () => {
    const p = bootstrapPolicy();
    p.clusterRoles.push(cr('widgets-view', [{ verbs: ['get', 'list', 'watch'], apiGroups: ['example.com'], resources: ['widgets'] }], { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' }));
    aggregate(p.clusterRoles);
    const view = p.clusterRoles.find(r => r.metadata.name === 'view')!;
    const edit = p.clusterRoles.find(r => r.metadata.name === 'edit')!;
    const admin = p.clusterRoles.find(r => r.metadata.name === 'admin')!;
    const widgets = { verbs: ['get', 'list', 'watch'], apiGroups: ['example.com'], resources: ['widgets'] };
    assert.ok(view.rules!.some(r => JSON.stringify(r) === JSON.stringify(widgets)));
    assert.ok(edit.rules!.some(r => JSON.stringify(r) === JSON.stringify(widgets)));
    assert.ok(admin.rules!.some(r => JSON.stringify(r) === JSON.stringify(widgets)));
    // Stable order (selector, then role name) and no duplicates.
    const again = aggregatedRules(view, p.clusterRoles);
    assert.deepEqual(again, view.rules);
    assert.equal(new Set(again.map(r => JSON.stringify(r))).size, again.length);
    // A second role with the same rule adds nothing (it sorts first by name, so its copy comes first).
    const withDup = aggregatedRules(view, [...p.clusterRoles, cr('dup', [widgets], { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' })]);
    assert.equal(withDup.length, again.length);
    assert.deepEqual(withDup[0], widgets);
    // The view role's own rules come first from system:aggregate-to-view, then widgets-view (sorted by name).
    const aggToView = p.clusterRoles.find(r => r.metadata.name === 'system:aggregate-to-view')!;
    assert.deepEqual(view.rules!.slice(0, aggToView.rules!.length), aggToView.rules);
    // matchExpressions are honoured.
    const exprRole: Role = { metadata: { name: 'expr' }, aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [{ key: 'tier', operator: 'In', values: ['gold'] }] }] } };
    const rules = aggregatedRules(exprRole, [cr('g', [widgets], { tier: 'gold' }), cr('s', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }], { tier: 'silver' })]);
    assert.deepEqual(rules, [widgets]);
    // The authorizer sees the aggregated rules.
    const src = new MemorySource(p.clusterRoles, p.roles, p.clusterRoleBindings, [...p.roleBindings, rb('t', 'v', 'ClusterRole', 'view', [U('v')])]);
    assert.equal(new RbacAuthorizer(src).authorize(res(user('v'), 'list', 'widgets', { ns: 't', group: 'example.com' })).allowed, true);
  });

  it('reports the rules of a system:masters user as the SelfSubjectRulesReview fixture does', () => {
    const path = join(referenceDir, 'create', 'authorization.k8s.io-v1-selfsubjectrulesreviews.json');
    const f = JSON.parse(readFileSync(path, 'utf8')) as { response: { body: { status: { resourceRules: PolicyRule[]; nonResourceRules: PolicyRule[]; incomplete: boolean } } } };
    const z = new RbacAuthorizer(bootstrapSource());
    const got = z.rulesFor(authed('admin', 'system:masters'), 'ref-create');
    const key = (r: PolicyRule) => JSON.stringify(r);
    // The reference visits bindings in map order: compare as multisets.
    assert.deepEqual(got.resourceRules.map(key).sort(), f.response.body.status.resourceRules.map(key).sort());
    assert.deepEqual(got.nonResourceRules.map(key).sort(), f.response.body.status.nonResourceRules.map(key).sort());
    assert.equal(got.incomplete, false);
  });
});

describe('RBAC rulesFor and escalation', () => {
  const src = () =>
    new MemorySource(
      [
        cr('pod-reader', [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }]),
        cr('scaler', [{ verbs: ['get', 'update'], apiGroups: ['*'], resources: ['*/scale'] }]),
        cr('urls', [{ verbs: ['get'], nonResourceURLs: ['/logs/*'] }]),
        cr('named', [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }]),
      ],
      [nsRole('ns1', 'svc', [{ verbs: ['*'], apiGroups: [''], resources: ['services'] }])],
      [crb('pr', 'pod-reader', [U('u')]), crb('urls', 'urls', [U('u')]), crb('gone', 'no-such-role', [U('u')])],
      [rb('ns1', 's', 'Role', 'svc', [U('u')]), rb('ns1', 'sc', 'ClusterRole', 'scaler', [G('team')]), rb('ns1', 'n', 'ClusterRole', 'named', [U('u')])],
    );

  it('rulesFor lists cluster-wide and namespace rules, split, and flags missing roles', () => {
    const z = new RbacAuthorizer(src());
    const all = z.rulesFor(user('u', 'team'), 'ns1');
    assert.deepEqual(all.resourceRules, [
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] },
      { verbs: ['*'], apiGroups: [''], resources: ['services'] },
      { verbs: ['get', 'update'], apiGroups: ['*'], resources: ['*/scale'] },
      { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] },
    ]);
    assert.deepEqual(all.nonResourceRules, [{ verbs: ['get'], nonResourceURLs: ['/logs/*'] }]);
    assert.equal(all.incomplete, true, 'a binding refers to a missing ClusterRole');
    const other = z.rulesFor(user('u'), 'ns2');
    assert.deepEqual(other.resourceRules, [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }]);
    const none = z.rulesFor(user('nobody'), 'ns1');
    assert.deepEqual(none, { resourceRules: [], nonResourceRules: [], incomplete: false });
  });

  it('uncoveredRules returns the rules the user does not fully hold', () => {
    const z = new RbacAuthorizer(src());
    const u = user('u', 'team');
    assert.deepEqual(uncoveredRules(z, u, 'ns1', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }, { verbs: ['delete'], apiGroups: [''], resources: ['services'] }]), []);
    const tooMuch: PolicyRule[] = [
      { verbs: ['delete'], apiGroups: [''], resources: ['pods'] },
      { verbs: ['get'], apiGroups: ['*'], resources: ['pods'] }, // a wildcard is covered only by a wildcard
      { verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }, // held for name "a" only
    ];
    assert.deepEqual(uncoveredRules(z, u, 'ns1', tooMuch), tooMuch);
    assert.deepEqual(uncoveredRules(z, u, 'ns1', [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }]), []);
    assert.deepEqual(uncoveredRules(z, u, 'ns1', [{ verbs: ['update'], apiGroups: ['apps'], resources: ['deployments/scale'] }]), []);
    // Services are held in ns1 only.
    assert.equal(uncoveredRules(z, u, 'ns2', [{ verbs: ['get'], apiGroups: [''], resources: ['services'] }]).length, 1);
    assert.equal(uncoveredRules(z, u, undefined, [{ verbs: ['get'], apiGroups: [''], resources: ['services'] }]).length, 1);
    // Non-resource URLs: a held prefix covers longer paths and longer prefixes.
    assert.deepEqual(uncoveredRules(z, u, undefined, [{ verbs: ['get'], nonResourceURLs: ['/logs/a', '/logs/sub/*'] }]), []);
    assert.equal(uncoveredRules(z, u, undefined, [{ verbs: ['get'], nonResourceURLs: ['/logs'] }]).length, 1);
    // system:masters covers everything.
    assert.deepEqual(uncoveredRules(z, user('root', 'system:masters'), 'x', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]), []);
  });
});

describe('RBAC performance', () => {
  it('authorizes quickly with 1,000 roles and bindings stored (printed, not asserted tightly)', () => {
    const p = bootstrapPolicy();
    aggregate(p.clusterRoles);
    const s = new MemorySource(p.clusterRoles, p.roles, p.clusterRoleBindings, p.roleBindings);
    for (let i = 0; i < 1000; i++) {
      s.cr.push(cr(`role-${i}`, [{ verbs: ['get', 'list'], apiGroups: [''], resources: [`res${i}`] }, { verbs: ['create'], apiGroups: ['apps'], resources: ['deployments'], resourceNames: [`d${i}`] }]));
      s.r.push(nsRole(`ns${i % 50}`, `nsrole-${i}`, [{ verbs: ['*'], apiGroups: [''], resources: ['configmaps'] }]));
      s.crb.push(crb(`binding-${i}`, `role-${i}`, [U(`user-${i}`), G(`group-${i % 100}`)]));
      s.rb.push(rb(`ns${i % 50}`, `rb-${i}`, i % 2 ? 'Role' : 'ClusterRole', i % 2 ? `nsrole-${i}` : 'edit', [U(`user-${i}`)]));
    }
    s.touch();
    const z = new RbacAuthorizer(s);
    const cases: Attributes[] = [
      res(authed('user-7', 'group-7'), 'get', 'res7', { ns: 'ns7' }), // cluster binding
      res(authed('user-8', 'group-8'), 'get', 'secrets', { ns: 'ns8', name: 'x' }), // edit via RoleBinding
      res(authed('stranger'), 'get', 'pods', { ns: 'ns1' }), // no bindings: denied
      url(authed('user-1'), 'get', '/api/v1'), // discovery
    ];
    const expected = cases.map(c => z.authorize(c).allowed);
    assert.deepEqual(expected, [true, true, false, true]);
    const N = 200_000;
    let allowed = 0;
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < N; i++) if (z.authorize(cases[i & 3]!).allowed) allowed++;
    const ns = Number(process.hrtime.bigint() - t0);
    const perCall = ns / N / 1000;
    console.log(`# rbac authorize: ${Math.round(N / (ns / 1e9)).toLocaleString('en-US')} calls/s, ${perCall.toFixed(2)} µs/call (1,000 roles + 1,000 bindings of each kind, ${allowed} allowed)`);
    assert.ok(perCall < 100, `authorize took ${perCall} µs`);
  });
});
