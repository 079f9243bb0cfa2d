// Validation of a custom resource's value against its CRD's schema, as kube-openapi's schema
// validator checks it and apiextensions-apiserver turns its results into field errors: paths
// such as `spec.replicas`, messages such as `spec.replicas in body should be greater than or
// equal to 1`, junctor failures reported at `<nil>` (the root's nil field path).
//
// Every check walks the schema, so recursion is bounded by the schema's depth (MAX_SCHEMA_DEPTH,
// checked when the CRD is written); the number of (schema, value) evaluations is bounded too,
// so that a schema with many junctors over a large value cannot stall the server.
import { type FieldError, fieldForbidden, fieldRequired, goQuote } from '../../errors.js';
import { goFloat } from '../../encoding/go-format.js';
import { isObject } from '../../json.js';
import { isSupportedFormat, matchesFormat } from './formats.js';
import { deepEqualJson, goNumber, invalidValue, notSupportedValue, typeInvalid } from './render.js';
import type { JSONSchemaProps } from './types.js';
import { compileGoPattern, type GoPattern } from './re2.js';

/** The most (schema node, value) evaluations one validation makes before giving up. */
export const MAX_VALIDATION_STEPS = 1_000_000;

/** One kube-openapi result, before it becomes a field error. */
interface Issue {
  kind: 'type' | 'required' | 'enum' | 'tooLong' | 'tooMany' | 'other' | 'composite';
  /** kube-openapi's path of the value (`spec.replicas`, `.extra` for additional properties at the root). */
  name: string;
  message: string;
  value?: unknown;
  /** enum: the allowed values; tooLong/tooMany: the limit. */
  values?: unknown[];
  limit?: number;
}

class BudgetExceeded extends Error {}

const IN = 'body';

/** The JSON type kube-openapi gives a decoded value (integral numbers are int64: "integer"). */
function jsonType(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return Array.isArray(v) ? 'array' : 'object';
}

/** The format kube-openapi derives from a value's Go type (int64, double) for the format check. */
function goFormatOf(v: unknown): string {
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'double';
  return '';
}

function typeMessage(name: string, type: string, value: string): string {
  return `${name} in ${IN} must be of type ${type}: ${goQuote(value)}`;
}

/** go-openapi's swag.IsFloat64AJSONInteger: integral within a relative epsilon of 1e-9. */
function isAlmostInteger(f: number): boolean {
  if (!Number.isFinite(f)) return false;
  const g = Math.trunc(f);
  if (f === g) return true;
  const diff = Math.abs(f - g);
  return diff / Math.min(Math.abs(f) + Math.abs(g), Number.MAX_VALUE) < 1e-9;
}

const regexCache = new Map<string, GoPattern | null>();

function compiled(pattern: string): GoPattern | null {
  let re = regexCache.get(pattern);
  if (re === undefined) {
    try {
      re = compileGoPattern(pattern);
    } catch {
      re = null;
    }
    if (regexCache.size > 10_000) regexCache.clear();
    regexCache.set(pattern, re);
  }
  return re;
}

/** Go's json.Marshal of an enum value (map keys sorted). */
function goJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(goJson).join(',')}]`;
  if (isObject(v)) return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${goJson(v[k])}`).join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

/** The length of a string in code points (a lone surrogate counts as one), as `[...text].length` without the array. */
function codePointLength(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++, n++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
  }
  return n;
}

class Validator {
  private steps = 0;

