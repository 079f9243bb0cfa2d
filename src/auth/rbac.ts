// RBAC authorization, as the reference's RBAC authorizer decides (kube-apiserver 1.25), written
// around an index: bindings are grouped by subject (user name, group, service-account user name)
// with their role's rules compiled once, and the index is rebuilt only when the source's
// version() changes. An authorize call is then a few map lookups plus the matching of the rules
// actually granted to this user.
//
// Matching, as the reference's RBAC documents and behaves:
// - verbs, apiGroups, resources: `*` matches anything; the core group is "".
// - resources: `resource` or `resource/subresource` exactly, `*`, or `*/subresource` (any
//   resource's subresource). (`resource/*` is not special in 1.25: it only matches itself.)
// - resourceNames: empty allows every name; otherwise the request's name must be listed, so a
//   request without a name (create, list, watch, deletecollection) is never allowed by such a rule.
// - nonResourceURLs: `*`, an exact path, or a trailing `*` as a prefix match.
// - ClusterRoleBindings grant everywhere (resource and non-resource requests); RoleBindings grant
//   resource requests in their own namespace only, and may reference a ClusterRole.
// - Subjects: User by name; Group by membership; ServiceAccount by the user name
//   `system:serviceaccount:<namespace>:<name>` (the namespace defaults to the RoleBinding's).
// - The `system:masters` group is allowed everything, with an empty reason (the reference's
//   privileged-group authorizer, which runs before RBAC).
// - Denied: `{ allowed: false, reason: "" }`: the HTTP layer writes the 403 message; when the
//   user's bindings refer to missing roles, the reason names them as the reference's does.
import type { Attributes, Authorizer, Decision } from './types.js';
import type { UserInfo } from '../api/user.js';

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface ObjectMetaLite {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | string;
  values?: string[];
}

export interface ClusterRoleSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: unknown[];
}

export interface Role {
  metadata: ObjectMetaLite;
  rules?: PolicyRule[] | null;
  aggregationRule?: { clusterRoleSelectors?: ClusterRoleSelector[] };
}

export interface Subject {
  kind: 'User' | 'Group' | 'ServiceAccount';
  name: string;
  namespace?: string;
  apiGroup?: string;
}

export interface RoleBinding {
  metadata: ObjectMetaLite;
  roleRef: { apiGroup: string; kind: 'Role' | 'ClusterRole'; name: string };
  subjects?: Subject[];
}

/** Where the RBAC objects come from (the lead implements it over the watch cache). `version()` changes whenever any of them changes, so indexes can be rebuilt lazily. */
export interface RbacSource {
  version(): number;
  clusterRoles(): Role[];
  roles(): Role[];
  clusterRoleBindings(): RoleBinding[];
  roleBindings(): RoleBinding[];
}

export const SYSTEM_MASTERS = 'system:masters';
const SA_PREFIX = 'system:serviceaccount:';

// ---------------------------------------------------------------------------------------------
// Rule matching
// ---------------------------------------------------------------------------------------------

/** A rule prepared for fast matching. */
interface CompiledRule {
  verbAll: boolean;
  verbs: ReadonlySet<string>;
  groupAll: boolean;
  groups: ReadonlySet<string>;
  resourceAll: boolean;
  /** `resource` and `resource/subresource` entries. */
  resources: ReadonlySet<string>;
  /** The `x` of every `*​/x` entry. */
  anySubresource: ReadonlySet<string>;
  hasResources: boolean;
  /** undefined: every name. */
  names: ReadonlySet<string> | undefined;
  urlAll: boolean;
  urls: ReadonlySet<string>;
  urlPrefixes: string[];
  hasURLs: boolean;
}

const EMPTY: ReadonlySet<string> = new Set();

