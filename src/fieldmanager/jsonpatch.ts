// JSON patch (RFC 6902), as kube-apiserver 1.25 applies `application/json-patch+json`.
//
// Answers, and how they relate to the reference:
// - body not a JSON array, or an element that is not an object: 400 BadRequest with Go's
//   decoding text (`json: cannot unmarshal object into Go value of type jsonpatch.Patch`).
//   A `null` body decodes, as in Go, to an empty patch (the document comes back unchanged).
// - more than MAX_JSON_PATCH_OPERATIONS operations: 413 RequestEntityTooLarge,
//   `Request entity too large: The allowed maximum operations in a JSON patch is 10000, got N`
//   (the reference's answer for this limit).
// - any failure while applying (failed `test`, missing path for remove/move/copy, index out
//   of range, unknown or malformed op, missing `value`/`from`, bad pointer, forbidden key,
//   nesting too deep, copies past MAX_JSON_PATCH_COPY_BYTES): 422 Invalid with the message `the server rejected our request due to
//   an error in our request`, the reference's generic text. A failed `test` answers exactly
//   as the reference does (`details: {}`); every other failure carries one cause whose
//   message says what went wrong (the reference answers some of these with a 500 instead).
//
// Reference semantics kept on purpose:
// - `replace` of a key missing from an object succeeds and adds the key (the parent must exist);
// - array indices may be negative, counting from the end (-1 is the last element; for `add`,
//   -1 appends), as the reference's json-patch library allows;
// - `-` names the end of an array for `add` (and for the target of `move`/`copy`).
// Pointer tokens `__proto__`, `constructor` and `prototype` are refused. Values are copied as
// plain JSON data; the input document and patch are never modified.

import { StatusError } from '../errors.js';
import { deepCopyJson, FORBIDDEN_KEYS, MAX_JSON_DEPTH, setOwn } from './mergepatch.js';
import { isObject, jsonEqual, type JsonObject } from '../json.js';

export const MAX_JSON_PATCH_OPERATIONS = 10000;

/**
 * Cap on the total (estimated JSON) size of the values `copy` operations duplicate in one
 * patch: without it, copying the document into itself doubles it per operation.
 */
export const MAX_JSON_PATCH_COPY_BYTES = 10 * 1024 * 1024;

export const JSON_PATCH_INVALID_MESSAGE = 'the server rejected our request due to an error in our request';

function testFailed(): StatusError {
  return new StatusError(422, 'Invalid', JSON_PATCH_INVALID_MESSAGE, {});
}

function patchInvalid(why: string): StatusError {
  return new StatusError(422, 'Invalid', JSON_PATCH_INVALID_MESSAGE, { causes: [{ message: why }] });
}

/** Go's name for the JSON type of `v`, as in its "cannot unmarshal X into …" errors. */
function goJsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v; // 'object' | 'string' | 'number'
}

type Container = JsonObject | unknown[];

class Op {
  constructor(
    readonly index: number,
    readonly raw: JsonObject,
  ) {}

  fail(why: string): StatusError {
    const op = typeof this.raw.op === 'string' ? this.raw.op : '?';
    return patchInvalid(`operation ${this.index} (${op}): ${why}`);
  }

  str(field: 'path' | 'from'): string {
    const v = this.raw[field];
    if (typeof v !== 'string') throw this.fail(v === undefined ? `missing "${field}"` : `"${field}" must be a string`);
    return v;
  }

  value(): unknown {
    if (!Object.hasOwn(this.raw, 'value')) throw this.fail('missing "value"');
    return deepCopyJson(this.raw.value, () => this.fail(`"value" is nested deeper than ${MAX_JSON_DEPTH} levels`));
  }

  pointer(field: 'path' | 'from'): string[] {
    const path = this.str(field);
    if (path === '') return [];
    if (!path.startsWith('/')) throw this.fail(`${field} ${JSON.stringify(path)} is not a JSON pointer (must be empty or start with '/')`);
    return path
      .slice(1)
      .split('/')
      .map((raw) => {
        if (/~(?![01])/.test(raw)) throw this.fail(`${field} ${JSON.stringify(path)} has an invalid '~' escape`);
        const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
        if (FORBIDDEN_KEYS.has(token)) throw this.fail(`${field} ${JSON.stringify(path)}: key ${JSON.stringify(token)} is not allowed`);
        return token;
      });
  }
}