  /** The issues of `data` under `s`, added to `out` (a new list when not given); answers `out`. */
  validate(s: JSONSchemaProps, data: unknown, name: string, out: Issue[] = []): Issue[] {
    if (++this.steps > MAX_VALIDATION_STEPS) throw new BudgetExceeded();
    if (!isObject(s)) return out;
    const types = s['x-kubernetes-int-or-string'] === true ? ['integer', 'string'] : typeof s.type === 'string' && s.type ? [s.type] : [];
    // Formats kube-openapi does not check are dropped from the schema first.
    const format = typeof s.format === 'string' && isSupportedFormat(s.format) ? s.format : '';
    if (data === null || data === undefined) {
      if (types.length && !types.includes('null') && s.nullable !== true) {
        out.push({ kind: 'type', name, value: 'null', message: typeMessage(name, types.join(','), 'null') });
      }
      this.checkEnum(s, data, name, out);
      return out;
    }
    if (types.length || format) this.checkType(types, format, data, name, out);
    this.checkJunctors(s, data, name, out);
    if (typeof data === 'string') {
      this.checkString(s, data, name, out);
      if (format && !matchesFormat(format, data)) out.push({ kind: 'type', name, value: data, message: typeMessage(name, format, data) });
    }
    if (typeof data === 'number') this.checkNumber(s, data, name, out);
    if (Array.isArray(data)) this.checkArray(s, data, name, out);
    this.checkEnum(s, data, name, out);
    if (isObject(data)) this.checkObject(s, data, name, out);
    return out;
  }

  private checkType(types: string[], format: string, data: unknown, name: string, out: Issue[]): void {
    const t = jsonType(data);
    const isScalarish = typeof data !== 'string' && !Array.isArray(data);
    const intAsNumber = t === 'integer' && types.includes('number');
    if (isScalarish && format && !(types.includes(t) || goFormatOf(data) === format || intAsNumber)) {
      out.push({ kind: 'type', name, value: goFormatOf(data), message: typeMessage(name, format, goFormatOf(data)) });
      return;
    }
    if (!types.includes('number') && !types.includes('integer') && format && (typeof data === 'string' || Array.isArray(data))) return;
    if (!(types.includes(t) || intAsNumber)) out.push({ kind: 'type', name, value: t, message: typeMessage(name, types.join(','), t) });
  }

  private checkJunctors(s: JSONSchemaProps, data: unknown, name: string, out: Issue[]): void {
    const anyOf = Array.isArray(s.anyOf) ? s.anyOf : [];
    if (anyOf.length) {
      let best: Issue[] | undefined;
      let ok = false;
      for (const branch of anyOf) {
        const r = this.validate(branch, data, name);
        if (r.length === 0) {
          ok = true;
          break;
        }
        if (!best || r.length < best.length) best = r;
      }
      if (!ok) {
        out.push({ kind: 'composite', name, message: `${goQuote(name)} must validate at least one schema (anyOf)` });
        out.push(...(best ?? []));
      }
    }
    const oneOf = Array.isArray(s.oneOf) ? s.oneOf : [];
    if (oneOf.length) {
      let valid = 0;
      let best: Issue[] | undefined;
      for (const branch of oneOf) {
        const r = this.validate(branch, data, name);
        if (r.length === 0) valid++;
        else if (valid === 0 && (!best || r.length < best.length)) best = r;
      }
      if (valid !== 1) {
        const more = valid === 0 ? 'Found none valid' : `Found ${valid} valid alternatives`;
        out.push({ kind: 'composite', name, message: `${goQuote(name)} must validate one and only one schema (oneOf). ${more}` });
        if (valid === 0) out.push(...(best ?? []));
      }
    }
    const allOf = Array.isArray(s.allOf) ? s.allOf : [];
    if (allOf.length) {
      let valid = 0;
      for (const branch of allOf) {
        const r = this.validate(branch, data, name);
        if (r.length === 0) valid++;
        out.push(...r);
      }
      if (valid !== allOf.length) {
        out.push({ kind: 'composite', name, message: `${goQuote(name)} must validate all the schemas (allOf)${valid === 0 ? '. None validated' : ''}` });
      }
    }
    if (isObject(s.not) && this.validate(s.not as JSONSchemaProps, data, name).length === 0) {
      out.push({ kind: 'composite', name, message: `${goQuote(name)} must not validate the schema (not)` });
    }
  }

