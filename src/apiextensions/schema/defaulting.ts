// Defaulting from a CRD's schema: a `default` fills a missing field (or a null one the schema
// does not allow), in objects, in array items and in additionalProperties values, recursively, as
// the reference does on every decode — request bodies and objects read from storage. A null the
// schema allows (nullable) stays null. The reference defaults first and prunes the result.
import { copyJson, isObject } from '../../json.js';
import { hasDefaults } from './subtree.js';
import type { Structural } from './types.js';

const nonNullableNull = (v: unknown, s: Structural | undefined): boolean => v === null && s !== undefined && !s.nullable;

/** Default: fills `value` in place from schema `s`'s defaults. */
export function applyDefaults(value: unknown, s: Structural | undefined): void {
  // Without a default under it, a node only ever turns a null into null.
  if (!s || !hasDefaults(s)) return;
  if (isObject(value)) {
    for (const [k, prop] of s.properties ?? []) {
      if (prop.default === undefined) continue;
      if (!Object.hasOwn(value, k) || nonNullableNull(value[k], prop)) value[k] = copyJson(prop.default);
    }
    const ap = s.additionalProperties?.schema;
    for (const k of Object.keys(value)) {
      const prop = s.properties?.get(k);
      if (prop) applyDefaults(value[k], prop);
      else if (s.additionalProperties) {
        if (ap && nonNullableNull(value[k], ap)) value[k] = copyJson(ap.default) ?? null;
        applyDefaults(value[k], ap);
      }
    }
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (s.items && nonNullableNull(value[i], s.items)) value[i] = copyJson(s.items.default) ?? null;
      applyDefaults(value[i], s.items);
    }
  }
}
