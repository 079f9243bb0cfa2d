// The ground floor: plain JSON values as every layer handles them. Objects are parsed JSON
// (no prototypes of interest, no undefined from the wire), so these helpers stay small.

export type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Deep equality of JSON values, key order ignored. A field set to undefined counts as absent;
 * with `nullIsAbsent`, so does a field set to null (the field manager's view, where Go's zero
 * value and an omitted field are the same).
 */
export function jsonEqual(a: unknown, b: unknown, nullIsAbsent = false): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i], nullIsAbsent)) return false;
    return true;
  }
  if (!isObject(a) || !isObject(b)) return false;
  // Counted with for-in, no arrays of keys made: writes compare whole objects (a pod's spec at each update).
  let present = 0;
  for (const k in a) {
    const v = a[k];
    if (v === undefined || (nullIsAbsent && v === null)) continue;
    if (!Object.hasOwn(b, k) || !jsonEqual(v, b[k], nullIsAbsent)) return false;
    present++;
  }
  for (const k in b) {
    const v = b[k];
    if (v !== undefined && !(nullIsAbsent && v === null)) present--;
  }
  return present === 0;
}

/** A time as metav1.Time writes it: RFC 3339 at second precision, in UTC (now by default). */
export function rfc3339(time: Date | number = Date.now()): string {
  const ms = typeof time === 'number' ? time : time.getTime();
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

let nowSecond = Number.NaN;
let nowText = '';

/** The current time as metav1.Time writes it (made once per second: writes ask for it several times each). */
export function now(): string {
  const second = Math.floor(Date.now() / 1000);
  if (second !== nowSecond) {
    nowText = rfc3339(second * 1000);
    nowSecond = second;
  }
  return nowText;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** A string as Go's decoders read it: each lone UTF-16 surrogate (an escape `\\ud800` in JSON) is U+FFFD. */
export function wellFormed(s: string): string {
  return s.replace(LONE_SURROGATE, '\uFFFD');
}

export function decodeJson(bytes: Buffer): JsonObject {
  return JSON.parse(bytes.toString('utf8')) as JsonObject;
}

/** `v` and everything in it frozen (what is frozen already is taken as frozen through): for values shared by readers who must not change them. */
export function deepFreeze<T>(v: T): T {
  if (typeof v !== 'object' || v === null || Object.isFrozen(v)) return v;
  // Indexes and for-in rather than Object.values: no array made per object (JSON values have no
  // enumerable inherited keys).
  if (Array.isArray(v)) for (let i = 0; i < v.length; i++) deepFreeze(v[i]);
  else for (const k in v) deepFreeze(v[k]);
  return Object.freeze(v);
}

/**
 * A JSON value's deep copy: its objects and arrays new, down to the leaves. Several times as fast
 * as structuredClone (a Lease 0.8 against 7 µs, a Deployment of 50 KB 29 against 186 µs), which
 * serializes the value and reads it back. Keys by for-in, as deepFreeze: JSON values have no
 * enumerable inherited keys.
 */
export function copyJson<T>(v: T): T {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) {
    const out: unknown[] = v.slice();
    for (let i = 0; i < out.length; i++) out[i] = copyJson(out[i]);
    return out as T;
  }
  const from = v as JsonObject;
  const out: JsonObject = {};
  for (const k in from) {
    // '__proto__' stays a key of its own, as JSON.parse makes it (assigned, it would set the prototype).
    if (k === '__proto__') Object.defineProperty(out, k, { value: copyJson(from[k]), enumerable: true, writable: true, configurable: true });
    else out[k] = copyJson(from[k]);
  }
  return out as T;
}

export function encodeJson(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value));
}
