// JSON merge patch (RFC 7386), as served for `application/merge-patch+json`.
//
// Safety rules on top of the RFC (the reference has no JS prototype to protect):
// - keys `__proto__`, `constructor` and `prototype` anywhere in the patch are refused
//   with 400 BadRequest, so a patch can never reach an object's prototype chain;
// - nesting deeper than MAX_JSON_DEPTH levels (in the patch or the target) is refused
//   with 400 BadRequest instead of exhausting the JS stack.
// The result shares no objects with either input, and neither input is modified.

import { MAX_JSON_DEPTH } from '../encoding/depth.js';
import { StatusError } from '../errors.js';
import { isObject, type JsonObject } from '../json.js';

/** Deepest nesting accepted in patches and the documents they apply to (every request body's bound). */
export { MAX_JSON_DEPTH };

/** Keys that could reach Object.prototype if written with ordinary assignment. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);


/** Sets an own data property, even for the key `__proto__` (which `obj[k] = v` would not). */
export function setOwn(obj: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

/**
 * Deep copy of a JSON value (own enumerable keys only). `tooDeep` builds the error thrown
 * when nesting goes past `maxDepth`; `onKey`, when given, sees every object key (with its
 * slash-separated location) before it is copied and may throw to refuse it.
 */
export function deepCopyJson(
  value: unknown,
  tooDeep: () => Error,
  maxDepth = MAX_JSON_DEPTH,
  onKey?: (key: string, at: string) => void,
  at = '',
): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (maxDepth <= 0) throw tooDeep();
  if (Array.isArray(value)) return value.map((v, i) => deepCopyJson(v, tooDeep, maxDepth - 1, onKey, `${at}/${i}`));
  const out: JsonObject = {};
  for (const k of Object.keys(value)) {
    onKey?.(k, `${at}/${k}`);
    setOwn(out, k, deepCopyJson((value as JsonObject)[k], tooDeep, maxDepth - 1, onKey, `${at}/${k}`));
  }
  return out;
}

function mergePatchError(why: string): StatusError {
  return new StatusError(400, 'BadRequest', `merge patch: ${why}`);
}

const tooDeep = (): StatusError => mergePatchError(`nesting depth exceeds the limit of ${MAX_JSON_DEPTH}`);

/** Applies `patch` to `target` per RFC 7386 and returns the new value. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  return merge(target, patch, 0, '');
}

function refuseKey(key: string, at: string): void {
  if (FORBIDDEN_KEYS.has(key)) throw mergePatchError(`key ${JSON.stringify(key)} is not allowed (at ${at})`);
}

// `depth` counts the object levels above `patch`; copies get the remaining budget.
function merge(target: unknown, patch: unknown, depth: number, at: string): unknown {
  if (!isObject(patch)) return deepCopyJson(patch, tooDeep, MAX_JSON_DEPTH - depth, refuseKey, at);
  if (depth >= MAX_JSON_DEPTH) throw tooDeep();
  const base = isObject(target) ? target : {};
  const out: JsonObject = {};
  const apply = (k: string): void => {
    const path = `${at}/${k}`;
    refuseKey(k, path);
    const v = patch[k];
    if (v === null) return; // null deletes (or simply does not add) the key
    setOwn(out, k, merge(Object.hasOwn(base, k) ? base[k] : undefined, v, depth + 1, path));
  };
  // Keys keep the target's order; keys new to the target follow in the patch's order.
  for (const k of Object.keys(base)) {
    if (Object.hasOwn(patch, k)) apply(k);
    else setOwn(out, k, deepCopyJson(base[k], tooDeep, MAX_JSON_DEPTH - depth - 1));
  }
  for (const k of Object.keys(patch)) if (!Object.hasOwn(base, k)) apply(k);
  return out;
}
