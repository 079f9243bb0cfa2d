// How the reference prints values and paths in the errors of custom resources: decoded JSON
// holds int64 for integral numbers and float64 otherwise, field errors print simple values with
// %v/%q and structured ones with %#v; field paths are `a.b`, `a[0]`, `a[key]`.
import { goFloat } from '../../encoding/go-format.js';
import { type FieldError, goQuote } from '../../errors.js';
import { isObject } from '../../json.js';

/** %v of a decoded number: int64 when integral, float64 otherwise. */
export function goNumber(v: number): string {
  return Number.isInteger(v) && Math.abs(v) < 2 ** 63 ? String(BigInt(v)) : goFloat(v);
}

/** %#v of a decoded value held in an interface{}. */
export function goSyntaxValue(v: unknown): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSyntaxValue).join(', ')}}`;
  const o = v as Record<string, unknown>;
  return `map[string]interface {}{${Object.keys(o).sort().map((k) => `${goQuote(k)}:${goSyntaxValue(o[k])}`).join(', ')}}`;
}

/** A field error's bad value as field.Error prints it: null, %v of numbers and bools, %q of strings, else %#v. */
export function badValue(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'boolean') return String(v);
  return goSyntaxValue(v);
}

/** field.Invalid with the value printed as the reference prints decoded JSON. */
export function invalidValue(field: string, value: unknown, why: string): FieldError {
  return { type: 'FieldValueInvalid', field, detail: `Invalid value: ${badValue(value)}: ${why}` };
}

/** field.TypeInvalid (its text reads "Invalid value" too). */
export function typeInvalid(field: string, value: unknown, why: string): FieldError {
  return { type: 'FieldValueTypeInvalid', field, detail: `Invalid value: ${badValue(value)}: ${why}` };
}

/** field.Duplicate with the value printed as decoded JSON. */
export function duplicateValue(field: string, value: unknown): FieldError {
  return { type: 'FieldValueDuplicate', field, detail: `Duplicate value: ${badValue(value)}` };
}

/** field.NotSupported: the value, then the supported values each quoted. */
export function notSupportedValue(field: string, value: unknown, supported: string[]): FieldError {
  const detail = `Unsupported value: ${badValue(value)}`;
  return { type: 'FieldValueNotSupported', field, detail: supported.length ? `${detail}: supported values: ${supported.map(goQuote).join(', ')}` : detail };
}

/** A child path: `a.b` (the root's children have no leading dot). */
export const childPath = (path: string, name: string): string => (path ? `${path}.${name}` : name);
/** A key path: `a[key]`. */
export const keyPath = (path: string, key: string): string => `${path}[${key}]`;
/** An index path: `a[0]`. */
export const indexPath = (path: string, i: number): string => `${path}[${i}]`;

/** Go's reflect.DeepEqual on decoded JSON (key order ignored, null ≠ absent). */
export function deepEqualJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqualJson(x, b[i]));
  if (!isObject(a) || !isObject(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && deepEqualJson(a[k], b[k]));
}
