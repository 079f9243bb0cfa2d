// Strategic merge patch (`application/strategic-merge-patch+json`).
//
// Maps merge key by key (null deletes a key). Lists are replaced, unless the field's
// `x-kubernetes-patch-strategy` says `merge`: lists of objects then merge item by item on
// `x-kubernetes-patch-merge-key`, lists of scalars become the union. Directives:
//   $patch: replace | delete | merge          in a map, or as a list item
//   $retainKeys: [keys]                       keep only these keys of the map
//   $setElementOrder/<list>: [...]            order of the merged list
//   $deleteFromPrimitiveList/<list>: [...]    values to take out of a list of scalars
// Keys `__proto__`, `constructor` and `prototype` are refused and nesting is bounded.
// Neither input is modified; the result shares nothing with them.

import { StatusError } from '../errors.js';
import { FORBIDDEN_KEYS, MAX_JSON_DEPTH, deepCopyJson, setOwn } from './mergepatch.js';
import { isObject, type JsonObject } from '../json.js';
import { type GroupVersionKind, type SchemaNode, UNSTRUCTURED, UNTYPED, schemaFor } from '../api/schema.js';

const PATCH = '$patch';
const RETAIN_KEYS = '$retainKeys';
const SET_ORDER = '$setElementOrder/';
const DELETE_PRIMITIVE = '$deleteFromPrimitiveList/';

function badRequest(msg: string): StatusError {
  return new StatusError(400, 'BadRequest', msg);
}

function unprocessable(msg: string): StatusError {
  return new StatusError(422, 'Invalid', 'the server rejected our request due to an error in our request', { causes: [{ message: msg }] });
}

const tooDeep = (): StatusError => badRequest(`strategic merge patch: nesting depth exceeds the limit of ${MAX_JSON_DEPTH}`);

function refuseKey(key: string): void {
  if (FORBIDDEN_KEYS.has(key)) throw badRequest(`strategic merge patch: key ${JSON.stringify(key)} is not allowed`);
}

function copy(v: unknown, depth: number): unknown {
  return deepCopyJson(v, tooDeep, MAX_JSON_DEPTH - depth, (k) => refuseKey(k));
}

/** Go's %v of a value, roughly, for error messages. */
function goValue(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (isObject(v)) return `map[${Object.keys(v).sort().map((k) => `${k}:${goValue(v[k])}`).join(' ')}]`;
  if (v === null || v === undefined) return '<nil>';
  return String(v);
}

function strategyOf(node: SchemaNode | undefined): string[] {
  return node?.patchStrategy ? node.patchStrategy.split(',') : [];
}

function child(node: SchemaNode, key: string): SchemaNode {
  if (node.kind === 'struct' || node.kind === 'map' || node.kind === 'unstructured') return node.field(key) ?? UNTYPED;
  return UNSTRUCTURED;
}

/** Strategic merge patch of `original` by `patch`, using the schema of gvk. */
export function applyStrategicMergePatch(gvk: GroupVersionKind, original: Record<string, unknown>, patch: unknown): Record<string, unknown> {
  if (!isObject(patch)) throw badRequest('invalid JSON document');
  const schema = schemaFor(gvk);
  const base = isObject(original) ? (copy(original, 0) as JsonObject) : {};
  const out = mergeMap(base, patch, schema, 0);
  return out ?? {};
}

