// Storage keys in kube-apiserver's layout: /registry/{resource}/{namespace}/{name} for the core group,
// /registry/{group}/{resource}/… for the others (so resources of the same name in two groups never meet).
import type { ResourceInfo } from './definitions.js';

export function resourcePrefix(info: Pick<ResourceInfo, 'group' | 'resource'>): string {
  return info.group ? `/registry/${info.group}/${info.resource}/` : `/registry/${info.resource}/`;
}

export function collectionPrefix(info: Pick<ResourceInfo, 'group' | 'resource'>, namespace: string | undefined): string {
  return namespace ? `${resourcePrefix(info)}${namespace}/` : resourcePrefix(info);
}

export function objectKey(info: Pick<ResourceInfo, 'group' | 'resource' | 'namespaced'>, namespace: string | undefined, name: string): string {
  return info.namespaced ? `${resourcePrefix(info)}${namespace}/${name}` : `${resourcePrefix(info)}${name}`;
}
