// Shared pieces of the per-type validators: JSON access, the reference's field paths, and the
// checks many types share (names, ports, IPs, enumerations, immutability).
import { isIP } from 'node:net';
import { type FieldError, fieldInvalid, fieldNotSupported, fieldRequired } from '../../errors.js';
import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, validateObjectName } from '../names.js';
import { goValue } from './go-syntax.js';
import { isObject } from '../../json.js';

export type Obj = Record<string, unknown>;

/** The value as an object; absent or malformed values read as empty (type errors are the decoder's). */
export const obj = (v: unknown): Obj => (isObject(v) ? v : {});
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const objs = (v: unknown): Obj[] => arr(v).map(obj);
export const str = (v: unknown): string => (typeof v === 'string' ? v : '');
export const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
/** Set in the JSON (a Go pointer that is not nil, a slice or map that is not nil). */
export const present = (v: unknown): boolean => v !== undefined && v !== null;
export const strings = (v: unknown): string[] => arr(v).map(str);
/** Map entries with string values (labels, selectors, data). */
export const entries = (v: unknown): Array<[string, unknown]> => Object.entries(obj(v));

// Field paths as the reference prints them: a.b, a[0], a[key].
export const child = (path: string, ...names: string[]): string => names.reduce((p, n) => (p ? `${p}.${n}` : n), path);
export const index = (path: string, i: number): string => `${path}[${i}]`;
export const key = (path: string, k: string): string => `${path}[${k}]`;

export const invalidAll = (field: string, value: unknown, messages: string[]): FieldError[] => messages.map((m) => fieldInvalid(field, value, m));

/** An Invalid error whose value is already rendered as the reference renders it (Go syntax). */
export function invalidRendered(field: string, rendered: string, why: string): FieldError {
  return { type: 'FieldValueInvalid', field, detail: `Invalid value: ${rendered}: ${why}` };
}

export const dnsLabel = (value: string, field: string): FieldError[] => invalidAll(field, value, isDNS1123Label(value));
export const dnsSubdomain = (value: string, field: string): FieldError[] => invalidAll(field, value, isDNS1123Subdomain(value));
export const dns1035Label = (value: string, field: string): FieldError[] => invalidAll(field, value, isDNS1035Label(value));
export const qualifiedName = (value: string, field: string): FieldError[] => invalidAll(field, value, isQualifiedName(value));
/** An object name referenced from another object, validated as the referenced type's names are. */
export const subdomainName = (value: string, field: string, prefix = false): FieldError[] => invalidAll(field, value, validateObjectName('subdomain', value, prefix));

export const inclusiveRange = (lo: number, hi: number): string => `must be between ${lo} and ${hi}, inclusive`;
export const NON_NEGATIVE = 'must be greater than or equal to 0';
export const IMMUTABLE = 'field is immutable';

export function nonNegative(value: unknown, field: string): FieldError[] {
  return typeof value === 'number' && value < 0 ? [fieldInvalid(field, value, NON_NEGATIVE)] : [];
}

export const isValidPortNum = (port: number): string[] => (Number.isInteger(port) && port >= 1 && port <= 65535 ? [] : [inclusiveRange(1, 65535)]);

/** IANA_SVC_NAME: at most 15 characters, lowercase alphanumerics and single inner hyphens, at least one letter. */
export function isValidPortName(name: string): string[] {
  const errs: string[] = [];
  if (name.length > 15) errs.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(name)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(name)) errs.push('must contain at least one letter (a-z)');
  if (name.includes('--')) errs.push('must not contain consecutive hyphens');
  if (name.length > 0 && (name.startsWith('-') || name.endsWith('-'))) errs.push('must not begin or end with a hyphen');
  return errs;
}

/** An IntOrString port: a number in range, or an IANA service name. */
export function portNumOrName(port: unknown, field: string): FieldError[] {
  if (typeof port === 'string') return invalidAll(field, port, isValidPortName(port));
  const n = typeof port === 'number' ? port : 0;
  return invalidAll(field, n, isValidPortNum(n));
}

export const IP_MESSAGE = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';
export const isValidIP = (value: string): boolean => isIP(value) !== 0;
export const ipErrors = (value: string, field: string): FieldError[] => (isValidIP(value) ? [] : [fieldInvalid(field, value, IP_MESSAGE)]);

/** CIDR notation (a.b.c.d/n or v6/n), as net.ParseCIDR accepts it. */
export function isValidCIDR(value: string): boolean {
  const slash = value.indexOf('/');
  if (slash < 0) return false;
  const ip = value.slice(0, slash);
  const bits = value.slice(slash + 1);
  const family = isIP(ip);
  if (family === 0 || !/^\d+$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}

/**
 * An enumerated string field. `defaulted` fields get a value from the reference's defaulting when
 * absent, so their absence is not reported here (the defaulting fills them before validation).
 */
export function enumField(value: unknown, field: string, supported: string[], options: { defaulted?: boolean } = {}): FieldError[] {
  if (value === undefined || value === null || value === '') {
    return options.defaulted ? [] : [fieldRequired(field)];
  }
  return supported.includes(String(value)) ? [] : [fieldNotSupported(field, value, supported)];
}

/**
 * apimachinery's semantic equality on JSON: absent, null, empty lists and empty maps are equal
 * (Go's nil and empty slices and maps), other values compare structurally.
 */
export function semanticEqual(a: unknown, b: unknown): boolean {
  const blank = (v: unknown) => v === undefined || v === null || (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0);
  if (blank(a) && blank(b)) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => semanticEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) if (!semanticEqual(a[k], b[k])) return false;
    return true;
  }
  return a === b;
}

/** ValidateImmutableField: the new value, rendered as the reference renders it, when it changed. */
export function immutable(next: unknown, old: unknown, field: string, goType?: string): FieldError[] {
  if (semanticEqual(next, old)) return [];
  return [invalidRendered(field, goValue(next, goType), IMMUTABLE)];
}
