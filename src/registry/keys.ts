// Storage keys in kube-apiserver's layout: /registry/{resource}/{namespace}/{name} for the core group,
// /registry/{group}/{resource}/… for the others (so resources of the same name in two groups never meet).
import type { ResourceInfo } from './definitions.js';
import { innerMap } from '../maps.js';

type GroupResource = Pick<ResourceInfo, 'group' | 'resource'>;

/**
 * Resources whose objects are another resource's, as the reference's storage factory makes them
 * cohabit: one object under the other's keys, in its storage version, seen through both APIs.
 * events.k8s.io events are core events (/registry/events/<namespace>/<name>, core/v1).
 * By group, then resource: found without making a string of the two.
 */
const STORED_WITH: ReadonlyMap<string, ReadonlyMap<string, GroupResource>> = new Map([['events.k8s.io', new Map([['events', { group: '', resource: 'events' }]])]]);

/** The resource whose storage holds this resource's objects: another one's when they cohabit, else its own. */
export function storedWith<T extends GroupResource>(info: T): T | GroupResource {
  return STORED_WITH.get(info.group)?.get(info.resource) ?? info;
}

/**
 * Each resource's prefix, by group then resource, made once: every read of one object asks for it,
 * and building it (with the pair's lookup) cost a GET a quarter of a microsecond. Only served
 * resources' definitions and infos are asked about, so it stays small.
 */
const PREFIXES = new Map<string, Map<string, string>>();

export function resourcePrefix(info: GroupResource): string {
  const byResource = innerMap(PREFIXES, info.group);
  let prefix = byResource.get(info.resource);
  if (prefix === undefined) {
    const stored = storedWith(info);
    prefix = stored.group ? `/registry/${stored.group}/${stored.resource}/` : `/registry/${stored.resource}/`;
    byResource.set(info.resource, prefix);
  }
  return prefix;
}

export function collectionPrefix(info: Pick<ResourceInfo, 'group' | 'resource'>, namespace: string | undefined): string {
  return namespace ? `${resourcePrefix(info)}${namespace}/` : resourcePrefix(info);
}

export function objectKey(info: Pick<ResourceInfo, 'group' | 'resource' | 'namespaced'>, namespace: string | undefined, name: string): string {
  return info.namespaced ? `${resourcePrefix(info)}${namespace}/${name}` : `${resourcePrefix(info)}${name}`;
}

/**
 * The reference keeps most built-in resources under /registry/{resource} (no group); these five
 * under names of their own. Its errors name these keys, so capstan names them the same way.
 */
const REFERENCE_PREFIXES: Record<string, string> = {
  '/services': 'services/specs',
  '/endpoints': 'services/endpoints',
  '/nodes': 'minions',
  '/replicationcontrollers': 'controllers',
  'networking.k8s.io/ingresses': 'ingress',
};

/** Built-in resources the reference keeps under their group, as it keeps custom resources. */
const GROUPED_BUILTINS = new Set(['apiregistration.k8s.io', 'apiextensions.k8s.io']);

/** Where the reference keeps a resource's objects below its etcd prefix: `deployments`, `minions`, `example.com/widgets`. */
export function referenceResourcePath(group: string, resource: string, builtin: boolean): string {
  const grouped = !builtin || GROUPED_BUILTINS.has(group);
  return REFERENCE_PREFIXES[`${group}/${resource}`] ?? (grouped ? `${group}/${resource}` : resource);
}

/**
 * The key the reference's storage has for an object, as its storage errors print it: below
 * `/registry` (the etcd prefix) for a real write, without it for a dry run (which checks the
 * object before it reaches etcd).
 */
export function referenceStorageKey(info: Pick<ResourceInfo, 'group' | 'resource' | 'namespaced' | 'definition'>, namespace: string | undefined, name: string, dryRun = false): string {
  const prefix = referenceResourcePath(info.group, info.resource, info.definition.builtin);
  const path = info.namespaced ? `/${prefix}/${namespace}/${name}` : `/${prefix}/${name}`;
  return dryRun ? path : `/registry${path}`;
}