function compileRule(rule: PolicyRule): CompiledRule {
  const verbs = rule.verbs ?? [];
  const groups = rule.apiGroups ?? [];
  const resources = rule.resources ?? [];
  const names = rule.resourceNames ?? [];
  const urls = rule.nonResourceURLs ?? [];
  const exact = new Set<string>();
  const anySub = new Set<string>();
  let resourceAll = false;
  for (const r of resources) {
    if (r === '*') resourceAll = true;
    else {
      exact.add(r);
      if (r.startsWith('*/')) anySub.add(r.slice(2));
    }
  }
  const urlExact = new Set<string>();
  const urlPrefixes: string[] = [];
  let urlAll = false;
  for (const u of urls) {
    if (u === '*') urlAll = true;
    else if (u.endsWith('*')) urlPrefixes.push(u.slice(0, -1));
    else urlExact.add(u);
  }
  return {
    verbAll: verbs.includes('*'),
    verbs: new Set(verbs),
    groupAll: groups.includes('*'),
    groups: new Set(groups),
    resourceAll,
    resources: exact,
    anySubresource: anySub.size ? anySub : EMPTY,
    hasResources: resources.length > 0,
    names: names.length ? new Set(names) : undefined,
    urlAll,
    urls: urlExact,
    urlPrefixes,
    hasURLs: urls.length > 0,
  };
}

function ruleAllowsResource(r: CompiledRule, verb: string, group: string, resource: string, subresource: string, name: string): boolean {
  if (!r.hasResources) return false;
  if (!r.verbAll && !r.verbs.has(verb)) return false;
  if (!r.groupAll && !r.groups.has(group)) return false;
  if (!r.resourceAll) {
    const combined = subresource ? `${resource}/${subresource}` : resource;
    if (!r.resources.has(combined) && !(subresource && r.anySubresource.has(subresource))) return false;
  }
  if (r.names !== undefined && !r.names.has(name)) return false;
  return true;
}

function ruleAllowsURL(r: CompiledRule, verb: string, path: string): boolean {
  if (!r.hasURLs) return false;
  if (!r.verbAll && !r.verbs.has(verb)) return false;
  if (r.urlAll || r.urls.has(path)) return true;
  for (const p of r.urlPrefixes) if (path.startsWith(p)) return true;
  return false;
}

function allows(rules: readonly CompiledRule[], a: Attributes): boolean {
  if (a.resourceRequest) {
    const verb = a.verb;
    const group = a.apiGroup ?? '';
    const resource = a.resource ?? '';
    const sub = a.subresource ?? '';
    const name = a.name ?? '';
    for (const r of rules) if (ruleAllowsResource(r, verb, group, resource, sub, name)) return true;
    return false;
  }
  const path = a.path ?? '';
  for (const r of rules) if (ruleAllowsURL(r, a.verb, path)) return true;
  return false;
}

/** Whether one rule allows the request (exported for the review APIs and tests). */
export function ruleAllows(rule: PolicyRule, a: Attributes): boolean {
  return allows([compileRule(rule)], a);
}

// ---------------------------------------------------------------------------------------------
// The index
// ---------------------------------------------------------------------------------------------

/** What one subject of one binding is granted. */
interface Grant {
  /** Position in evaluation order: ClusterRoleBindings in source order, then RoleBindings; subjects in order. */
  seq: number;
  /** The namespace a RoleBinding grants in; undefined for a ClusterRoleBinding. */
  namespace: string | undefined;
  rules: readonly CompiledRule[];
  source: readonly PolicyRule[];
  /** The allowed reason, built once. */
  reason: string;
  /** The role was missing (rulesFor reports incomplete). */
  missing: boolean;
  /** The reference's lister error for the missing role, which a denial names. */
  missingError?: string;
}

interface Index {
  version: number;
  /** Cluster-wide grants by user name (User subjects and service-account user names). */
  clusterByUser: Map<string, Grant[]>;
  clusterByGroup: Map<string, Grant[]>;
  /** Namespaced grants by `namespace \0 user` / `namespace \0 group`. */
  nsByUser: Map<string, Grant[]>;
  nsByGroup: Map<string, Grant[]>;
}

function push(map: Map<string, Grant[]>, key: string, g: Grant): void {
  const list = map.get(key);
  if (list) list.push(g);
  else map.set(key, [g]);
}

