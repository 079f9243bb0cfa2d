// The RBAC matrix: unprivileged token users (static tokens and a service account's TokenRequest
// token) with Roles and ClusterRoles of various verbs, resources, namespaces and names; every cell
// (user, verb, resource, namespace, name, subresource) sent to capstan and compared with the
// probe's own evaluator (rbac-model.ts) — allowed: anything but 403; denied: a 403 Status with the
// reference's message. Also impersonation, escalate/bind, and path tricks (dot segments, encoded
// slashes, case, trailing and double slashes), each read by the probe's plain request parser.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, isStatus, parsed, type Answer } from './client.js';
import type { Figures } from './figures.js';
import { authorize, forbiddenMessage, impersonatedUser, impersonationChecks, missingLines, type Attrs, type Impersonation, type Policy, type Rule, type User } from './rbac-model.js';
import { startProbeServer } from './server.js';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const NS_A = 'rbac-a';
const NS_B = 'rbac-b';

/** Static token users: name → groups (every token user is also system:authenticated). */
const TOKEN_USERS: Record<string, string[]> = {
  alice: ['team-a'], bob: [], carol: [], dave: ['ops'], erin: [], frank: [], gina: [], nina: [], imp: [], esc: [], esc2: [], esc3: [],
};

const clusterRoles: { name: string; rules: Rule[] }[] = [
  { name: 'probe-pod-admin', rules: [{ apiGroups: [''], resources: ['pods', 'pods/log'], verbs: ['*'] }] },
  { name: 'probe-secret-named', rules: [{ apiGroups: [''], resources: ['secrets'], resourceNames: ['s1'], verbs: ['get', 'update'] }, { nonResourceURLs: ['/healthz/*', '/metrics'], verbs: ['get'] }] },
  { name: 'probe-deploy-scale', rules: [{ apiGroups: ['apps'], resources: ['deployments/scale'], verbs: ['get', 'update'] }, { apiGroups: ['*'], resources: ['*/status'], verbs: ['get'] }] },
  { name: 'probe-sa-events', rules: [{ apiGroups: [''], resources: ['events'], verbs: ['list'] }] },
  { name: 'probe-everything-get', rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['get'] }] },
  {
    name: 'probe-impersonator',
    rules: [
      { apiGroups: [''], resources: ['users'], resourceNames: ['alice'], verbs: ['impersonate'] },
      { apiGroups: [''], resources: ['groups'], resourceNames: ['ops'], verbs: ['impersonate'] },
      { apiGroups: ['authentication.k8s.io'], resources: ['uids'], verbs: ['impersonate'] },
      { apiGroups: ['authentication.k8s.io'], resources: ['userextras/scopes'], verbs: ['impersonate'] },
    ],
  },
];