/** Merges patch map into the original (already a private copy); undefined = deleted. */
function mergeMap(original: JsonObject, patch: JsonObject, node: SchemaNode, depth: number): JsonObject | undefined {
  if (depth >= MAX_JSON_DEPTH) throw tooDeep();
  for (const k of Object.keys(patch)) refuseKey(k);
  const directive = patch[PATCH];
  if (directive !== undefined) {
    if (directive === 'delete') return undefined;
    if (directive === 'replace') {
      const r: JsonObject = {};
      for (const [k, v] of Object.entries(patch)) {
        if (k === PATCH) continue;
        if (v === null) continue;
        setOwn(r, k, stripDirectives(v, depth + 1));
      }
      return r;
    }
    if (directive !== 'merge') throw badRequest(`unknown patch type: ${goValue(directive)} in map: ${goValue(patch)}`);
  }

  let result = original;
  const retain = patch[RETAIN_KEYS];
  if (retain !== undefined) {
    if (!Array.isArray(retain) || retain.some((x) => typeof x !== 'string')) throw badRequest('invalid patch format of retainKeys');
    const keep = new Set(retain as string[]);
    for (const k of Object.keys(patch)) {
      if (k.startsWith('$') || patch[k] === null) continue;
      if (!keep.has(k)) throw unprocessable("patch content doesn't match retainKeys list");
    }
    const r: JsonObject = {};
    for (const k of Object.keys(result)) if (keep.has(k)) setOwn(r, k, result[k]);
    result = r;
  }

  // $deleteFromPrimitiveList/<field> first, then the fields, then $setElementOrder/<field>.
  for (const [k, v] of Object.entries(patch)) {
    if (!k.startsWith(DELETE_PRIMITIVE)) continue;
    const field = k.slice(DELETE_PRIMITIVE.length);
    if (!Array.isArray(v)) throw badRequest('invalid patch format of primitive list');
    const cur = result[field];
    if (Array.isArray(cur)) {
      const drop = v.map((x) => JSON.stringify(x));
      const kept = cur.filter((x) => !drop.includes(JSON.stringify(x)));
      setOwn(result, field, kept);
    }
  }

  // The live lists a $setElementOrder orders, as they were before the patch.
  const liveLists = new Map<string, unknown[]>();
  for (const k of Object.keys(patch)) {
    if (!k.startsWith(SET_ORDER)) continue;
    const live = result[k.slice(SET_ORDER.length)];
    liveLists.set(k, Array.isArray(live) ? live : []);
  }

  for (const [k, v] of Object.entries(patch)) {
    if (k === PATCH || k === RETAIN_KEYS || k.startsWith(SET_ORDER) || k.startsWith(DELETE_PRIMITIVE)) continue;
    if (k.startsWith('$')) throw badRequest(`strategic merge patch: unknown directive ${JSON.stringify(k)}`);
    if (v === null) {
      delete result[k];
      continue;
    }
    const fieldNode = child(node, k);
    const cur = Object.hasOwn(result, k) ? result[k] : undefined;
    const merged = mergeValue(cur, v, fieldNode, depth + 1);
    if (merged === undefined) delete result[k];
    else setOwn(result, k, merged);
  }

  for (const [k, v] of Object.entries(patch)) {
    if (!k.startsWith(SET_ORDER)) continue;
    const field = k.slice(SET_ORDER.length);
    if (!Array.isArray(v)) throw badRequest('invalid patch format of setElementOrder list');
    const cur = result[field];
    if (Array.isArray(cur)) setOwn(result, field, setElementOrder(cur, v, liveLists.get(k)!, child(node, field)));
  }
  return result;
}

function mergeValue(cur: unknown, patch: unknown, node: SchemaNode, depth: number): unknown {
  if (depth >= MAX_JSON_DEPTH) throw tooDeep();
  const strategy = strategyOf(node);
  if (isObject(patch)) {
    if (strategy.includes('replace')) return stripDirectives(patch, depth);
    if (isObject(cur)) return mergeMap(cur, patch, node, depth);
    return mergeMap({}, patch, node, depth);
  }
  if (Array.isArray(patch)) {
    if (strategy.includes('merge')) return mergeList(Array.isArray(cur) ? cur : [], patch, node, depth);
    return replaceList(patch, depth);
  }
  return patch;
}

function replaceList(patch: unknown[], depth: number): unknown[] {
  // A `{"$patch": "replace"}` item is meaningless outside merge lists; other items are copied
  // without their directives.
  const out: unknown[] = [];
  for (const item of patch) {
    if (isObject(item) && item[PATCH] !== undefined && Object.keys(item).length === 1) continue;
    if (Array.isArray(item)) throw unprocessable('lists of lists are not supported');
    out.push(stripDirectives(item, depth + 1));
  }
  return out;
}

function mergeList(cur: unknown[], patch: unknown[], node: SchemaNode, depth: number): unknown[] {
  const mergeKey = node.mergeKey;
  const itemNode = node.kind === 'list' ? node.items() : UNSTRUCTURED;
  const objects = patch.some((x) => isObject(x)) || cur.some((x) => isObject(x));
  if (patch.some((x) => Array.isArray(x))) throw unprocessable('lists of lists are not supported');

  // `{"$patch": "replace"}` anywhere in the list: the list becomes the other items.
  const replaceIdx = patch.findIndex((x) => isObject(x) && x[PATCH] === 'replace');
  if (replaceIdx >= 0) {
    return patch.filter((_, i) => i !== replaceIdx).map((x) => stripDirectives(x, depth + 1));
  }

  if (!objects) {
    // Union of scalars, in the reference's order (see referenceOrder).
    const out: unknown[] = [];
    const seen = new Set<string>();
    for (const v of [...cur, ...patch]) {
      const s = JSON.stringify(v);
      if (!seen.has(s)) {
        out.push(v);
        seen.add(s);
      }
    }
    return referenceOrder(out, patch, cur, scalarKey);
  }

  if (mergeKey === undefined) {
    // Merge strategy without a key: the reference replaces such lists.
    return replaceList(patch, depth);
  }
  // Deletions first (every live item with the key goes), then the other items merge in, as in
  // the reference.
  let live = cur;
  const merging: JsonObject[] = [];
  for (const item of patch) {
    if (!isObject(item)) throw badRequest('invalid JSON document');
    for (const k of Object.keys(item)) refuseKey(k);
    if (!Object.hasOwn(item, mergeKey) || item[mergeKey] === null) {
      throw unprocessable(`map: ${goValue(item)} does not contain declared merge key: ${mergeKey}`);
    }
    if (item[PATCH] === 'delete') live = live.filter((x) => !(isObject(x) && deepEq(x[mergeKey], item[mergeKey])));
    else merging.push(item);
  }
  const out: unknown[] = live.slice();
  const indexOf = (key: unknown): number => out.findIndex((x) => isObject(x) && deepEq(x[mergeKey], key));
  for (const item of merging) {
    const at = indexOf(item[mergeKey]);
    if (at >= 0) {
      const m = mergeMap(out[at] as JsonObject, item, itemNode, depth + 1);
      if (m === undefined) out.splice(at, 1);
      else out[at] = m;
    } else {
      const m = mergeMap({}, item, itemNode, depth + 1);
      if (m !== undefined) out.push(m);
    }
  }
  return referenceOrder(out, merging, live, mergeKeyOf(mergeKey));
}