function describeSubject(s: Subject, bindingNamespace: string | undefined): string {
  if (s.kind === 'ServiceAccount') {
    const ns = s.namespace || bindingNamespace || '';
    return `ServiceAccount "${s.name}/${ns}"`;
  }
  return `${s.kind} "${s.name}"`;
}

interface ResolvedRole {
  rules: readonly CompiledRule[];
  source: readonly PolicyRule[];
}

function resolve(role: Role | undefined, cache: Map<Role, ResolvedRole>): ResolvedRole | undefined {
  if (!role) return undefined;
  let r = cache.get(role);
  if (!r) {
    const source = role.rules ?? [];
    r = { rules: source.map(compileRule), source };
    cache.set(role, r);
  }
  return r;
}

function buildIndex(source: RbacSource, version: number): Index {
  const index: Index = { version, clusterByUser: new Map(), clusterByGroup: new Map(), nsByUser: new Map(), nsByGroup: new Map() };
  const cache = new Map<Role, ResolvedRole>();
  const clusterRoles = new Map<string, Role>();
  for (const r of source.clusterRoles()) clusterRoles.set(r.metadata.name, r);
  const roles = new Map<string, Role>();
  for (const r of source.roles()) roles.set(`${r.metadata.namespace ?? ''}/${r.metadata.name}`, r);
  const NO_RULES: ResolvedRole = { rules: [], source: [] };

  let bindingSeq = 0;
  const add = (b: RoleBinding, namespace: string | undefined) => {
    const seqBase = bindingSeq++ * 0x10000;
    const subjects = b.subjects ?? [];
    if (!subjects.length) return;
    let role: Role | undefined;
    if (b.roleRef.kind === 'ClusterRole') role = clusterRoles.get(b.roleRef.name);
    else if (namespace !== undefined) role = roles.get(`${namespace}/${b.roleRef.name}`);
    const resolved = resolve(role, cache);
    const what =
      namespace === undefined
        ? `RBAC: allowed by ClusterRoleBinding "${b.metadata.name}" of ClusterRole "${b.roleRef.name}" to `
        : `RBAC: allowed by RoleBinding "${b.metadata.name}/${namespace}" of ${b.roleRef.kind} "${b.roleRef.name}" to `;
    subjects.forEach((s, i) => {
      const grant: Grant = {
        seq: seqBase + Math.min(i, 0xffff),
        namespace,
        rules: (resolved ?? NO_RULES).rules,
        source: (resolved ?? NO_RULES).source,
        reason: what + describeSubject(s, namespace),
        missing: resolved === undefined,
      };
      if (resolved === undefined) grant.missingError = `${b.roleRef.kind === 'ClusterRole' ? 'clusterrole' : 'role'}.rbac.authorization.k8s.io "${b.roleRef.name}" not found`;
      const userMap = namespace === undefined ? index.clusterByUser : index.nsByUser;
      const groupMap = namespace === undefined ? index.clusterByGroup : index.nsByGroup;
      const prefix = namespace === undefined ? '' : `${namespace}\0`;
      switch (s.kind) {
        case 'User':
          push(userMap, prefix + s.name, grant);
          break;
        case 'Group':
          push(groupMap, prefix + s.name, grant);
          break;
        case 'ServiceAccount': {
          const ns = s.namespace || namespace;
          if (!ns) break; // a ServiceAccount subject without a namespace applies to no one
          push(userMap, `${prefix}${SA_PREFIX}${ns}:${s.name}`, grant);
          break;
        }
      }
    });
  };
  for (const b of source.clusterRoleBindings()) add(b, undefined);
  for (const b of source.roleBindings()) add(b, b.metadata.namespace ?? '');
  return index;
}

// ---------------------------------------------------------------------------------------------
// The authorizer
// ---------------------------------------------------------------------------------------------

const ALLOW_MASTERS: Decision = Object.freeze({ allowed: true, reason: '' });
const DENY: Decision = Object.freeze({ allowed: false, reason: '' });