const rolesA: { name: string; rules: Rule[] }[] = [
  { name: 'cm-reader', rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }] },
  { name: 'cm-named', rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['c1'], verbs: ['get', 'list', 'watch'] }] },
  { name: 'cm-getter', rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] },
  { name: 'rbac-writer', rules: [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: ['create', 'update'] }, { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] },
  { name: 'escalator', rules: [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'], verbs: ['escalate'] }, { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'], resourceNames: ['cm-reader'], verbs: ['bind'] }] },
  { name: 'escalate-named', rules: [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'], resourceNames: ['big'], verbs: ['escalate'] }] },
  { name: 'imp-sa', rules: [{ apiGroups: [''], resources: ['serviceaccounts'], resourceNames: ['robot'], verbs: ['impersonate'] }] },
];

type SubjectSpec = { kind: 'User' | 'Group' | 'ServiceAccount'; name: string; namespace?: string };
const subject = (s: SubjectSpec) => (s.kind === 'ServiceAccount' ? s : { ...s, apiGroup: 'rbac.authorization.k8s.io' });

const clusterBindings: { name: string; role: string; subjects: SubjectSpec[] }[] = [
  { name: 'probe-carol', role: 'probe-secret-named', subjects: [{ kind: 'User', name: 'carol' }] },
  { name: 'probe-ops', role: 'probe-deploy-scale', subjects: [{ kind: 'Group', name: 'ops' }] },
  { name: 'probe-sa-events', role: 'probe-sa-events', subjects: [{ kind: 'Group', name: 'system:serviceaccounts' }] },
  { name: 'probe-imp', role: 'probe-impersonator', subjects: [{ kind: 'User', name: 'imp' }] },
  { name: 'probe-gina', role: 'probe-missing', subjects: [{ kind: 'User', name: 'gina' }] },
];

const roleBindings: { ns: string; name: string; kind: 'Role' | 'ClusterRole'; role: string; subjects: SubjectSpec[] }[] = [
  { ns: NS_A, name: 'alice-cm', kind: 'Role', role: 'cm-reader', subjects: [{ kind: 'User', name: 'alice' }] },
  { ns: NS_B, name: 'bob-pods', kind: 'ClusterRole', role: 'probe-pod-admin', subjects: [{ kind: 'User', name: 'bob' }] },
  { ns: NS_A, name: 'erin-get', kind: 'ClusterRole', role: 'probe-everything-get', subjects: [{ kind: 'User', name: 'erin' }] },
  { ns: NS_A, name: 'robot-cm', kind: 'Role', role: 'cm-reader', subjects: [{ kind: 'ServiceAccount', name: 'robot' }] },
  { ns: NS_A, name: 'imp-sa', kind: 'Role', role: 'imp-sa', subjects: [{ kind: 'User', name: 'imp' }] },
  { ns: NS_A, name: 'esc', kind: 'Role', role: 'rbac-writer', subjects: [{ kind: 'User', name: 'esc' }, { kind: 'User', name: 'esc2' }, { kind: 'User', name: 'esc3' }] },
  { ns: NS_A, name: 'esc2', kind: 'Role', role: 'escalator', subjects: [{ kind: 'User', name: 'esc2' }] },
  { ns: NS_A, name: 'esc3', kind: 'Role', role: 'escalate-named', subjects: [{ kind: 'User', name: 'esc3' }] },
  { ns: NS_A, name: 'nina', kind: 'Role', role: 'cm-named', subjects: [{ kind: 'User', name: 'nina' }] },
  { ns: NS_A, name: 'gina', kind: 'Role', role: 'missing-role', subjects: [{ kind: 'User', name: 'gina' }] },
];

// ---------------------------------------------------------------------------------------------
// The probe's plain reading of a request: what the reference's request info makes of it

/** Attributes of a request as the reference reads them: the path decoded, trimmed of slashes, split. */
export function attributesOf(user: User, method: string, target: string): Attrs {
  const [rawPath, query = ''] = target.split('?') as [string, string?];
  const path = decodeURIComponent(rawPath);
  const params = new URLSearchParams(query);
  const parts = path.replace(/^\/+|\/+$/g, '').split('/');
  const nonResource: Attrs = { user, verb: method.toLowerCase(), resourceRequest: false, path };
  let group: string;
  let rest: string[];
  if (parts[0] === 'api' && parts.length >= 3) [group, rest] = ['', parts.slice(2)];
  else if (parts[0] === 'apis' && parts.length >= 4) [group, rest] = [parts[1]!, parts.slice(3)];
  else return nonResource;
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length > 1) {
    namespace = rest[1];
    if (rest.length > 2 && rest[2] !== 'status' && rest[2] !== 'finalize') rest = rest.slice(2);
  }
  const [resource = '', name, subresource] = rest;
  const verbs: Record<string, string> = { GET: 'get', POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };
  let verb = verbs[method] ?? method.toLowerCase();
  let listedName: string | undefined;
  if (!name) {
    if (method === 'GET') {
      verb = ['1', 'true'].includes(params.get('watch') ?? '') ? 'watch' : 'list';
      // A field selector requiring one metadata.name names the request (when the name could be a path segment).
      for (const term of (params.get('fieldSelector') ?? '').split(',')) {
        const m = /^metadata\.name==?(.*)$/.exec(term);
        if (m && m[1] !== '.' && m[1] !== '..' && !/[/%]/.test(m[1]!)) listedName = m[1];
      }
    }
    if (method === 'DELETE') verb = 'deletecollection';
  }
  const objectName = name || listedName;
  return { user, verb, resourceRequest: true, apiGroup: group, resource, ...(namespace ? { namespace } : {}), ...(objectName ? { name: objectName } : {}), ...(subresource ? { subresource } : {}) };
}

