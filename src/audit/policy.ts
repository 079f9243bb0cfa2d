// The audit policy (audit.k8s.io/v1 Policy) as kube-apiserver 1.25 reads, checks and applies it:
// rules tried in order, the first that matches a request says its level and the stages left out;
// no match is level None. Errors are worded as the reference's field errors.
import { isDNS1123Subdomain } from '../api/names.js';
import { parseYaml } from '../encoding/yaml-decode.js';
import { isObject, type JsonObject } from '../json.js';

export const LEVELS = ['None', 'Metadata', 'Request', 'RequestResponse'] as const;
export type Level = (typeof LEVELS)[number];

export const STAGES = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'] as const;
export type Stage = (typeof STAGES)[number];

/** Whether `level` records at least as much as `least`. */
export function atLeast(level: Level, least: Level): boolean {
  return LEVELS.indexOf(level) >= LEVELS.indexOf(least);
}

export interface GroupResources {
  group: string;
  resources: string[];
  resourceNames: string[];
}

export interface PolicyRule {
  level: Level;
  users: string[];
  userGroups: string[];
  verbs: string[];
  resources: GroupResources[];
  namespaces: string[];
  nonResourceURLs: string[];
  omitStages: Stage[];
  omitManagedFields?: boolean;
}

export interface Policy {
  rules: PolicyRule[];
  omitStages: Stage[];
  omitManagedFields: boolean;
}

/** What a rule is matched against: the authorizer's view of the request, by the authenticated user. */
export interface PolicyAttributes {
  user?: { name: string; groups: readonly string[] };
  verb: string;
  resourceRequest: boolean;
  /** Non-resource requests: the path. */
  path?: string;
  apiGroup?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

/** What the policy says of one request. */
export interface AuditConfig {
  level: Level;
  omitStages: ReadonlySet<Stage>;
  omitManagedFields: boolean;
}

/** A policy the reference would refuse; the message is the reference's (without the file). */
export class PolicyError extends Error {}

const GROUP_VERSION = 'audit.k8s.io/v1';

/** Reads a policy file's text (YAML or JSON), checked as the reference checks it. */
export function parsePolicy(text: string): Policy {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new PolicyError(`failed decoding: ${(err as Error).message}`);
  }
  if (!isObject(doc)) throw new PolicyError('failed decoding: not an object');
  const kind = doc['kind'];
  const apiVersion = doc['apiVersion'];
  if (typeof kind !== 'string' || kind === '') throw new PolicyError("failed decoding: Object 'Kind' is missing");
  if (apiVersion !== GROUP_VERSION) {
    if (typeof apiVersion !== 'string' || apiVersion === '') throw new PolicyError(`unknown group version field /, Kind=${kind} in policy`);
    throw new PolicyError(`failed decoding: no kind "${kind}" is registered for version "${apiVersion}"`);
  }
  if (kind !== 'Policy') throw new PolicyError(`failed decoding: no kind "${kind}" is registered for version "${GROUP_VERSION}"`);
  const policy = decodePolicy(doc);
  const errors = validatePolicy(policy);
  if (errors.length === 1) throw new PolicyError(errors[0]!);
  if (errors.length > 1) throw new PolicyError(`[${errors.join(', ')}]`);
  if (policy.rules.length === 0) throw new PolicyError('loaded illegal policy with 0 rules');
  return policy;
}

// ─── decoding: Go's JSON decoder into the v1 types (unknown fields ignored, wrong types refused) ───

function typeError(value: unknown, field: string, goType: string): PolicyError {
  const what = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'object' ? 'object' : typeof value;
  return new PolicyError(`failed decoding: json: cannot unmarshal ${what} into Go struct field ${field} of type ${goType}`);
}

function strings(obj: JsonObject, key: string, field: string): string[] {
  const v = obj[key];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw typeError(v, field, '[]string');
  return v.map((s) => {
    if (typeof s !== 'string') throw typeError(s, field, 'string');
    return s;
  });
}

function text(obj: JsonObject, key: string, field: string): string {
  const v = obj[key];
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw typeError(v, field, 'string');
  return v;
}

function flag(obj: JsonObject, key: string, field: string): boolean | undefined {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw typeError(v, field, 'bool');
  return v;
}

function objects(obj: JsonObject, key: string, field: string, goType: string): JsonObject[] {
  const v = obj[key];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw typeError(v, field, `[]${goType}`);
  return v.map((o) => {
    if (!isObject(o)) throw typeError(o, field, goType);
    return o;
  });
}

