// Uniqueness in lists typed x-kubernetes-list-type: set (each item once) and map (each
// combination of the list-map-keys once), with the reference's "Duplicate value" errors.
import type { FieldError } from '../../errors.js';
import { isObject } from '../../json.js';
import { childPath, duplicateValue, indexPath, invalidValue, keyPath } from './render.js';
import { hasListTypes } from './subtree.js';
import type { Structural } from './types.js';

/** A canonical text of a JSON value (object keys sorted), for comparing items. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isObject(v)) return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  // int64 and float64 differ in Go's map keys; integral JSON numbers decode as int64 anyway.
  return JSON.stringify(v) ?? 'null';
}

/** The indices of items seen before, each reported once (at its second occurrence). */
function secondOccurrences(keys: string[]): number[] {
  const seen = new Map<string, number>();
  const out: number[] = [];
  keys.forEach((k, i) => {
    const times = seen.get(k) ?? 0;
    if (times === 1) out.push(i);
    seen.set(k, times + 1);
  });
  return out;
}

function listMapErrors(path: string, s: Structural, list: unknown[]): FieldError[] {
  for (let i = 0; i < list.length; i++) {
    const x = list[i];
    if (x !== null && !isObject(x)) return [invalidValue(indexPath(path, i), x, 'must be an object for an array of list-type map')];
  }
  if (list.length <= 1) return [];
  const keyFields = s.listMapKeys ?? [];
  // The key of each item: the key fields it has (a missing field or a null item: an empty key).
  const keys = list.map((x) => {
    const key: Record<string, unknown> = {};
    if (isObject(x)) for (const f of keyFields) if (Object.hasOwn(x, f)) key[f] = x[f];
    return key;
  });
  return secondOccurrences(keys.map(canonical)).map((i) => duplicateValue(indexPath(path, i), keys[i]));
}

function arrayErrors(path: string, s: Structural, list: unknown[]): FieldError[] {
  const errs: FieldError[] = [];
  if (s.listType === 'set') {
    for (const i of secondOccurrences(list.map(canonical))) errs.push(duplicateValue(indexPath(path, i), list[i]));
  } else if (s.listType === 'map') {
    errs.push(...listMapErrors(path, s, list));
  }
  if (s.items) list.forEach((x, i) => errs.push(...valueErrors(indexPath(path, i), s.items!, x)));
  return errs;
}

function valueErrors(path: string, s: Structural, v: unknown): FieldError[] {
  if (!hasListTypes(s)) return [];
  if (Array.isArray(v)) return arrayErrors(path, s, v);
  if (isObject(v)) return validateListSetsAndMaps(v, s, path);
  return [];
}

/**
 * ValidateListSetsAndMaps: duplicates in the object's set and map lists, at paths under `path`
 * (`spec.ports[1]: Duplicate value: map[string]interface {}{"port":80}`).
 */
export function validateListSetsAndMaps(obj: Record<string, unknown>, s: Structural, path = ''): FieldError[] {
  const errs: FieldError[] = [];
  if (!hasListTypes(s)) return errs;
  const ap = s.additionalProperties?.schema;
  if (ap) for (const [k, v] of Object.entries(obj)) errs.push(...valueErrors(keyPath(path, k), ap, v));
  if (s.properties) {
    for (const [k, v] of Object.entries(obj)) {
      const sub = s.properties.get(k);
      if (sub) errs.push(...valueErrors(childPath(path, k), sub, v));
    }
  }
  return errs;
}