// ---------------------------------------------------------------------------------------------
// Cells

interface Cell {
  label: string;
  token: string | undefined;
  method: string;
  path: string;
  body?: object;
  headers?: Record<string, string>;
  /** The expected decision: allowed, or the 403 message. */
  expect: { allowed: true } | { allowed: false; message: string };
}

/** One resource request as `user`, expected as the evaluator decides. */
function requestCell(policy: Policy, user: User, token: string | undefined, label: string, method: string, path: string, body?: object): Cell {
  const a = attributesOf(user, method, path);
  const d = authorize(policy, a);
  return { label, token, method, path, ...(body ? { body } : {}), expect: d.allowed ? { allowed: true } : { allowed: false, message: forbiddenMessage(a, d.reason) } };
}

/** A request made as `imp.user` by `requester`: each impersonation check, then the request as the impersonated user. */
function impersonationCell(policy: Policy, requester: User, token: string, imp: Impersonation, method: string, path: string): Cell {
  const headers: Record<string, string> = { 'Impersonate-User': imp.user };
  if (imp.groups?.length) headers['Impersonate-Group'] = imp.groups.join(',');
  if (imp.uid !== undefined) headers['Impersonate-Uid'] = imp.uid;
  for (const [k, v] of Object.entries(imp.extra ?? {})) headers[`Impersonate-Extra-${k}`] = v.join(',');
  const label = `${requester.name} as ${JSON.stringify(imp)}: ${method} ${path}`;
  for (const check of impersonationChecks(requester, imp)) {
    const d = authorize(policy, check);
    if (!d.allowed) return { label, token, method, path, headers, expect: { allowed: false, message: forbiddenMessage(check, d.reason) } };
  }
  return { ...requestCell(policy, impersonatedUser(imp), token, label, method, path), headers };
}

/** A Role or RoleBinding written in NS_A by `user`: the request's own authorization, then the escalation check. */
function escalationCell(policy: Policy, user: User, token: string, method: 'POST' | 'PUT', object: { kind: 'Role'; name: string; rules: Rule[] } | { kind: 'RoleBinding'; name: string; roleKind: 'Role' | 'ClusterRole'; role: string }): Cell {
  const resource = object.kind === 'Role' ? 'roles' : 'rolebindings';
  const path = `${RBAC}/namespaces/${NS_A}/${resource}${method === 'PUT' ? `/${object.name}` : ''}?dryRun=All`;
  const body =
    object.kind === 'Role'
      ? { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: object.name, namespace: NS_A }, rules: object.rules }
      : { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: object.name, namespace: NS_A }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: object.roleKind, name: object.role }, subjects: [{ kind: 'User', name: 'someone', apiGroup: 'rbac.authorization.k8s.io' }] };
  const label = `${user.name} ${method} ${object.kind} ${object.name}${object.kind === 'RoleBinding' ? ` → ${object.roleKind} ${object.role}` : ''}`;
  const own = requestCell(policy, user, token, label, method, path, body);
  if (!own.expect.allowed) return own;
  const pathName = method === 'PUT' ? object.name : undefined;
  let rules: Rule[];
  if (object.kind === 'Role') {
    const escalate = authorize(policy, { user, verb: 'escalate', resourceRequest: true, apiGroup: 'rbac.authorization.k8s.io', resource: 'roles', namespace: NS_A, ...(pathName ? { name: pathName } : {}) });
    if (escalate.allowed) return own;
    rules = object.rules;
  } else {
    const bind = authorize(policy, { user, verb: 'bind', resourceRequest: true, apiGroup: 'rbac.authorization.k8s.io', resource: object.roleKind === 'Role' ? 'roles' : 'clusterroles', namespace: NS_A, name: object.role });
    if (bind.allowed) return own;
    const role = object.roleKind === 'Role' ? policy.roles.find((r) => r.metadata.namespace === NS_A && r.metadata.name === object.role) : policy.clusterRoles.find((r) => r.metadata.name === object.role);
    rules = role?.rules ?? [];
  }
  const lines = missingLines(policy, user, NS_A, rules);
  if (lines.length === 0) return own;
  const groups = user.groups.map((g) => JSON.stringify(g)).join(' ');
  return { ...own, expect: { allowed: false, message: `${resource}.rbac.authorization.k8s.io "${object.name}" is forbidden: user "${user.name}" (groups=[${groups}]) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}` } };
}