  private checkString(s: JSONSchemaProps, data: string, name: string, out: Issue[]): void {
    const length = typeof s.maxLength === 'number' || typeof s.minLength === 'number' ? codePointLength(data) : 0;
    if (typeof s.maxLength === 'number' && length > s.maxLength) {
      out.push({ kind: 'tooLong', name, value: data, limit: s.maxLength, message: `${name} in ${IN} should be at most ${s.maxLength} chars long` });
      return;
    }
    if (typeof s.minLength === 'number' && length < s.minLength) {
      out.push({ kind: 'other', name, value: data, message: `${name} in ${IN} should be at least ${s.minLength} chars long` });
      return;
    }
    if (typeof s.pattern === 'string' && s.pattern !== '') {
      const re = compiled(s.pattern);
      if (re === null) out.push({ kind: 'other', name, value: data, message: `${name} in ${IN} should match '${s.pattern}, but pattern is invalid'` });
      else if (!re.test(data)) out.push({ kind: 'other', name, value: data, message: `${name} in ${IN} should match '${s.pattern}'` });
    }
  }

  private checkNumber(s: JSONSchemaProps, data: number, name: string, out: Issue[]): void {
    const isInt = Number.isInteger(data);
    // An int64 value is compared with the bound truncated to int64 and printed so; a float64 with %v.
    const bound = (b: number) => (isInt ? String(Math.trunc(b)) : goFloat(b));
    if (typeof s.multipleOf === 'number') {
      const f = isInt ? Math.trunc(s.multipleOf) : s.multipleOf;
      if (f < 0) out.push({ kind: 'other', name, value: s.multipleOf, message: `factor MultipleOf declared for ${name} must be positive: ${isInt ? String(f) : goFloat(f)}` });
      else if (f !== 0 && !(isInt ? data % f === 0 : isAlmostInteger(f < 1 ? (1 / f) * data : data / f))) {
        out.push({ kind: 'other', name, value: data, message: `${name} in ${IN} should be a multiple of ${bound(s.multipleOf)}` });
      }
    }
    if (typeof s.minimum === 'number') {
      const min = isInt ? Math.trunc(s.minimum) : s.minimum;
      const exclusive = s.exclusiveMinimum === true;
      if (exclusive ? data <= min : data < min) {
        out.push({ kind: 'other', name, value: data, message: `${name} in ${IN} should be greater than ${exclusive ? '' : 'or equal to '}${bound(s.minimum)}` });
      }
    }
    if (typeof s.maximum === 'number') {
      const max = isInt ? Math.trunc(s.maximum) : s.maximum;
      const exclusive = s.exclusiveMaximum === true;
      if (exclusive ? data >= max : data > max) {
        out.push({ kind: 'other', name, value: data, message: `${name} in ${IN} should be less than ${exclusive ? '' : 'or equal to '}${bound(s.maximum)}` });
      }
    }
  }

  private checkArray(s: JSONSchemaProps, data: unknown[], name: string, out: Issue[]): void {
    if (isObject(s.items)) {
      const items = s.items as JSONSchemaProps;
      for (let i = 0; i < data.length; i++) this.validate(items, data[i], `${name}[${i}]`, out);
    }
    if (typeof s.minItems === 'number' && data.length < s.minItems) {
      out.push({ kind: 'other', name, value: data.length, message: `${name} in ${IN} should have at least ${s.minItems} items` });
    }
    if (typeof s.maxItems === 'number' && data.length > s.maxItems) {
      out.push({ kind: 'tooMany', name, value: data.length, limit: s.maxItems, message: `${name} in ${IN} should have at most ${s.maxItems} items` });
    }
    if (s.uniqueItems === true && data.some((v, i) => data.slice(0, i).some((u) => deepEqualJson(u, v)))) {
      out.push({ kind: 'other', name, value: '', message: `${name} in ${IN} shouldn't contain duplicates` });
    }
  }

  private checkEnum(s: JSONSchemaProps, data: unknown, name: string, out: Issue[]): void {
    if (!Array.isArray(s.enum) || s.enum.length === 0) return;
    // A null value matches nothing (kube-openapi compares by Go type, and nil has none).
    if (data !== null && data !== undefined && s.enum.some((e) => deepEqualJson(e, data))) return;
    out.push({ kind: 'enum', name, value: data, values: s.enum, message: `${name} in ${IN} should be one of ${goJson(s.enum)}` });
  }

