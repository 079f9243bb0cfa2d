// Custom resource values (decoded JSON) as CEL values typed by the schema: integers as BigInt
// (CEL int), numbers as double, format byte as bytes, date/date-time as timestamps, maps as Map,
// objects as instances of their object type's class with escaped field names; deep equality of
// such values for `==` on object types.
import { isObject } from '../../json.js';
import type { DeclType } from './decl.js';

/** The base of the classes that stand for schema object types in CEL. */
export class CelObject {}

export type ObjectClasses = Map<string, new () => CelObject>;

/** A class per object type name (a class whose name is the type's, for cel-js's messages). */
export function objectClass(typeName: string): new () => CelObject {
  return { [typeName]: class extends CelObject {} }[typeName]!;
}

/** A value of unknown type (int-or-string, dyn): integral numbers become int. */
function dynValue(v: unknown): unknown {
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(dynValue);
  if (isObject(v)) return new Map(Object.entries(v).map(([k, x]) => [k, dynValue(x)]));
  return v;
}

/** `v` as the CEL value of type `t`. Values that do not fit their type are passed on as dyn. */
export function toCel(v: unknown, t: DeclType, classes: ObjectClasses): unknown {
  if (v === null || v === undefined) return null;
  switch (t.kind) {
    case 'scalar':
      switch (t.cel) {
        case 'int': return typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : dynValue(v);
        case 'double': return typeof v === 'number' ? v : dynValue(v);
        case 'bytes': return typeof v === 'string' ? new Uint8Array(Buffer.from(v, 'base64')) : dynValue(v);
        case 'google.protobuf.Timestamp': {
          const d = typeof v === 'string' ? new Date(v) : undefined;
          return d && !Number.isNaN(d.getTime()) ? d : dynValue(v);
        }
        default: return dynValue(v);
      }
    case 'list': return Array.isArray(v) ? v.map((x) => toCel(x, t.items, classes)) : dynValue(v);
    case 'map': return isObject(v) ? new Map(Object.entries(v).map(([k, x]) => [k, toCel(x, t.values, classes)])) : dynValue(v);
    case 'object': {
      if (!isObject(v)) return dynValue(v);
      const Cls = classes.get(t.typeName)!;
      const o = new Cls() as Record<string, unknown>;
      for (const [escaped, f] of t.fields) if (Object.hasOwn(v, f.name)) o[escaped] = toCel(v[f.name], f.type, classes);
      return o;
    }
  }
}

/** CEL equality of two converted values (object fields and map entries in any order). */
export function celEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'number' && typeof b === 'number') return a === b;
  if (a instanceof Uint8Array && b instanceof Uint8Array) return a.length === b.length && a.every((x, i) => x === b[i]);
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => celEqual(x, b[i]));
  if (a instanceof Map && b instanceof Map) {
    if (a.size !== b.size) return false;
    for (const [k, x] of a) if (!b.has(k) || !celEqual(x, b.get(k))) return false;
    return true;
  }
  if (a instanceof CelObject && b instanceof CelObject && a.constructor === b.constructor) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    const ra = a as Record<string, unknown>;
    const rb = b as Record<string, unknown>;
    return ka.every((k) => Object.hasOwn(rb, k) && celEqual(ra[k], rb[k]));
  }
  return false;
}
