// Which webhooks a request concerns by their rules: operations, API groups, versions, resources
// ("*", "pods", "pods/status", "*/status", "*/*") and scope. With matchPolicy Equivalent, a rule
// written for another served version of the same resource (or of a resource stored with it) also
// catches the request, which the webhook then receives in that version.
import type { ResourceDefinitions, ResourceInfo } from '../../registry/definitions.js';
import { resourcePrefix } from '../../registry/keys.js';
import type { Operation } from '../types.js';
import type { Rule, Webhook } from './config.js';

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** What the rules look at in a request. */
export interface RuleTarget {
  operation: Operation;
  /** The resource in the version the request addressed. */
  info: ResourceInfo;
  /** "" for the main resource. */
  subresource: string;
  /** The admission namespace ("" for cluster-scoped objects other than a namespace itself). */
  namespace: string;
}

/** A webhook to call, and the version of the resource it is to see. */
export interface Invocation {
  hook: Webhook;
  info: ResourceInfo;
  resource: GroupVersionResource;
  subresource: string;
  kind: GroupVersionKind;
}

function gvr(info: ResourceInfo): GroupVersionResource {
  return { group: info.group, version: info.version, resource: info.resource };
}

/** The kind of the request's body: the subresource's own kind (autoscaling/v1 Scale) or the resource's. */
export function kindOf(info: ResourceInfo, subresource: string): GroupVersionKind {
  const sub = subresource ? info.subresources.get(subresource) : undefined;
  if (sub) return { group: sub.group, version: sub.version, kind: sub.kind };
  return { group: info.group, version: info.version, kind: info.kind };
}

function exactOrWildcard(items: string[], value: string): boolean {
  return items.some((i) => i === '*' || i === value);
}

function isNamespaceResource(r: GroupVersionResource): boolean {
  return r.group === '' && r.version === 'v1' && r.resource === 'namespaces';
}

function scopeMatches(rule: Rule, resource: GroupVersionResource, namespace: string): boolean {
  switch (rule.scope) {
    case '*':
      return true;
    // A namespace is cluster-scoped, although its admission namespace is its own name.
    case 'Namespaced':
      return !isNamespaceResource(resource) && namespace !== '';
    case 'Cluster':
      return isNamespaceResource(resource) || namespace === '';
    default:
      return false;
  }
}

function resourceMatches(rule: Rule, resource: string, subresource: string): boolean {
  return rule.resources.some((entry) => {
    const slash = entry.indexOf('/');
    const res = slash < 0 ? entry : entry.slice(0, slash);
    const sub = slash < 0 ? '' : entry.slice(slash + 1);
    return (res === '*' || res === resource) && (sub === '*' || sub === subresource);
  });
}

export function ruleMatches(rule: Rule, target: RuleTarget, resource: GroupVersionResource): boolean {
  return scopeMatches(rule, resource, target.namespace)
    && exactOrWildcard(rule.operations, target.operation)
    && exactOrWildcard(rule.apiGroups, resource.group)
    && exactOrWildcard(rule.apiVersions, resource.version)
    && resourceMatches(rule, resource.resource, target.subresource);
}

/**
 * The other served versions of the request's resource (with the same subresource), preferred
 * first, then those of a resource stored with it (the reference's equivalents share a storage
 * prefix: core and events.k8s.io Events).
 */
function equivalents(catalog: ResourceDefinitions, target: RuleTarget): ResourceInfo[] {
  const { group, resource } = target.info;
  const stored = resourcePrefix(target.info);
  const cohabiting = [...catalog.definitions()].filter((d) => (d.group !== group || d.resource !== resource) && resourcePrefix(d) === stored);
  return [...catalog.versionsOf(group, resource), ...cohabiting.flatMap((d) => catalog.versionsOf(d.group, d.resource))].filter((info) =>
    (info.group !== group || info.resource !== resource || info.version !== target.info.version) && (!target.subresource || info.subresources.has(target.subresource)));
}

/** The invocation of `hook` for this request, when one of its rules matches. */
export function matchRules(hook: Webhook, target: RuleTarget, catalog: ResourceDefinitions): Invocation | undefined {
  const requested = gvr(target.info);
  if (hook.rules.some((rule) => ruleMatches(rule, target, requested))) {
    return { hook, info: target.info, resource: requested, subresource: target.subresource, kind: kindOf(target.info, target.subresource) };
  }
  if (hook.matchPolicy !== 'Equivalent') return undefined;
  const others = equivalents(catalog, target);
  // Earlier rules first: the first rule that catches any equivalent decides the version.
  for (const rule of hook.rules) {
    for (const info of others) {
      const resource = gvr(info);
      if (ruleMatches(rule, target, resource)) {
        return { hook, info, resource, subresource: target.subresource, kind: kindOf(info, target.subresource) };
      }
    }
  }
  return undefined;
}