/** Parses an array index token; negative counts from the end. `extra` is 1 when the end itself is addressable (add). */
function arrayIndex(op: Op, arr: unknown[], token: string, extra: 0 | 1): number {
  if (!/^-?[0-9]+$/.test(token)) throw op.fail(`${JSON.stringify(token)} is not an array index`);
  const size = arr.length + extra;
  let idx = Number(token);
  if (idx < 0) idx += size;
  if (idx < 0 || idx >= size) throw op.fail(`array index ${token} is out of range (length ${arr.length})`);
  return idx;
}

function child(op: Op, node: unknown, token: string): { found: boolean; value: unknown } {
  if (Array.isArray(node)) {
    const idx = arrayIndex(op, node, token, 0);
    return { found: true, value: node[idx] };
  }
  if (isObject(node)) return Object.hasOwn(node, token) ? { found: true, value: node[token] } : { found: false, value: undefined };
  throw op.fail(`cannot address ${JSON.stringify(token)} inside a ${goJsonType(node)} value`);
}

/** The container holding the last token of `tokens` (which must be non-empty). */
function parentOf(op: Op, root: unknown, tokens: string[], field: 'path' | 'from'): Container {
  let node = root;
  for (const token of tokens.slice(0, -1)) {
    const next = child(op, node, token);
    if (!next.found) throw op.fail(`${field} ${JSON.stringify(op.raw[field])} does not exist`);
    node = next.value;
  }
  if (!Array.isArray(node) && !isObject(node)) throw op.fail(`the parent of ${field} ${JSON.stringify(op.raw[field])} is not an object or array`);
  return node;
}

function get(op: Op, root: unknown, tokens: string[]): { found: boolean; value: unknown } {
  let node = root;
  for (const token of tokens) {
    const next = child(op, node, token);
    if (!next.found) return next;
    node = next.value;
  }
  return { found: true, value: node };
}

// Each operation takes the current root and returns the new root (the root changes only for
// whole-document pointers; otherwise containers are changed in place in the working copy).

function add(op: Op, root: unknown, tokens: string[], value: unknown): unknown {
  if (tokens.length === 0) return value;
  const parent = parentOf(op, root, tokens, 'path');
  const key = tokens[tokens.length - 1];
  if (Array.isArray(parent)) parent.splice(key === '-' ? parent.length : arrayIndex(op, parent, key, 1), 0, value);
  else setOwn(parent, key, value);
  return root;
}

function remove(op: Op, root: unknown, tokens: string[], field: 'path' | 'from'): unknown {
  if (tokens.length === 0) throw op.fail(`cannot remove the whole document`);
  const parent = parentOf(op, root, tokens, field);
  const key = tokens[tokens.length - 1];
  if (Array.isArray(parent)) parent.splice(arrayIndex(op, parent, key, 0), 1);
  else if (Object.hasOwn(parent, key)) delete parent[key];
  else throw op.fail(`${field} ${JSON.stringify(op.raw[field])} does not exist`);
  return root;
}

function replace(op: Op, root: unknown, tokens: string[], value: unknown): unknown {
  if (tokens.length === 0) return value;
  const parent = parentOf(op, root, tokens, 'path');
  const key = tokens[tokens.length - 1];
  if (Array.isArray(parent)) parent[arrayIndex(op, parent, key, 0)] = value;
  else setOwn(parent, key, value); // a missing key is added, as the reference does
  return root;
}

function existing(op: Op, root: unknown, tokens: string[], field: 'path' | 'from'): unknown {
  const got = get(op, root, tokens);
  if (!got.found) throw op.fail(`${field} ${JSON.stringify(op.raw[field])} does not exist`);
  return got.value;
}

