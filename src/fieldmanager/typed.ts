// Walks of JSON values along their schema: field sets, comparison, apply merge, pruning.
//
// `null` is a value (a leaf) when comparing objects, as in the reference, where a null
// comes from a Go field without omitempty (a zero Time is `creationTimestamp: null`). In an
// applied configuration a null field is left out (it applies nothing).

import { type SchemaNode, UNTYPED } from '../api/schema.js';
import { setOwn } from './mergepatch.js';
import { PathSet, fieldPE, indexPE, keyPE, valuePE } from './pathset.js';
import { deepFreeze, isObject, jsonEqual } from '../json.js';

export type Json = unknown;
type Obj = Record<string, unknown>;

function present(v: unknown): boolean {
  return v !== undefined && v !== null;
}

/** Equality where a null field is the same as an absent one. */
export function deepEqual(a: unknown, b: unknown): boolean {
  return jsonEqual(a, b, true);
}

/** How a value is walked under a node: by its fields, by its items, or as one leaf. */
function shape(node: SchemaNode, v: unknown): 'object' | 'list' | 'leaf' {
  if (node.kind === 'unstructured') return isObject(v) ? 'object' : 'leaf';
  if ((node.kind === 'struct' || node.kind === 'map') && !node.atomic && isObject(v)) return 'object';
  if (node.kind === 'list' && !node.atomic && Array.isArray(v)) return 'list';
  return 'leaf';
}

function childNode(node: SchemaNode, key: string): SchemaNode {
  return node.field(key) ?? UNTYPED;
}

/** The path element of a list item (associative lists), or undefined when it has none. */
export function itemPE(list: SchemaNode, item: unknown, index: number): string {
  if (list.listType === 'set') return valuePE(item);
  if (list.listType === 'map' && isObject(item)) {
    const fields: Record<string, unknown> = {};
    const itemNode = list.items();
    for (const k of list.keys ?? []) {
      let v = item[k];
      if (!present(v)) v = itemNode.fieldDefault(k);
      if (present(v) && typeof v !== 'object') fields[k] = v;
    }
    if (Object.keys(fields).length > 0) return keyPE(fields);
  }
  return indexPE(index);
}

/** Items of an associative list by path element; undefined when two items share one. */
export function itemsByPE(list: SchemaNode, items: unknown[]): { pes: string[]; map: Map<string, unknown> } | undefined {
  const pes: string[] = [];
  const map = new Map<string, unknown>();
  for (let i = 0; i < items.length; i++) {
    const pe = itemPE(list, items[i], i);
    if (map.has(pe)) return undefined;
    pes.push(pe);
    map.set(pe, items[i]);
  }
  return { pes, map };
}

// ---------------------------------------------------------------------------------------
// Field set of an applied configuration: its leaves and its list items.

export function fieldSetOf(v: unknown, node: SchemaNode, path: string[] = [], out = new PathSet()): PathSet {
  switch (shape(node, v)) {
    case 'object':
      for (const [k, c] of Object.entries(v as Obj)) {
        if (!present(c)) continue;
        path.push(fieldPE(k));
        fieldSetOf(c, childNode(node, k), path, out);
        path.pop();
      }
      break;
    case 'list': {
      const items = v as unknown[];
      const byPE = itemsByPE(node, items);
      if (!byPE) {
        if (path.length) out.insert(path);
        break;
      }
      const itemNode = node.items();
      items.forEach((item, i) => {
        path.push(byPE.pes[i]);
        out.insert(path);
        if (shape(itemNode, item) !== 'leaf') fieldSetOf(item, itemNode, path, out);
        path.pop();
      });
      break;
    }
    default:
      if (path.length) out.insert(path);
  }
  return out;
}