function decodePolicy(doc: JsonObject): Policy {
  const rules = objects(doc, 'rules', 'Policy.rules', 'v1.PolicyRule').map((r): PolicyRule => {
    const rule: PolicyRule = {
      level: text(r, 'level', 'PolicyRule.rules.level') as Level,
      users: strings(r, 'users', 'PolicyRule.rules.users'),
      userGroups: strings(r, 'userGroups', 'PolicyRule.rules.userGroups'),
      verbs: strings(r, 'verbs', 'PolicyRule.rules.verbs'),
      resources: objects(r, 'resources', 'PolicyRule.rules.resources', 'v1.GroupResources').map((g) => ({
        group: text(g, 'group', 'GroupResources.rules.resources.group'),
        resources: strings(g, 'resources', 'GroupResources.rules.resources.resources'),
        resourceNames: strings(g, 'resourceNames', 'GroupResources.rules.resources.resourceNames'),
      })),
      namespaces: strings(r, 'namespaces', 'PolicyRule.rules.namespaces'),
      nonResourceURLs: strings(r, 'nonResourceURLs', 'PolicyRule.rules.nonResourceURLs'),
      omitStages: strings(r, 'omitStages', 'PolicyRule.rules.omitStages') as Stage[],
    };
    const omit = flag(r, 'omitManagedFields', 'PolicyRule.rules.omitManagedFields');
    if (omit !== undefined) rule.omitManagedFields = omit;
    return rule;
  });
  return {
    rules,
    omitStages: strings(doc, 'omitStages', 'Policy.omitStages') as Stage[],
    omitManagedFields: flag(doc, 'omitManagedFields', 'Policy.omitManagedFields') ?? false,
  };
}

// ─── validation: the reference's checks, its field errors' wording ───

