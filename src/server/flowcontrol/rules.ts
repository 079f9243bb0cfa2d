// Whether a FlowSchema's rules match a request, as the reference's flow control matches them:
// a rule matches when one of its subjects is the user and one of its resource rules (for a
// resource request) or non-resource rules (for any other) covers the request; `*` is every value.
import type { RequestInfo } from '../../api/request-info.js';
import type { UserInfo } from '../../api/user.js';
import { isObject, type JsonObject } from '../../json.js';

const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function field(obj: JsonObject, name: string): JsonObject {
  const v = obj[name];
  return isObject(v) ? v : {};
}

/** `*` alone stands for every value (validation keeps it alone). */
function has(list: string[], value: string): boolean {
  return (list.length === 1 && list[0] === '*') || list.includes(value);
}

function subjectMatches(subject: JsonObject, user: UserInfo): boolean {
  switch (subject['kind']) {
    case 'User': {
      const name = field(subject, 'user')['name'];
      return name === '*' || name === user.name;
    }
    case 'Group': {
      const name = field(subject, 'group')['name'];
      return name === '*' || (typeof name === 'string' && user.groups.includes(name));
    }
    case 'ServiceAccount': {
      if (!user.name.startsWith(SERVICE_ACCOUNT_PREFIX)) return false;
      const [namespace, name] = user.name.slice(SERVICE_ACCOUNT_PREFIX.length).split(':');
      const sa = field(subject, 'serviceAccount');
      return sa['namespace'] === namespace && (sa['name'] === '*' || sa['name'] === name);
    }
    default:
      return false;
  }
}

function resourceRuleMatches(rule: JsonObject, info: RequestInfo & { isResourceRequest: true }): boolean {
  if (!has(strings(rule['verbs']), info.verb)) return false;
  const resource = info.subresource ? `${info.resource}/${info.subresource}` : info.resource;
  if (!has(strings(rule['resources']), resource)) return false;
  if (!has(strings(rule['apiGroups']), info.apiGroup)) return false;
  if (!info.namespace) return rule['clusterScope'] === true;
  return has(strings(rule['namespaces']), info.namespace);
}

/** A URL covers itself and what is under it ("/healthz" covers "/healthz/etcd"; "/apis/*" all under /apis/). */
function urlMatches(patterns: string[], path: string): boolean {
  for (const p of patterns) {
    if (p === '*' || p === path) return true;
    let prefix = p.endsWith('*') ? p.slice(0, -1) : p;
    if (!prefix.endsWith('/')) prefix += '/';
    if (path.startsWith(prefix)) return true;
  }
  return false;
}

function nonResourceRuleMatches(rule: JsonObject, info: RequestInfo): boolean {
  return has(strings(rule['verbs']), info.verb) && urlMatches(strings(rule['nonResourceURLs']), info.path);
}

/** Whether one of a FlowSchema spec's rules matches the request of `user`. */
export function schemaMatches(spec: JsonObject, user: UserInfo, info: RequestInfo): boolean {
  const rules = Array.isArray(spec['rules']) ? spec['rules'].filter(isObject) : [];
  return rules.some((rule) => {
    const subjects = Array.isArray(rule['subjects']) ? rule['subjects'].filter(isObject) : [];
    if (!subjects.some((s) => subjectMatches(s, user))) return false;
    if (info.isResourceRequest) {
      const rr = Array.isArray(rule['resourceRules']) ? rule['resourceRules'].filter(isObject) : [];
      return rr.some((r) => resourceRuleMatches(r, info));
    }
    const nr = Array.isArray(rule['nonResourceRules']) ? rule['nonResourceRules'].filter(isObject) : [];
    return nr.some((r) => nonResourceRuleMatches(r, info));
  });
}