export class RbacAuthorizer implements Authorizer {
  private index: Index | undefined;

  constructor(readonly source: RbacSource) {}

  private current(): Index {
    const v = this.source.version();
    let idx = this.index;
    if (!idx || idx.version !== v) {
      idx = buildIndex(this.source, v);
      this.index = idx;
    }
    return idx;
  }

  /** Every grant that applies to the user (cluster-wide, and in `namespace` when given), in evaluation order. */
  private grantsFor(user: UserInfo, namespace: string | undefined): Grant[] {
    const idx = this.current();
    const out: Grant[] = [];
    const add = (list: Grant[] | undefined) => {
      if (list) for (const g of list) out.push(g);
    };
    add(idx.clusterByUser.get(user.name));
    for (const g of user.groups) add(idx.clusterByGroup.get(g));
    if (namespace) {
      add(idx.nsByUser.get(`${namespace}\0${user.name}`));
      for (const g of user.groups) add(idx.nsByGroup.get(`${namespace}\0${g}`));
    }
    out.sort((a, b) => a.seq - b.seq);
    // One subject entry per binding (a user matching two subjects of a binding is granted once).
    return out;
  }

  authorize(a: Attributes): Decision {
    const user = a.user;
    const groups = user.groups;
    for (let i = 0; i < groups.length; i++) if (groups[i] === SYSTEM_MASTERS) return ALLOW_MASTERS;
    const idx = this.current();
    let best: Grant | undefined;
    const consider = (list: Grant[] | undefined) => {
      if (!list) return;
      for (const g of list) {
        if (best && g.seq >= best.seq) continue;
        if (allows(g.rules, a)) best = g;
      }
    };
    consider(idx.clusterByUser.get(user.name));
    for (let i = 0; i < groups.length; i++) consider(idx.clusterByGroup.get(groups[i]!));
    // RoleBindings grant resource requests in their namespace only.
    const ns = a.namespace;
    if (a.resourceRequest && ns) {
      if (idx.nsByUser.size) consider(idx.nsByUser.get(`${ns}\0${user.name}`));
      if (idx.nsByGroup.size) for (let i = 0; i < groups.length; i++) consider(idx.nsByGroup.get(`${ns}\0${groups[i]!}`));
    }
    return best ? { allowed: true, reason: best.reason } : this.denial(a);
  }

