// The probe's own RBAC evaluator, written plainly from the reference's documented behaviour
// (kube-apiserver 1.25) and independent of src/auth: which rules a user holds, whether they allow
// a request, what a denial says, what impersonation makes of a user, and what an escalation lacks.

export interface Rule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface Subject {
  kind: string;
  name: string;
  namespace?: string;
}

export interface Binding {
  metadata: { name: string; namespace?: string };
  roleRef: { kind: string; name: string };
  subjects?: Subject[];
}

export interface RoleObject {
  metadata: { name: string; namespace?: string };
  rules?: Rule[] | null;
}

export interface Policy {
  clusterRoles: RoleObject[];
  roles: RoleObject[];
  clusterRoleBindings: Binding[];
  roleBindings: Binding[];
}

export interface User {
  name: string;
  groups: string[];
}

/** What authorization is asked: a resource request, or a path. */
export interface Attrs {
  user: User;
  verb: string;
  resourceRequest: boolean;
  apiGroup?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  path?: string;
}

const has = (list: string[] | undefined, value: string) => (list ?? []).includes(value);

function ruleAllows(rule: Rule, a: Attrs): boolean {
  if (!has(rule.verbs, '*') && !has(rule.verbs, a.verb)) return false;
  if (!a.resourceRequest) {
    const path = a.path ?? '';
    return (rule.nonResourceURLs ?? []).some((u) => u === '*' || u === path || (u.endsWith('*') && path.startsWith(u.replace(/\*+$/, ''))));
  }
  if (!has(rule.apiGroups, '*') && !has(rule.apiGroups, a.apiGroup ?? '')) return false;
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource ?? '';
  const resources = rule.resources ?? [];
  if (!resources.includes('*') && !resources.includes(combined) && !(a.subresource && resources.includes(`*/${a.subresource}`))) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(a.name ?? '');
}

function applies(subject: Subject, user: User, bindingNamespace: string): boolean {
  if (subject.kind === 'User') return subject.name === user.name;
  if (subject.kind === 'Group') return user.groups.includes(subject.name);
  if (subject.kind === 'ServiceAccount') {
    const ns = subject.namespace || bindingNamespace;
    return ns !== '' && user.name === `system:serviceaccount:${ns}:${subject.name}`;
  }
  return false;
}

/** The rules of each binding that applies to the user (cluster-wide, then in `namespace`), with an error for each missing role. */
function visit(policy: Policy, user: User, namespace: string): { rules: Rule[]; errors: string[] }[] {
  const out: { rules: Rule[]; errors: string[] }[] = [];
  const clusterRole = (name: string) => policy.clusterRoles.find((r) => r.metadata.name === name);
  for (const b of policy.clusterRoleBindings) {
    if (!(b.subjects ?? []).some((s) => applies(s, user, ''))) continue;
    const role = clusterRole(b.roleRef.name);
    out.push(role ? { rules: role.rules ?? [], errors: [] } : { rules: [], errors: [`clusterrole.rbac.authorization.k8s.io "${b.roleRef.name}" not found`] });
  }
  if (namespace) {
    for (const b of policy.roleBindings) {
      if (b.metadata.namespace !== namespace) continue;
      if (!(b.subjects ?? []).some((s) => applies(s, user, namespace))) continue;
      const role = b.roleRef.kind === 'ClusterRole' ? clusterRole(b.roleRef.name) : policy.roles.find((r) => r.metadata.namespace === namespace && r.metadata.name === b.roleRef.name);
      const kind = b.roleRef.kind === 'ClusterRole' ? 'clusterrole' : 'role';
      out.push(role ? { rules: role.rules ?? [], errors: [] } : { rules: [], errors: [`${kind}.rbac.authorization.k8s.io "${b.roleRef.name}" not found`] });
    }
  }
  return out;
}