/** Every node of `v`, itself included (what an added or removed value touches). */
function allNodes(v: unknown, node: SchemaNode, path: string[], out: PathSet): void {
  if (path.length) out.insert(path);
  switch (shape(node, v)) {
    case 'object':
      for (const [k, c] of Object.entries(v as Obj)) {
        if (c === undefined) continue;
        path.push(fieldPE(k));
        allNodes(c, childNode(node, k), path, out);
        path.pop();
      }
      break;
    case 'list': {
      const items = v as unknown[];
      const byPE = itemsByPE(node, items);
      if (!byPE) break;
      const itemNode = node.items();
      items.forEach((item, i) => {
        path.push(byPE.pes[i]);
        allNodes(item, itemNode, path, out);
        path.pop();
      });
      break;
    }
    default:
  }
}

export interface Comparison {
  added: PathSet;
  modified: PathSet;
  removed: PathSet;
}

export function compare(lhs: unknown, rhs: unknown, node: SchemaNode): Comparison {
  const res: Comparison = { added: new PathSet(), modified: new PathSet(), removed: new PathSet() };
  compareInto(lhs, rhs, node, [], res);
  return res;
}

function compareInto(l: unknown, r: unknown, node: SchemaNode, path: string[], res: Comparison): void {
  // A null where a list or an object is walked is Go's nil one (the stored `conditions: null` of
  // a CRD's status): the other side's items or fields are added (or removed) one by one, not the
  // list or object itself, as in the reference's compare.
  if (l === null && r !== undefined && r !== null && shape(node, r) !== 'leaf') l = Array.isArray(r) ? [] : {};
  else if (r === null && l !== undefined && l !== null && shape(node, l) !== 'leaf') r = Array.isArray(l) ? [] : {};
  const lp = l !== undefined;
  const rp = r !== undefined;
  if (!lp && !rp) return;
  if (!lp) return allNodes(r, node, path, res.added);
  if (!rp) return allNodes(l, node, path, res.removed);
  const ls = shape(node, l);
  const rs = shape(node, r);
  if (ls !== rs || ls === 'leaf') {
    if (!deepEqual(l, r)) {
      if (ls === rs) res.modified.insert(path);
      else {
        allNodes(l, node, path, res.removed);
        allNodes(r, node, path, res.added);
      }
    }
    return;
  }
  if (ls === 'object') {
    const lo = l as Obj;
    const ro = r as Obj;
    const keys = new Set([...Object.keys(lo), ...Object.keys(ro)]);
    for (const k of keys) {
      path.push(fieldPE(k));
      compareInto(lo[k], ro[k], childNode(node, k), path, res);
      path.pop();
    }
    return;
  }
  const la = itemsByPE(node, l as unknown[]);
  const ra = itemsByPE(node, r as unknown[]);
  if (!la || !ra) {
    if (!deepEqual(l, r)) res.modified.insert(path);
    return;
  }
  const itemNode = node.items();
  const pes = new Set([...la.pes, ...ra.pes]);
  for (const pe of pes) {
    path.push(pe);
    compareInto(la.map.get(pe), ra.map.get(pe), itemNode, path, res);
    path.pop();
  }
}

// ---------------------------------------------------------------------------------------
// Apply merge: the applied configuration over the live object.

/** Merges `config` into `live` (both owned by the caller: the result may share their parts). */
export function merge(live: unknown, config: unknown, node: SchemaNode): unknown {
  if (!present(config)) return undefined;
  const cs = shape(node, config);
  if (cs === 'object' && isObject(live) && shape(node, live) === 'object') {
    const out: Obj = { ...live };
    for (const [k, c] of Object.entries(config as Obj)) {
      const m = merge(Object.hasOwn(live, k) ? live[k] : undefined, c, childNode(node, k));
      if (m === undefined) delete out[k];
      else setOwn(out, k, m);
    }
    return out;
  }
  if (cs === 'list' && Array.isArray(live) && shape(node, live) === 'list') {
    const la = itemsByPE(node, live);
    const ra = itemsByPE(node, config as unknown[]);
    if (!la || !ra) return config;
    const itemNode = node.items();
    const rIdx = new Set(ra.pes);
    const used = new Set<string>();
    const out: unknown[] = [];
    const l = live;
    const r = config as unknown[];
    let li = 0;
    let ri = 0;
    while (li < l.length || ri < r.length) {
      if (li < l.length) {
        const pe = la.pes[li];
        if (used.has(pe)) {
          li++;
          continue;
        }
        if (!rIdx.has(pe)) {
          out.push(l[li]);
          used.add(pe);
          li++;
          continue;
        }
      }
      if (ri < r.length) {
        const pe = ra.pes[ri];
        const m = merge(la.map.get(pe), r[ri], itemNode);
        if (m !== undefined) out.push(m);
        used.add(pe);
        ri++;
        continue;
      }
      li++;
    }
    return out;
  }
  return config;
}