function cells(policy: Policy, tokens: Record<string, string>, users: Record<string, User>): Cell[] {
  const out: Cell[] = [];
  const named = [
    { base: `/api/v1/namespaces/{ns}/configmaps`, name: 'c1', subs: [] as string[] },
    { base: `/api/v1/namespaces/{ns}/secrets`, name: 's1', subs: [] },
    { base: `/api/v1/namespaces/{ns}/secrets`, name: 's2', subs: [] },
    { base: `/api/v1/namespaces/{ns}/pods`, name: 'p1', subs: ['log', 'status'] },
    { base: `/apis/apps/v1/namespaces/{ns}/deployments`, name: 'd1', subs: ['scale', 'status'] },
    { base: `/api/v1/namespaces/{ns}/events`, name: 'e1', subs: [] },
  ];
  const patch = { metadata: { labels: { probe: 'rbac' } } };
  for (const userName of ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'gina', 'nina', 'robot', 'anonymous']) {
    const user = users[userName]!;
    const token = tokens[userName];
    for (const ns of [NS_A, NS_B]) {
      for (const t of named) {
        const collection = t.base.replace('{ns}', ns);
        const one = `${collection}/${t.name}`;
        out.push(requestCell(policy, user, token, `${userName} get ${one}`, 'GET', one));
        out.push(requestCell(policy, user, token, `${userName} update ${one}`, 'PUT', `${one}?dryRun=All`, {}));
        out.push(requestCell(policy, user, token, `${userName} patch ${one}`, 'PATCH', `${one}?dryRun=All`, patch));
        out.push(requestCell(policy, user, token, `${userName} delete ${one}`, 'DELETE', `${one}?dryRun=All`));
        if (t.name === 's2') continue;
        out.push(requestCell(policy, user, token, `${userName} list ${collection}`, 'GET', collection));
        out.push(requestCell(policy, user, token, `${userName} watch ${collection}`, 'GET', `${collection}?watch=1&timeoutSeconds=1`));
        out.push(requestCell(policy, user, token, `${userName} create ${collection}`, 'POST', `${collection}?dryRun=All`, {}));
        out.push(requestCell(policy, user, token, `${userName} deletecollection ${collection}`, 'DELETE', `${collection}?dryRun=All`));
        for (const sub of t.subs) {
          out.push(requestCell(policy, user, token, `${userName} get ${one}/${sub}`, 'GET', `${one}/${sub}`));
          if (sub !== 'log') out.push(requestCell(policy, user, token, `${userName} update ${one}/${sub}`, 'PUT', `${one}/${sub}?dryRun=All`, {}));
        }
      }
      out.push(requestCell(policy, user, token, `${userName} get namespace ${ns}`, 'GET', `/api/v1/namespaces/${ns}`));
    }
    out.push(requestCell(policy, user, token, `${userName} list configmaps everywhere`, 'GET', '/api/v1/configmaps'));
    out.push(requestCell(policy, user, token, `${userName} get node n1`, 'GET', '/api/v1/nodes/n1'));
    out.push(requestCell(policy, user, token, `${userName} list clusterroles`, 'GET', `${RBAC}/clusterroles`));
    for (const p of ['/healthz', '/healthz/ping', '/metrics', '/api', '/version', '/logs', '/openapi/v2', '/readyz/']) out.push(requestCell(policy, user, token, `${userName} get ${p}`, 'GET', p));
  }
  // A list or watch of one object by field selector is authorized with its name (resourceNames rules)
  for (const who of ['nina', 'alice', 'carol']) {
    const u = users[who]!;
    const t = tokens[who]!;
    for (const selector of ['metadata.name%3Dc1', 'metadata.name%3D%3Dc1', 'metadata.name%3Dc2', 'metadata.name!%3Dc1', 'metadata.namespace%3Drbac-a,metadata.name%3Dc1', 'metadata.name%3D..', 'metadata.name%3D']) {
      for (const ns of [NS_A, NS_B]) {
        out.push(requestCell(policy, u, t, `${who} list configmaps in ${ns} with ${selector}`, 'GET', `/api/v1/namespaces/${ns}/configmaps?fieldSelector=${selector}`));
        out.push(requestCell(policy, u, t, `${who} watch configmaps in ${ns} with ${selector}`, 'GET', `/api/v1/namespaces/${ns}/configmaps?fieldSelector=${selector}&watch=1&timeoutSeconds=1`));
      }
    }
    out.push(requestCell(policy, u, t, `${who} list secrets with metadata.name=s1`, 'GET', `/api/v1/namespaces/${NS_A}/secrets?fieldSelector=metadata.name%3Ds1`));
  }
  // Impersonation
  const imp = users['imp']!;
  const impT = tokens['imp']!;
  const sa = `system:serviceaccount:${NS_A}:robot`;
  const cmA = `/api/v1/namespaces/${NS_A}/configmaps`;
  const eventsA = `/api/v1/namespaces/${NS_A}/events`;
  const scale = `/apis/apps/v1/namespaces/${NS_A}/deployments/d1/scale`;
  const impersonations: [User, string, Impersonation, string][] = [
    [imp, impT, { user: 'alice' }, cmA],
    [imp, impT, { user: 'alice' }, scale],
    [imp, impT, { user: 'bob' }, cmA],
    [imp, impT, { user: 'alice', groups: ['ops'] }, scale],
    [imp, impT, { user: 'alice', groups: ['ops'] }, cmA],
    [imp, impT, { user: 'alice', groups: ['admins'] }, cmA],
    [imp, impT, { user: 'alice', groups: ['system:masters'] }, cmA],
    [imp, impT, { user: sa }, cmA],
    [imp, impT, { user: sa }, eventsA],
    [imp, impT, { user: sa, groups: ['ops'] }, eventsA],
    [imp, impT, { user: sa, groups: ['ops'] }, scale],
    [imp, impT, { user: `system:serviceaccount:${NS_B}:robot` }, cmA],
    [imp, impT, { user: `system:serviceaccount:RBAC-A:robot` }, cmA],
    [imp, impT, { user: `system:serviceaccount:${NS_A}:robot:extra` }, cmA],
    [imp, impT, { user: 'alice', uid: '1234' }, cmA],
    [imp, impT, { user: 'alice', extra: { scopes: ['view'] } }, cmA],
    [imp, impT, { user: 'alice', extra: { other: ['x'] } }, cmA],
    [imp, impT, { user: 'system:anonymous' }, '/healthz'],
    [users['alice']!, tokens['alice']!, { user: 'bob' }, cmA],
    [users['dave']!, tokens['dave']!, { user: 'alice', groups: ['ops'] }, cmA],
  ];
  for (const [requester, token, i, path] of impersonations) out.push(impersonationCell(policy, requester, token, i, 'GET', path));
  // Escalate and bind
  const pods: Rule = { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] };
  const cmGet: Rule = { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] };
  const cmRead: Rule = { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] };
  const named1: Rule = { apiGroups: [''], resources: ['secrets'], resourceNames: ['x', 'y'], verbs: ['get'] };
  for (const name of ['esc', 'esc2', 'esc3']) {
    const u = users[name]!;
    const t = tokens[name]!;
    out.push(escalationCell(policy, u, t, 'POST', { kind: 'Role', name: 'small', rules: [cmGet] }));
    out.push(escalationCell(policy, u, t, 'POST', { kind: 'Role', name: 'big', rules: [cmGet, pods] }));
    out.push(escalationCell(policy, u, t, 'POST', { kind: 'Role', name: 'reader', rules: [cmRead] }));
    out.push(escalationCell(policy, u, t, 'POST', { kind: 'Role', name: 'names', rules: [named1, { nonResourceURLs: ['/x'], verbs: ['get'] }] }));
    out.push(escalationCell(policy, u, t, 'PUT', { kind: 'Role', name: 'big', rules: [cmGet, pods] }));
    out.push(escalationCell(policy, u, t, 'PUT', { kind: 'Role', name: 'other', rules: [cmGet, pods] }));
    out.push(escalationCell(policy, u, t, 'POST', { kind: 'RoleBinding', name: 'b-getter', roleKind: 'Role', role: 'cm-getter' }));
    out.push(escalationCell(policy, u, t, 'POST', { kind: 'RoleBinding', name: 'b-reader', roleKind: 'Role', role: 'cm-reader' }));
    out.push(escalationCell(policy, u, t, 'POST', { kind: 'RoleBinding', name: 'b-pods', roleKind: 'ClusterRole', role: 'probe-pod-admin' }));
    out.push(escalationCell(policy, u, t, 'POST', { kind: 'RoleBinding', name: 'b-missing', roleKind: 'Role', role: 'no-such-role' }));
  }
  // Path tricks, as alice (configmaps in rbac-a only) and erin (get anything in rbac-a)
  for (const who of ['alice', 'erin']) {
    const u = users[who]!;
    const t = tokens[who]!;
    for (const p of [
      `/api/v1/namespaces/${NS_B}/../${NS_A}/configmaps`,
      `/api/v1/namespaces/${NS_A}/../${NS_B}/configmaps`,
      `/api/v1/namespaces/%2e%2e/configmaps`,
      `/api/v1/namespaces/${NS_A}/configmaps/..`,
      `/api/v1/namespaces/${NS_A}/configmaps/.`,
      `/api/v1/namespaces/${NS_A}%2Fconfigmaps`,
      `/api/v1/namespaces/${NS_B}%2F..%2F${NS_A}/configmaps`,
      `/api/v1/namespaces/${NS_A}/configmaps%2Fc1`,
      `/API/v1/namespaces/${NS_A}/configmaps`,
      `/api/v1/namespaces/${NS_A.toUpperCase()}/configmaps`,
      `/api/v1/namespaces/${NS_A}/ConfigMaps`,
      `/api/v1/namespaces/${NS_A}/configmaps/`,
      `/api/v1/namespaces/${NS_A}/configmaps//`,
      `/api/v1//namespaces/${NS_A}/configmaps`,
      `//api/v1/namespaces/${NS_A}/configmaps`,
      `/api/v1/namespaces//configmaps`,
      `/api/v1/namespaces/${NS_A}/configmaps/c1/`,
      `/api/v1/namespaces/${NS_A}/./configmaps`,
      `/api/v1/namespaces/${NS_B}/configmaps/c1/..%2F..%2F..%2F${NS_A}%2Fconfigmaps%2Fc1`,
      `/api/./v1/namespaces/${NS_A}/configmaps`,
    ]) out.push(requestCell(policy, u, t, `${who} path ${p}`, 'GET', p));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Running the matrix

async function setUp(admin: Client, dir: string): Promise<void> {
  const must = async (method: string, path: string, body: object) => {
    const a = await admin.request(method, path, { body });
    if (a.status >= 300) throw new Error(`rbac setup ${method} ${path}: ${a.status} ${a.body.toString().slice(0, 300)}`);
  };
  for (const ns of [NS_A, NS_B]) await must('POST', '/api/v1/namespaces', { metadata: { name: ns } });
  for (const r of clusterRoles) await must('POST', `${RBAC}/clusterroles`, { metadata: { name: r.name }, rules: r.rules });
  for (const r of rolesA) await must('POST', `${RBAC}/namespaces/${NS_A}/roles`, { metadata: { name: r.name }, rules: r.rules });
  await must('POST', `${RBAC}/namespaces/${NS_A}/roles`, { metadata: { name: 'big' }, rules: [] });
  await must('POST', `${RBAC}/namespaces/${NS_A}/roles`, { metadata: { name: 'other' }, rules: [] });
  for (const b of clusterBindings) await must('POST', `${RBAC}/clusterrolebindings`, { metadata: { name: b.name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: b.role }, subjects: b.subjects.map(subject) });
  for (const b of roleBindings) await must('POST', `${RBAC}/namespaces/${b.ns}/rolebindings`, { metadata: { name: b.name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: b.kind, name: b.role }, subjects: b.subjects.map(subject) });
  await must('POST', `/api/v1/namespaces/${NS_A}/serviceaccounts`, { metadata: { name: 'robot' } });
  for (const ns of [NS_A, NS_B]) {
    await must('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'c1' }, data: { a: '1' } });
    await must('POST', `/api/v1/namespaces/${ns}/secrets`, { metadata: { name: 's1' }, stringData: { a: '1' } });
  }
  void dir;
}

async function policyOf(admin: Client): Promise<Policy> {
  const items = async <T>(path: string) => ((parsed(await admin.request('GET', path)) as { items: T[] }).items);
  return {
    clusterRoles: await items(`${RBAC}/clusterroles`),
    roles: await items(`${RBAC}/roles`),
    clusterRoleBindings: await items(`${RBAC}/clusterrolebindings`),
    roleBindings: await items(`${RBAC}/rolebindings`),
  };
}

function verdict(cell: Cell, a: Answer): string | undefined {
  if (cell.expect.allowed) return a.status === 403 ? `expected allowed, got 403 ${a.body.toString().slice(0, 300)}` : a.status <= 0 ? `no answer: ${a.error}` : undefined;
  if (a.status !== 403) return `expected 403 "${cell.expect.message}", got ${a.status} ${a.body.toString().slice(0, 200)}`;
  if (!isStatus(a)) return `403 without a Status: ${a.body.toString().slice(0, 200)}`;
  const message = (parsed(a) as { message?: string }).message;
  return message === cell.expect.message ? undefined : `403 message\n      got:      ${JSON.stringify(message)}\n      expected: ${JSON.stringify(cell.expect.message)}`;
}

export async function rbacMatrix(dir: string, figures: Figures): Promise<{ cells: number; wrong: string[] }> {
  const tokenFile = join(dir, 'tokens.csv');
  writeFileSync(tokenFile, Object.entries(TOKEN_USERS).map(([name, groups]) => `token-${name},${name},uid-${name}${groups.length ? `,"${groups.join(',')}"` : ''}`).join('\n') + '\n', { mode: 0o600 });
  const server = await startProbeServer(join(dir, 'data'), ['--token-auth-file', tokenFile]);
  const wrong: string[] = [];
  let total = 0;
  try {
    const admin = new Client(server.url, server.admin);
    await setUp(admin, dir);
    const tokenRequest = parsed(await admin.request('POST', `/api/v1/namespaces/${NS_A}/serviceaccounts/robot/token`, { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: [] } } })) as { status?: { token?: string } };
    const tokens: Record<string, string> = Object.fromEntries(Object.keys(TOKEN_USERS).map((n) => [n, `token-${n}`]));
    tokens['robot'] = tokenRequest.status?.token ?? 'no-token';
    const users: Record<string, User> = Object.fromEntries(Object.entries(TOKEN_USERS).map(([n, g]) => [n, { name: n, groups: [...g, 'system:authenticated'] }]));
    users['robot'] = { name: `system:serviceaccount:${NS_A}:robot`, groups: ['system:serviceaccounts', `system:serviceaccounts:${NS_A}`, 'system:authenticated'] };
    users['anonymous'] = { name: 'system:anonymous', groups: ['system:unauthenticated'] };
    const policy = await policyOf(admin);
    const clients = new Map<string, Client>();
    const clientFor = (token: string | undefined) => {
      const key = token ?? '';
      let c = clients.get(key);
      if (!c) clients.set(key, (c = new Client(server.url, { ca: server.admin.ca }, token)));
      return c;
    };
    const all = cells(policy, tokens, users);
    total = all.length;
    for (const cell of all) {
      const a = await clientFor(cell.token).request(cell.method, cell.path, { ...(cell.body ? { body: cell.body } : {}), ...(cell.headers ? { headers: cell.headers } : {}), timeoutMs: 10_000 });
      const problem = verdict(cell, a);
      if (problem) wrong.push(`${cell.label}: ${problem}`);
    }
    for (const c of clients.values()) c.close();
    admin.close();
  } finally {
    await server.stop();
  }
  figures.note('cells', String(total));
  figures.zero('wrong cells', wrong.length);
  wrong.slice(0, 10).forEach((w, i) => figures.note(`wrong cell ${i + 1}`, w));
  return { cells: total, wrong };
}