/** Estimated JSON size of `v`; stops counting once past `limit`. */
function jsonSize(v: unknown, limit: number): number {
  if (typeof v === 'string') return v.length + 2;
  if (typeof v !== 'object' || v === null) return 8;
  let size = 2;
  if (Array.isArray(v)) {
    for (const x of v) if ((size += 1 + jsonSize(x, limit - size)) > limit) return size;
  } else {
    for (const [k, x] of Object.entries(v)) if ((size += k.length + 4 + jsonSize(x, limit - size)) > limit) return size;
  }
  return size;
}

interface PatchState {
  copiedBytes: number;
}

function applyOp(op: Op, root: unknown, state: PatchState): unknown {
  switch (op.raw.op) {
    case 'add':
      return add(op, root, op.pointer('path'), op.value());
    case 'remove':
      return remove(op, root, op.pointer('path'), 'path');
    case 'replace':
      return replace(op, root, op.pointer('path'), op.value());
    case 'move': {
      const from = op.pointer('from');
      const path = op.pointer('path');
      if (from.length === path.length && from.every((t, i) => t === path[i])) return root;
      if (from.length < path.length && from.every((t, i) => t === path[i])) throw op.fail('a value cannot be moved into one of its own children');
      const value = existing(op, root, from, 'from');
      return add(op, remove(op, root, from, 'from'), path, value);
    }
    case 'copy': {
      const source = existing(op, root, op.pointer('from'), 'from');
      state.copiedBytes += jsonSize(source, MAX_JSON_PATCH_COPY_BYTES - state.copiedBytes);
      if (state.copiedBytes > MAX_JSON_PATCH_COPY_BYTES) throw op.fail(`copied values exceed the limit of ${MAX_JSON_PATCH_COPY_BYTES} bytes per patch`);
      const value = deepCopyJson(source, () => op.fail(`value is nested deeper than ${MAX_JSON_DEPTH} levels`));
      return add(op, root, op.pointer('path'), value);
    }
    case 'test': {
      const tokens = op.pointer('path');
      const expected = op.value();
      const got = get(op, root, tokens);
      if (!got.found || !jsonEqual(got.value, expected)) throw testFailed();
      return root;
    }
    default:
      throw op.fail(op.raw.op === undefined ? 'missing "op"' : `unknown op ${JSON.stringify(op.raw.op)}`);
  }
}

/** Applies a JSON patch (the parsed request body) to `doc` and returns the new document. */
export function applyJsonPatch(doc: unknown, patch: unknown): unknown {
  if (patch === null) patch = [];
  if (!Array.isArray(patch)) throw new StatusError(400, 'BadRequest', `json: cannot unmarshal ${goJsonType(patch)} into Go value of type jsonpatch.Patch`);
  for (const el of patch) {
    if (el !== null && !isObject(el)) throw new StatusError(400, 'BadRequest', `json: cannot unmarshal ${goJsonType(el)} into Go value of type jsonpatch.Operation`);
  }
  if (patch.length > MAX_JSON_PATCH_OPERATIONS) {
    throw new StatusError(413, 'RequestEntityTooLarge', `Request entity too large: The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${patch.length}`);
  }
  let root = deepCopyJson(doc, () => patchInvalid(`the document is nested deeper than ${MAX_JSON_DEPTH} levels`));
  const state: PatchState = { copiedBytes: 0 };
  patch.forEach((raw, i) => {
    root = applyOp(new Op(i, (raw ?? {}) as JsonObject), root, state);
  });
  // Adds at deep paths can nest values past the limit; refuse a result nobody could serialize.
  if (depthExceeds(root, MAX_JSON_DEPTH)) throw patchInvalid(`the patched document is nested deeper than ${MAX_JSON_DEPTH} levels`);
  return root;
}

/** Whether containers nest more than `max` levels deep (iterative, so any depth is safe). */
function depthExceeds(root: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[root, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > max) return true;
    for (const v of Array.isArray(node) ? node : Object.values(node)) stack.push([v, depth + 1]);
  }
  return false;
}
