// The type label of a storage operation, from the key it works on, as the reference names its
// objects' Go types in etcd_request_duration_seconds: "*core.ConfigMap", "*apps.Deployment",
// "*core.ConfigMapList" for a list; custom resources are "*unstructured.Unstructured".
import type { ResourceDefinitions } from './definitions.js';

const ROOT = '/registry/';

/** The reference's internal package of a group: its first DNS label, `core` for the core group. */
function internalPackage(group: string): string {
  if (group === '' || group === 'events.k8s.io') return 'core';
  return group.split('.')[0]!;
}

export function storageTypeNames(definitions: ResourceDefinitions): (key: string, list: boolean) => string {
  return (key, list) => {
    if (!key.startsWith(ROOT)) return 'unknown';
    const [first = '', second = ''] = key.slice(ROOT.length).split('/', 2);
    const definition = definitions.definition(first, second) ?? definitions.definition('', first);
    if (!definition) return 'unknown';
    const type = definition.builtin ? `*${internalPackage(definition.group)}.${definition.kind}` : '*unstructured.Unstructured';
    return list ? `${type}List` : type;
  };
}