/** Go's %#v of a []string: []string{"a", "b"}. */
const goStrings = (values: string[]): string => `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;

function validateOmitStages(stages: string[], path: string): string[] {
  return stages.flatMap((s, i) => ((STAGES as readonly string[]).includes(s) ? [] : [`${path}[${i}]: Invalid value: ${JSON.stringify(s)}: allowed stages are ${STAGES.join(',')}`]));
}

function validateRule(rule: PolicyRule, path: string): string[] {
  const errors: string[] = [];
  if (rule.level === ('' as Level)) errors.push(`${path}.level: Required value`);
  else if (!LEVELS.includes(rule.level)) errors.push(`${path}.level: Unsupported value: ${JSON.stringify(rule.level)}: supported values: ${LEVELS.map((l) => `"${l}"`).join(', ')}`);
  rule.nonResourceURLs.forEach((url, i) => {
    if (url === '*') return;
    const at = `${path}.nonResourceURLs[${i}]: Invalid value: ${JSON.stringify(url)}`;
    if (!url.startsWith('/')) errors.push(`${at}: non-resource URL rules must begin with a '/' character`);
    if (url !== '' && url.slice(0, -1).includes('*')) errors.push(`${at}: non-resource URL wildcards '*' must be the final character of the rule`);
  });
  for (const gr of rule.resources) {
    if (gr.group !== '') {
      const msgs = isDNS1123Subdomain(gr.group);
      if (msgs.length) errors.push(`${path}.resources.group: Invalid value: ${JSON.stringify(gr.group)}: ${msgs.join(',')}`);
    }
    if (gr.resourceNames.length > 0 && gr.resources.length === 0) {
      errors.push(`${path}.resources.resourceNames: Invalid value: ${goStrings(gr.resourceNames)}: using resourceNames requires at least one resource`);
    }
  }
  errors.push(...validateOmitStages(rule.omitStages, `${path}.omitStages`));
  if (rule.nonResourceURLs.length > 0 && (rule.resources.length > 0 || rule.namespaces.length > 0)) {
    errors.push(`${path}.nonResourceURLs: Invalid value: ${goStrings(rule.nonResourceURLs)}: rules cannot apply to both regular resources and non-resource URLs`);
  }
  return errors;
}

function validatePolicy(policy: Policy): string[] {
  return [
    ...validateOmitStages(policy.omitStages, 'omitStages'),
    ...policy.rules.flatMap((rule, i) => validateRule(rule, `rules[${i}]`)),
  ];
}

// ─── matching ───

/** How many request shapes a user's decisions remember before they start over. */
const CACHE_LIMIT = 10_000;
/** Rules a policy has before its decisions are remembered: a short one is gone through faster than looked up. */
const RULES_WORTH_REMEMBERING = 5;

/**
 * Decides each request's audit config from a policy. The decision depends only on who sent the
 * request and its shape, which repeat from request to request: it is remembered per user (name and
 * groups) and shape, so that a long policy is not gone through at every request.
 */
export class PolicyEvaluator {
  private readonly rules: ReadonlyArray<{ rule: PolicyRule; config: AuditConfig }>;
  private readonly unmatched: AuditConfig;
  /** Whether a rule names objects (resourceNames): then the name is part of a request's shape. */
  private readonly byName: boolean;
  private cache = new Map<string, { groups: readonly string[]; shapes: Map<string, AuditConfig> }>();
  private cached = 0;
  private readonly remember: boolean;

  constructor(policy: Policy) {
    // A rule's stages left out are its own and the policy's.
    this.rules = policy.rules.map((rule) => ({
      rule,
      config: {
        level: rule.level,
        omitStages: new Set([...policy.omitStages, ...rule.omitStages]),
        omitManagedFields: rule.omitManagedFields ?? policy.omitManagedFields,
      },
    }));
    this.unmatched = { level: 'None', omitStages: new Set(policy.omitStages), omitManagedFields: policy.omitManagedFields };
    this.byName = policy.rules.some((r) => r.resources.some((g) => g.resourceNames.length > 0));
    this.remember = policy.rules.length >= RULES_WORTH_REMEMBERING;
  }

  evaluate(attrs: PolicyAttributes): AuditConfig {
    if (!this.remember) return this.decide(attrs);
    // No user (a request refused 401) is a user of its own: "\0" is no user name.
    const userKey = attrs.user ? attrs.user.name : '\0';
    const groups = attrs.user?.groups ?? [];
    let byUser = this.cache.get(userKey);
    if (!byUser || !sameStrings(byUser.groups, groups)) {
      if (this.cached >= CACHE_LIMIT) this.forget();
      byUser = { groups: [...groups], shapes: new Map() };
      this.cache.set(userKey, byUser);
    }
    const shape = attrs.resourceRequest
      ? `${attrs.verb}\x01${attrs.apiGroup ?? ''}\x01${attrs.resource ?? ''}\x01${attrs.subresource ?? ''}\x01${attrs.namespace ?? ''}${this.byName ? `\x01${attrs.name ?? ''}` : ''}`
      : `${attrs.verb}\x02${attrs.path ?? ''}`;
    let config = byUser.shapes.get(shape);
    if (!config) {
      if (this.cached >= CACHE_LIMIT) this.forget();
      config = this.decide(attrs);
      byUser.shapes.set(shape, config);
      this.cached++;
    }
    return config;
  }

  private decide(attrs: PolicyAttributes): AuditConfig {
    for (const { rule, config } of this.rules) if (ruleMatches(rule, attrs)) return config;
    return this.unmatched;
  }

  private forget(): void {
    this.cache = new Map();
    this.cached = 0;
  }
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Whether any of `these` is among `those`. */
function anyOf(these: readonly string[], those: readonly string[]): boolean {
  for (const x of these) if (those.includes(x)) return true;
  return false;
}

// Matched at every audited request: no closure here over the rule (one cost each call a context, made or not).
function ruleMatches(r: PolicyRule, a: PolicyAttributes): boolean {
  if (r.users.length > 0 && (!a.user || !r.users.includes(a.user.name))) return false;
  if (r.userGroups.length > 0 && (!a.user || !anyOf(a.user.groups, r.userGroups))) return false;
  if (r.verbs.length > 0 && !r.verbs.includes(a.verb)) return false;
  if (r.namespaces.length > 0 || r.resources.length > 0) return resourceMatches(r, a);
  if (r.nonResourceURLs.length > 0) return !a.resourceRequest && anyPathMatches(a.path ?? '', r.nonResourceURLs);
  return true;
}

function anyPathMatches(path: string, specs: readonly string[]): boolean {
  for (const spec of specs) if (pathMatches(path, spec)) return true;
  return false;
}

function pathMatches(path: string, spec: string): boolean {
  if (spec === '*' || spec === path) return true;
  return spec.endsWith('*') && path.startsWith(spec.replace(/\*+$/, ''));
}

function resourceMatches(r: PolicyRule, a: PolicyAttributes): boolean {
  if (!a.resourceRequest) return false;
  // Cluster-scoped resources are in the namespace "".
  if (r.namespaces.length > 0 && !r.namespaces.includes(a.namespace ?? '')) return false;
  if (r.resources.length === 0) return true;
  const resource = a.resource ?? '';
  const subresource = a.subresource ?? '';
  const combined = subresource ? `${resource}/${subresource}` : resource;
  const name = a.name ?? '';
  for (const gr of r.resources) {
    // 1.25 knows no group wildcard: "*" is a group name like any other.
    if (gr.group !== (a.apiGroup ?? '')) continue;
    if (gr.resources.length === 0) return true;
    if (gr.resourceNames.length > 0 && !gr.resourceNames.includes(name)) continue;
    for (const res of gr.resources) {
      if (res === combined || res === '*') return true;
      if (subresource && res.startsWith('*/') && res.slice(2) === subresource) return true;
      if (res.endsWith('/*') && res.slice(0, -2) === resource) return true;
    }
  }
  return false;
}