  /**
   * A denial, with the reason the reference gives when the user's bindings refer to roles that do
   * not exist: "RBAC: <the not-found error>", several as "RBAC: [e1, e2]" (one per binding).
   */
  private denial(a: Attributes): Decision {
    const errors: string[] = [];
    const seenBinding = new Set<number>();
    for (const g of this.grantsFor(a.user, a.resourceRequest ? a.namespace || undefined : undefined)) {
      const binding = Math.floor(g.seq / 0x10000);
      if (!g.missingError || seenBinding.has(binding)) continue;
      seenBinding.add(binding);
      errors.push(g.missingError);
    }
    if (!errors.length) return DENY;
    return { allowed: false, reason: `RBAC: ${errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`}` };
  }

  /**
   * The rules the user holds in `namespace` (cluster-wide ones, plus the namespace's RoleBindings
   * when namespace is not ""), split as a SelfSubjectRulesReview reports them: rules with resources
   * and rules with nonResourceURLs. `incomplete` when a binding refers to a role that does not exist.
   */
  rulesFor(user: UserInfo, namespace: string): { resourceRules: PolicyRule[]; nonResourceRules: PolicyRule[]; incomplete: boolean } {
    const resourceRules: PolicyRule[] = [];
    const nonResourceRules: PolicyRule[] = [];
    let incomplete = false;
    const seenBinding = new Set<number>();
    for (const g of this.grantsFor(user, namespace || undefined)) {
      const binding = Math.floor(g.seq / 0x10000);
      if (seenBinding.has(binding)) continue;
      seenBinding.add(binding);
      if (g.missing) incomplete = true;
      for (const r of g.source) {
        if (r.resources && r.resources.length) resourceRules.push(copyRule(r, false));
        if (r.nonResourceURLs && r.nonResourceURLs.length) nonResourceRules.push(copyRule(r, true));
      }
    }
    return { resourceRules, nonResourceRules, incomplete };
  }

  /** Whether the user holds `rule` completely (in `namespace`, or cluster-wide when undefined). */
  covers(user: UserInfo, namespace: string | undefined, rule: PolicyRule): boolean {
    if (user.groups.includes(SYSTEM_MASTERS)) return true;
    const held: CompiledRule[] = [];
    for (const g of this.grantsFor(user, namespace)) {
      // Non-resource URLs are granted only by ClusterRoleBindings.
      for (const r of g.rules) if (g.namespace === undefined || r.hasResources) held.push(r);
    }
    return covered(held, rule, g => g);
  }
}

function copyRule(r: PolicyRule, nonResource: boolean): PolicyRule {
  if (nonResource) return { verbs: [...r.verbs], nonResourceURLs: [...(r.nonResourceURLs ?? [])] };
  const out: PolicyRule = { verbs: [...r.verbs], apiGroups: [...(r.apiGroups ?? [])], resources: [...(r.resources ?? [])] };
  if (r.resourceNames && r.resourceNames.length) out.resourceNames = [...r.resourceNames];
  return out;
}

// ---------------------------------------------------------------------------------------------
// Escalation checks: does a set of held rules cover a requested rule?
// ---------------------------------------------------------------------------------------------

/**
 * Whether `held` covers `rule`, as the reference's escalation check does: the rule is broken into
 * its smallest parts (one verb × group × resource × name, or one verb × URL), and each part must be
 * allowed by one held rule. Wildcards in the requested rule are only covered by wildcards.
 */
function covered<T>(held: T[], rule: PolicyRule, compiled: (t: T) => CompiledRule): boolean {
  const hs = held.map(compiled);
  const verbs = rule.verbs ?? [];
  if (rule.nonResourceURLs && rule.nonResourceURLs.length) {
    for (const v of verbs)
      for (const u of rule.nonResourceURLs) {
        if (!hs.some(h => coversURL(h, v, u))) return false;
      }
  }
  if (rule.resources && rule.resources.length) {
    const groups = rule.apiGroups ?? [];
    const names = rule.resourceNames && rule.resourceNames.length ? rule.resourceNames : [undefined];
    for (const v of verbs)
      for (const g of groups)
        for (const res of rule.resources)
          for (const n of names) {
            if (!hs.some(h => coversResource(h, v, g, res, n))) return false;
          }
  }
  return true;
}

function coversResource(h: CompiledRule, verb: string, group: string, resource: string, name: string | undefined): boolean {
  if (!h.hasResources) return false;
  if (!h.verbAll && !h.verbs.has(verb)) return false;
  if (!h.groupAll && !h.groups.has(group)) return false;
  if (!h.resourceAll) {
    if (!h.resources.has(resource)) {
      const slash = resource.indexOf('/');
      const sub = slash >= 0 ? resource.slice(slash + 1) : '';
      if (!(slash > 0 && resource[0] !== '*' && h.anySubresource.has(sub))) return false;
    }
  }
  if (h.names !== undefined) {
    if (name === undefined || !h.names.has(name)) return false;
  }
  return true;
}

function coversURL(h: CompiledRule, verb: string, url: string): boolean {
  if (!h.hasURLs) return false;
  if (!h.verbAll && !h.verbs.has(verb)) return false;
  if (h.urlAll || h.urls.has(url)) return true;
  // A requested prefix (`/foo/*`) is covered by an equal or shorter held prefix.
  const reqPrefix = url.endsWith('*') ? url.slice(0, -1) : url;
  for (const p of h.urlPrefixes) if (reqPrefix.startsWith(p)) return true;
  return false;
}

/** Whether `user` holds every permission in `rules` (in `namespace`, or cluster-wide when undefined): for escalation checks. Returns the rules not covered. */
export function uncoveredRules(authorizer: RbacAuthorizer, user: UserInfo, namespace: string | undefined, rules: PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const r of rules) if (!authorizer.covers(user, namespace, r)) out.push(r);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Aggregation
// ---------------------------------------------------------------------------------------------

function selectorMatches(sel: ClusterRoleSelector, labels: Record<string, string> | undefined): boolean {
  const l = labels ?? {};
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (l[k] !== v) return false;
  for (const raw of sel.matchExpressions ?? []) {
    const e = raw as LabelSelectorRequirement;
    const has = Object.prototype.hasOwnProperty.call(l, e.key);
    const values = e.values ?? [];
    switch (e.operator) {
      case 'In':
        if (!has || !values.includes(l[e.key]!)) return false;
        break;
      case 'NotIn':
        if (has && values.includes(l[e.key]!)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false; // an invalid operator selects nothing
    }
  }
  return true;
}

function sameRule(a: PolicyRule, b: PolicyRule): boolean {
  const eq = (x: string[] | undefined, y: string[] | undefined) => {
    const xs = x ?? [];
    const ys = y ?? [];
    return xs.length === ys.length && xs.every((v, i) => v === ys[i]);
  };
  return eq(a.verbs, b.verbs) && eq(a.apiGroups, b.apiGroups) && eq(a.resources, b.resources) && eq(a.resourceNames, b.resourceNames) && eq(a.nonResourceURLs, b.nonResourceURLs);
}

/** The rules an aggregated ClusterRole should have now (union of the rules of the ClusterRoles its selectors match, deduplicated, in a stable order). */
export function aggregatedRules(role: Role, all: Role[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const selectors = role.aggregationRule?.clusterRoleSelectors ?? [];
  const others = all.filter(r => r.metadata.name !== role.metadata.name).sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));
  for (const sel of selectors) {
    for (const r of others) {
      if (!selectorMatches(sel, r.metadata.labels)) continue;
      for (const rule of r.rules ?? []) if (!out.some(x => sameRule(x, rule))) out.push(rule);
    }
  }
  return out;
}

/**
 * What the user lacks of `rules`, as the reference reports an escalation: each rule broken into
 * single-verb parts (one group × resource × verb × name, or one URL × verb), the parts no held
 * rule covers kept, and those naming one group, one resource and at most one name merged back
 * into one rule per (group, resource, name) with their verbs in order.
 */
export function missingRights(authorizer: RbacAuthorizer, user: UserInfo, namespace: string | undefined, rules: PolicyRule[]): PolicyRule[] {
  const missing: PolicyRule[] = [];
  for (const rule of rules) {
    for (const group of rule.apiGroups ?? [])
      for (const resource of rule.resources ?? [])
        for (const verb of rule.verbs ?? []) {
          const names = rule.resourceNames?.length ? rule.resourceNames : [undefined];
          for (const name of names) {
            const part: PolicyRule = { verbs: [verb], apiGroups: [group], resources: [resource], ...(name !== undefined ? { resourceNames: [name] } : {}) };
            if (!authorizer.covers(user, namespace, part)) missing.push(part);
          }
        }
    for (const url of rule.nonResourceURLs ?? [])
      for (const verb of rule.verbs ?? []) {
        const part: PolicyRule = { verbs: [verb], nonResourceURLs: [url] };
        if (!authorizer.covers(user, namespace, part)) missing.push(part);
      }
  }
  const merged = new Map<string, PolicyRule>();
  const rest: PolicyRule[] = [];
  for (const part of missing) {
    if (part.nonResourceURLs) {
      rest.push(part);
      continue;
    }
    const key = JSON.stringify([part.apiGroups, part.resources, part.resourceNames ?? null]);
    const into = merged.get(key);
    if (into) into.verbs.push(...part.verbs);
    else merged.set(key, { ...part, verbs: [...part.verbs] });
  }
  return [...rest, ...merged.values()];
}
