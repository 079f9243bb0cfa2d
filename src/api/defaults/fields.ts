// Type-tolerant accessors for defaulting plain JSON. Defaulting runs before validation, so a
// field of the wrong type is left alone (validation reports it) and nothing here throws.
//
// The setters follow the reference's checks, which depend on the Go type of the field:
// a pointer is defaulted when nil (absent or null), a string when "" (Go decodes null to ""),
// a number when 0, a list or map when it has no items.
import { isObject, copyJson } from '../../json.js';

export type Obj = Record<string, unknown>;

function nil(v: unknown): boolean {
  return v === undefined || v === null;
}

/** A fresh copy of a default, so that no two objects share one. */
function fresh<T>(value: T): T {
  return typeof value === 'object' && value !== null ? copyJson(value) : value;
}

/** The object at `obj[key]`; undefined when absent or not an object. */
export function objectAt(obj: Obj, key: string): Obj | undefined {
  const v = obj[key];
  return isObject(v) ? v : undefined;
}

/**
 * The object at `obj[key]`, created empty when nil: a Go struct value (always written) or a
 * pointer the defaulter allocates. Undefined when the field holds something else.
 */
export function ensureObject(obj: Obj, key: string): Obj | undefined {
  if (nil(obj[key])) obj[key] = {};
  return objectAt(obj, key);
}

/** The objects in the list at `obj[key]` (other items and other types skipped). */
export function objectsAt(obj: Obj, key: string): Obj[] {
  const v = obj[key];
  return Array.isArray(v) ? v.filter(isObject) : [];
}

/** The object at a path of keys, without creating anything. */
export function objectAtPath(obj: Obj, ...keys: string[]): Obj | undefined {
  let cur: Obj | undefined = obj;
  for (const k of keys) {
    if (!cur) return undefined;
    cur = objectAt(cur, k);
  }
  return cur;
}

/** A pointer default, or the zero value Go writes for a field without omitempty. */
export function setIfNil(obj: Obj, key: string, value: unknown): void {
  if (nil(obj[key])) obj[key] = fresh(value);
}

/** A default for a string field, which Go checks against "". */
export function setIfEmpty(obj: Obj, key: string, value: string): void {
  if (nil(obj[key]) || obj[key] === '') obj[key] = value;
}

/** A default for a non-pointer number, which Go checks against 0. */
export function setIfZero(obj: Obj, key: string, value: number): void {
  if (nil(obj[key]) || obj[key] === 0) obj[key] = value;
}

/** A default for a list, which Go checks by length. */
export function setIfNoItems(obj: Obj, key: string, value: unknown[]): void {
  const v = obj[key];
  if (nil(v) || (Array.isArray(v) && v.length === 0)) obj[key] = fresh(value);
}

/** Whether a map field has no entries (absent, null, empty); a wrongly typed one counts as set. */
export function noEntries(v: unknown): boolean {
  return nil(v) || (isObject(v) && Object.keys(v).length === 0);
}

/** A copy of a map with entries, or undefined (Go's `len(m) == 0`). */
export function entriesOf(v: unknown): Obj | undefined {
  return isObject(v) && Object.keys(v).length > 0 ? copyJson(v) : undefined;
}

/** Go's ObjectMeta zero value: every field is omitempty, but a zero Time is written as null. */
export function zeroObjectMeta(holder: Obj, key = 'metadata'): void {
  const meta = ensureObject(holder, key);
  if (meta) setIfNil(meta, 'creationTimestamp', null);
}
