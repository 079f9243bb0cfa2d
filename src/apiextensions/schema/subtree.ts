// Whether anything under a structural schema node has a property: the walks that act only where
// the schema says so (defaults, embedded resources, list types) skip the parts of an object whose
// schema has none of it. Decided once per schema node (schemas are compiled once per CRD version).
import type { Structural } from './types.js';

/** A test of a node and everything under it (properties, additionalProperties, items), kept per node. */
export function subtreeTest(test: (s: Structural) => boolean): (s: Structural | undefined) => boolean {
  const known = new WeakMap<Structural, boolean>();
  const has = (s: Structural | undefined): boolean => {
    if (!s) return false;
    let found = known.get(s);
    if (found === undefined) {
      found = test(s) || has(s.items) || has(s.additionalProperties?.schema);
      if (!found && s.properties) for (const p of s.properties.values()) if ((found = has(p))) break;
      known.set(s, found);
    }
    return found;
  };
  return has;
}

/** Some node under it has a default. */
export const hasDefaults = subtreeTest((s) => s.default !== undefined);

/** Some node under it is an embedded resource. */
export const hasEmbeddedResources = subtreeTest((s) => s.embeddedResource);

/** Some node under it is a set or map list. */
export const hasListTypes = subtreeTest((s) => s.listType === 'set' || s.listType === 'map');