  private checkObject(s: JSONSchemaProps, data: Record<string, unknown>, name: string, out: Issue[]): void {
    const size = Object.keys(data).length;
    if (typeof s.minProperties === 'number' && size < s.minProperties) {
      out.push({ kind: 'other', name, value: size, message: `${name} in ${IN} should have at least ${s.minProperties} properties` });
      return;
    }
    if (typeof s.maxProperties === 'number' && size > s.maxProperties) {
      out.push({ kind: 'tooMany', name, value: size, limit: s.maxProperties, message: `${name} in ${IN} should have at most ${s.maxProperties} properties` });
      return;
    }
    const properties = isObject(s.properties) ? (s.properties as Record<string, JSONSchemaProps>) : undefined;
    const declared = (k: string) => properties !== undefined && Object.hasOwn(properties, k);
    if (s.additionalProperties === false) {
      for (const k of Object.keys(data)) {
        if (!declared(k)) out.push({ kind: 'other', name, value: k, message: `${name}.${k} in ${IN} is a forbidden property` });
      }
    } else if (isObject(s.additionalProperties)) {
      const ap = s.additionalProperties as JSONSchemaProps;
      for (const k of Object.keys(data)) if (!declared(k)) this.validate(ap, data[k], `${name}.${k}`, out);
    }
    if (properties) {
      for (const p in properties) {
        if (Object.hasOwn(properties, p) && Object.hasOwn(data, p)) this.validate(properties[p]!, data[p], name ? `${name}.${p}` : p, out);
      }
    }
    for (const k of Array.isArray(s.required) ? s.required : []) {
      if (!Object.hasOwn(data, k)) out.push({ kind: 'required', name: `${name}.${k}`, message: `${name}.${k} in ${IN} is required` });
    }
  }
}

/** The field of an issue: the base path (nil when undefined) and the value's path. */
function fieldOf(base: string | undefined, name: string): string {
  const rel = name.startsWith('.') ? name.slice(1) : name;
  if (rel === '' || name === '.') return base ?? '<nil>';
  return base ? `${base}.${rel}` : rel;
}

function toFieldError(issue: Issue, base: string | undefined): FieldError {
  const field = fieldOf(base, issue.name);
  switch (issue.kind) {
    case 'required':
      return fieldRequired(field);
    case 'enum':
      return notSupportedValue(field, issue.value, (issue.values ?? []).map((v) => (typeof v === 'string' ? v : goJson(v))));
    case 'tooLong':
      return { type: 'FieldValueTooLong', field, detail: `Too long: may not be longer than ${issue.limit}` };
    case 'tooMany':
      return { type: 'FieldValueTooMany', field, detail: `Too many: ${goNumber(Number(issue.value))}: must have at most ${issue.limit} items` };
    case 'type':
      return typeInvalid(field, issue.value ?? '', issue.message);
    case 'composite':
      return invalidValue(base ?? '<nil>', '', issue.message);
    default:
      return invalidValue(field, issue.value ?? '', issue.message);
  }
}

/**
 * ValidateCustomResource: `value` against `schema` (a CRD version's openAPIV3Schema, or a part of
 * it), errors at paths under `basePath` (undefined: the reference's nil path, whose own errors
 * print as `<nil>`). Checks type, format, enum, pattern, bounds, lengths, items, properties,
 * required, additionalProperties and allOf/anyOf/oneOf/not.
 */
export function validateValue(value: unknown, schema: JSONSchemaProps, basePath?: string): FieldError[] {
  try {
    return new Validator().validate(schema, value, '').map((i) => toFieldError(i, basePath));
  } catch (e) {
    if (!(e instanceof BudgetExceeded)) throw e;
    return [fieldForbidden(basePath ?? '<nil>', `validation stopped after ${MAX_VALIDATION_STEPS} schema evaluations`)];
  }
}