export function authorize(policy: Policy, a: Attrs): { allowed: boolean; reason: string } {
  if (a.user.groups.includes('system:masters')) return { allowed: true, reason: '' };
  const errors: string[] = [];
  for (const v of visit(policy, a.user, a.resourceRequest ? a.namespace ?? '' : '')) {
    if (v.rules.some((r) => ruleAllows(r, a))) return { allowed: true, reason: '' };
    errors.push(...v.errors);
  }
  return { allowed: false, reason: errors.length === 0 ? '' : `RBAC: ${errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`}` };
}

/** The 403 message the reference writes for a denied request. */
export function forbiddenMessage(a: Attrs, reason: string): string {
  const tail = reason ? `: ${reason}` : '';
  if (!a.resourceRequest) return `forbidden: User "${a.user.name}" cannot ${a.verb} path "${a.path}"${tail}`;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const scope = a.namespace ? `in the namespace "${a.namespace}"` : 'at the cluster scope';
  const why = `User "${a.user.name}" cannot ${a.verb} resource "${resource}" in API group "${a.apiGroup ?? ''}" ${scope}${tail}`;
  const qualified = a.apiGroup ? `${a.resource}.${a.apiGroup}` : a.resource ?? '';
  if (!qualified) return `forbidden: ${why}`;
  return a.name ? `${qualified} "${a.name}" is forbidden: ${why}` : `${qualified} is forbidden: ${why}`;
}

// ---------------------------------------------------------------------------------------------
// Impersonation

export interface Impersonation {
  user: string;
  groups?: string[];
  uid?: string;
  /** Keys as sent in the header name (lower-cased by the server). */
  extra?: Record<string, string[]>;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** `system:serviceaccount:<ns>:<name>` with a valid namespace and name; anything else is a plain user. */
function splitServiceAccount(name: string): { namespace: string; name: string } | undefined {
  if (!name.startsWith('system:serviceaccount:')) return undefined;
  const parts = name.slice('system:serviceaccount:'.length).split(':');
  if (parts.length !== 2) return undefined;
  const [ns, sa] = parts as [string, string];
  if (ns.length > 63 || !DNS_LABEL.test(ns) || sa.length > 253 || !DNS_SUBDOMAIN.test(sa)) return undefined;
  return { namespace: ns, name: sa };
}

/** The checks an impersonation needs (user or service account, groups, extras, uid), in order. */
export function impersonationChecks(requester: User, imp: Impersonation): Attrs[] {
  const checks: Attrs[] = [];
  const sa = splitServiceAccount(imp.user);
  const base = { user: requester, verb: 'impersonate', resourceRequest: true };
  checks.push(sa ? { ...base, apiGroup: '', resource: 'serviceaccounts', namespace: sa.namespace, name: sa.name } : { ...base, apiGroup: '', resource: 'users', name: imp.user });
  for (const g of imp.groups ?? []) checks.push({ ...base, apiGroup: '', resource: 'groups', name: g });
  for (const [key, values] of Object.entries(imp.extra ?? {})) for (const v of values) checks.push({ ...base, apiGroup: 'authentication.k8s.io', resource: 'userextras', subresource: key.toLowerCase(), name: v });
  if (imp.uid !== undefined) checks.push({ ...base, apiGroup: 'authentication.k8s.io', resource: 'uids', name: imp.uid });
  return checks;
}

/** The user an allowed impersonation acts as. */
export function impersonatedUser(imp: Impersonation): User {
  const sa = splitServiceAccount(imp.user);
  let groups = [...(imp.groups ?? [])];
  if (sa && groups.length === 0) groups = ['system:serviceaccounts', `system:serviceaccounts:${sa.namespace}`];
  if (imp.user !== 'system:anonymous') {
    if (!groups.includes('system:authenticated') && !groups.includes('system:unauthenticated')) groups.push('system:authenticated');
  } else if (!groups.includes('system:unauthenticated')) groups.push('system:unauthenticated');
  return { name: imp.user, groups };
}

// ---------------------------------------------------------------------------------------------
// Escalation: what of `rules` the user does not hold, as the reference lists it

function partCovered(owner: Rule, part: Required<Pick<Rule, 'verbs'>> & Rule): boolean {
  if (!has(owner.verbs, '*') && !has(owner.verbs, part.verbs[0]!)) return false;
  if (part.nonResourceURLs) {
    const url = part.nonResourceURLs[0]!;
    return (owner.nonResourceURLs ?? []).some((o) => o === url || (o.endsWith('*') && url.startsWith(o.replace(/\*+$/, ''))));
  }
  if (!has(owner.apiGroups, '*') && !has(owner.apiGroups, part.apiGroups![0]!)) return false;
  const resource = part.resources![0]!;
  const owned = owner.resources ?? [];
  if (!owned.includes('*') && !owned.includes(resource)) {
    const slash = resource.indexOf('/');
    if (slash < 0 || !owned.includes(`*/${resource.slice(slash + 1)}`)) return false;
  }
  const names = owner.resourceNames ?? [];
  if (names.length === 0) return true;
  return part.resourceNames !== undefined && names.includes(part.resourceNames[0]!);
}

function compact(r: Rule): string {
  const q = (xs: string[]) => `[${xs.map((x) => JSON.stringify(x)).join(' ')}]`;
  const parts: string[] = [];
  if (r.apiGroups?.length) parts.push(`APIGroups:${q(r.apiGroups)}`);
  if (r.resources?.length) parts.push(`Resources:${q(r.resources)}`);
  if (r.nonResourceURLs?.length) parts.push(`NonResourceURLs:${q(r.nonResourceURLs)}`);
  if (r.resourceNames?.length) parts.push(`ResourceNames:${q(r.resourceNames)}`);
  if (r.verbs.length) parts.push(`Verbs:${q(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}

/** The lines of the reference's "not currently held" list (empty: nothing is missing). */
export function missingLines(policy: Policy, user: User, namespace: string, rules: Rule[]): string[] {
  if (user.groups.includes('system:masters')) return [];
  const held = visit(policy, user, namespace).flatMap((v) => v.rules);
  const missing: Rule[] = [];
  for (const rule of rules) {
    const parts: Rule[] = [];
    for (const g of rule.apiGroups ?? []) for (const res of rule.resources ?? []) for (const verb of rule.verbs) {
      if (rule.resourceNames?.length) for (const n of rule.resourceNames) parts.push({ verbs: [verb], apiGroups: [g], resources: [res], resourceNames: [n] });
      else parts.push({ verbs: [verb], apiGroups: [g], resources: [res] });
    }
    for (const u of rule.nonResourceURLs ?? []) for (const verb of rule.verbs) parts.push({ verbs: [verb], nonResourceURLs: [u] });
    for (const p of parts) if (!held.some((h) => partCovered(h, p as Required<Pick<Rule, 'verbs'>> & Rule))) missing.push(p);
  }
  // Parts of one group, resource and name are listed as one rule with their verbs.
  const byKey = new Map<string, Rule>();
  const lines: string[] = [];
  for (const p of missing) {
    if (p.nonResourceURLs) lines.push(compact(p));
    else {
      const key = `${p.apiGroups![0]}|${p.resources![0]}|${p.resourceNames?.[0] ?? ''}|${p.resourceNames ? 1 : 0}`;
      const seen = byKey.get(key);
      if (seen) seen.verbs.push(p.verbs[0]!);
      else byKey.set(key, { ...p, verbs: [...p.verbs] });
    }
  }
  for (const r of byKey.values()) lines.push(compact(r));
  return [...new Set(lines)].sort();
}
