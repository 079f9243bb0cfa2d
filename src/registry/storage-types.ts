// The type label of a storage operation, from the key it works on, as the reference names its
// objects' Go types in etcd_request_duration_seconds: "*core.ConfigMap", "*apps.Deployment",
// "*core.ConfigMapList" for a list; custom resources are "*unstructured.Unstructured".
import type { ResourceDefinitions } from './definitions.js';

const ROOT = '/registry/';

/** A resource's type names: of one object, of a list. */
interface TypeNames {
  readonly object: string;
  readonly list: string;
}

const UNKNOWN: TypeNames = { object: 'unknown', list: 'unknown' };

/** The reference's internal package of a group: its first DNS label, `core` for the core group. */
function internalPackage(group: string): string {
  if (group === '' || group === 'events.k8s.io') return 'core';
  return group.split('.')[0]!;
}

function typeNames(definitions: ResourceDefinitions, first: string, second: string): TypeNames {
  const definition = definitions.definition(first, second) ?? definitions.definition('', first);
  if (!definition) return UNKNOWN;
  const object = definition.builtin ? `*${internalPackage(definition.group)}.${definition.kind}` : '*unstructured.Unstructured';
  return { object, list: `${object}List` };
}

export function storageTypeNames(definitions: ResourceDefinitions): (key: string, list: boolean) => string {
  // Each resource's names are found once, not at every storage call (splitting the key and looking
  // its parts up cost each call 0.2–0.5 µs): by the key's first segment, and by its second under a
  // group's name (/registry/apps/deployments/…). Found again when the definitions change.
  let known = new Map<string, TypeNames | Map<string, TypeNames>>();
  let generation = definitions.generation;
  return (key, list) => {
    if (!key.startsWith(ROOT)) return UNKNOWN.object;
    if (definitions.generation !== generation) {
      known = new Map();
      generation = definitions.generation;
    }
    const firstEnd = key.indexOf('/', ROOT.length);
    const first = key.slice(ROOT.length, firstEnd < 0 ? key.length : firstEnd);
    let found = known.get(first);
    if (found === undefined) {
      found = definitions.group(first) === undefined ? typeNames(definitions, first, '') : new Map<string, TypeNames>();
      known.set(first, found);
    }
    let names: TypeNames;
    if (found instanceof Map) {
      const secondEnd = firstEnd < 0 ? -1 : key.indexOf('/', firstEnd + 1);
      const second = firstEnd < 0 ? '' : key.slice(firstEnd + 1, secondEnd < 0 ? key.length : secondEnd);
      let byResource = found.get(second);
      if (byResource === undefined) found.set(second, (byResource = typeNames(definitions, first, second)));
      names = byResource;
    } else names = found;
    return list ? names.list : names.object;
  };
}