function deepEq(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

type ItemKey = (item: unknown) => string;

const scalarKey: ItemKey = (x) => JSON.stringify(x) ?? '';

function mergeKeyOf(mergeKey: string): ItemKey {
  return (x) => (isObject(x) ? JSON.stringify(x[mergeKey]) ?? '' : '');
}

/** Each key's first place in a list. */
function ranks(list: unknown[], keyOf: ItemKey): Map<string, number> {
  const out = new Map<string, number>();
  list.forEach((x, i) => {
    const k = keyOf(x);
    if (!out.has(k)) out.set(k, i);
  });
  return out;
}

/** A stable sort by rank; items without one go last. */
function sortedBy(items: unknown[], rank: Map<string, number>, keyOf: ItemKey): unknown[] {
  const at = (x: unknown) => rank.get(keyOf(x)) ?? Number.POSITIVE_INFINITY;
  return items.map((x, i) => ({ x, i })).sort((a, b) => at(a.x) - at(b.x) || a.i - b.i).map((e) => e.x);
}

/**
 * The order the reference gives a merged list: the items `named` (the patch's items, or a
 * $setElementOrder list) come in that order; the items only the live list has keep the live
 * order, each placed before the first named item the live list had after it. So a patch of
 * [Z, X] onto [X, Y] gives [Z, X, Y].
 */
function referenceOrder(merged: unknown[], named: unknown[], live: unknown[], keyOf: ItemKey): unknown[] {
  const namedRank = ranks(named, keyOf);
  const liveRank = ranks(live, keyOf);
  const fromPatch = sortedBy(merged.filter((x) => namedRank.has(keyOf(x))), namedRank, keyOf);
  const liveOnly = sortedBy(merged.filter((x) => !namedRank.has(keyOf(x))), liveRank, keyOf);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < liveOnly.length || j < fromPatch.length) {
    if (j >= fromPatch.length) out.push(liveOnly[i++]);
    else if (i >= liveOnly.length) out.push(fromPatch[j++]);
    else {
      const l = liveRank.get(keyOf(liveOnly[i]));
      const r = liveRank.get(keyOf(fromPatch[j]));
      out.push(l !== undefined && r !== undefined && l < r ? liveOnly[i++] : fromPatch[j++]);
    }
  }
  return out;
}

/** A merged list put in the order of a $setElementOrder list (`live`: the list before the patch). */
function setElementOrder(list: unknown[], order: unknown[], live: unknown[], node: SchemaNode): unknown[] {
  const mergeKey = node.mergeKey;
  if (mergeKey !== undefined && order.some((o) => !isObject(o))) throw badRequest('invalid patch format of setElementOrder list');
  return referenceOrder(list, order, live, mergeKey !== undefined ? mergeKeyOf(mergeKey) : scalarKey);
}

/** A copy of a patch value with its directives taken out (what a new value becomes). */
function stripDirectives(v: unknown, depth: number): unknown {
  if (depth >= MAX_JSON_DEPTH) throw tooDeep();
  if (Array.isArray(v)) {
    return v.filter((x) => !(isObject(x) && x[PATCH] === 'delete')).map((x) => stripDirectives(x, depth + 1));
  }
  if (!isObject(v)) return v;
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) {
    refuseKey(k);
    if (k.startsWith('$')) continue;
    if (x === null) continue;
    setOwn(out, k, stripDirectives(x, depth + 1));
  }
  return out;
}