// ---------------------------------------------------------------------------------------
// Pruning: removes the members of `remove` from `v`, except nodes under which `keep` has members.

export function prune(v: unknown, node: SchemaNode, remove: PathSet, keep: PathSet | undefined): unknown {
  const s = shape(node, v);
  if (s === 'object') {
    const out: Obj = { ...(v as Obj) };
    for (const [pe, rc] of remove.children) {
      if (!pe.startsWith('f:')) continue;
      const k = pe.slice(2);
      if (!Object.hasOwn(out, k)) continue;
      const kc = keep?.child(pe);
      if (rc.member && !(kc && !kc.empty())) delete out[k];
      else setOwn(out, k, prune(out[k], childNode(node, k), rc, kc));
    }
    return out;
  }
  if (s === 'list') {
    const items = v as unknown[];
    const byPE = itemsByPE(node, items);
    if (!byPE) return v;
    const itemNode = node.items();
    const out: unknown[] = [];
    items.forEach((item, i) => {
      const pe = byPE.pes[i];
      const rc = remove.child(pe);
      if (!rc) {
        out.push(item);
        return;
      }
      const kc = keep?.child(pe);
      if (rc.member && !(kc && !kc.empty())) return;
      out.push(prune(item, itemNode, rc, kc));
    });
    return out;
  }
  return v;
}

// ---------------------------------------------------------------------------------------
// The Go zero value of a kind: what a create is compared against.

const zeroValues = new WeakMap<SchemaNode, unknown>();

/** zeroValue of a kind's schema, made once per schema node and shared: frozen, never to be changed. */
export function sharedZeroValue(node: SchemaNode): unknown {
  let zero = zeroValues.get(node);
  if (zero === undefined) zeroValues.set(node, (zero = deepFreeze(zeroValue(node))));
  return zero;
}

export function zeroValue(node: SchemaNode, depth = 0): unknown {
  if (node.kind !== 'struct' || depth > 30) return {};
  const out: Obj = {};
  const required = new Set(node.required());
  for (const f of node.fieldNames()) {
    const child = node.field(f);
    if (!child) continue;
    if (node.isValueStruct(f)) {
      out[f] = child.kind === 'struct' ? zeroValue(child, depth + 1) : {};
      continue;
    }
    const d = node.fieldDefault(f);
    if (d !== undefined && d !== null && typeof d !== 'object' && child.kind === 'scalar') {
      out[f] = d;
      continue;
    }
    // A non-pointer Time or MicroTime is written as null when zero.
    if (isObject(d) && (child.defName?.endsWith('.Time') || child.defName?.endsWith('.MicroTime'))) {
      out[f] = null;
      continue;
    }
    if (required.has(f)) {
      if (child.kind === 'list' && !child.atomic) out[f] = [];
      else if ((child.kind === 'struct' || child.kind === 'map') && !child.atomic) out[f] = {};
    }
  }
  return out;
}

/** Whether `v` nests objects and arrays deeper than `limit`. */
export function tooDeep(v: unknown, limit: number): boolean {
  if (typeof v !== 'object' || v === null) return false;
  if (limit <= 0) return true;
  for (const c of Array.isArray(v) ? v : Object.values(v)) if (tooDeep(c, limit - 1)) return true;
  return false;
}
