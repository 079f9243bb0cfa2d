// Embedded resources (x-kubernetes-embedded-resource) inside a custom resource: their apiVersion,
// kind and metadata are checked as an object's are, wherever the schema puts them.
import type { FieldError } from '../../errors.js';
import { isObject } from '../../json.js';
import { validateEmbeddedResource } from './objectmeta.js';
import { childPath, indexPath, keyPath } from './render.js';
import { hasEmbeddedResources } from './subtree.js';
import type { Structural } from './types.js';

function walk(path: string, v: unknown, s: Structural | undefined, out: FieldError[]): void {
  if (!s || !hasEmbeddedResources(s)) return;
  if (Array.isArray(v)) {
    v.forEach((x, i) => walk(indexPath(path, i), x, s.items, out));
    return;
  }
  if (!isObject(v)) return;
  if (s.embeddedResource) out.push(...validateEmbeddedResource(v, path));
  for (const [k, x] of Object.entries(v)) {
    const prop = s.properties?.get(k);
    if (prop) walk(childPath(path, k), x, prop, out);
    else if (s.additionalProperties) walk(keyPath(path, k), x, s.additionalProperties.schema, out);
  }
}

/**
 * objectmeta.Validate: the embedded resources of `value` under schema `s`. With `isResourceRoot`
 * the value itself is checked as a resource too (as for a default of a whole object).
 */
export function validateEmbeddedResources(value: unknown, s: Structural, path = '', isResourceRoot = false): FieldError[] {
  const out: FieldError[] = [];
  walk(path, value, isResourceRoot && !s.embeddedResource ? { ...s, embeddedResource: true } : s, out);
  return out;
}
