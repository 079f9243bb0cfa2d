// ResourceLists (resource name → quantity) and the quota arithmetic over them, with the
// reference's rules for which keys survive each operation.
import { Quantity } from '../api/quantity.js';
import { isObject } from '../json.js';

export type ResourceList = Map<string, Quantity>;

/** A ResourceList from its JSON form; values that are not quantities are left out (validation refuses them). */
export function resourceListOf(value: unknown): ResourceList {
  const out: ResourceList = new Map();
  if (!isObject(value)) return out;
  for (const [name, raw] of Object.entries(value)) {
    const q = Quantity.from(raw);
    if (q) out.set(name, q);
  }
  return out;
}

/** The JSON form, quantities written as the reference writes them (keys sorted, as Go writes maps). */
export function resourceListJson(list: ResourceList): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of [...list.keys()].sort()) out[name] = list.get(name)!.toString();
  return out;
}

/** a + b: every key of either; shared keys summed. */
export function addLists(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map();
  for (const [k, v] of a) {
    const other = b.get(k);
    out.set(k, other ? v.add(other) : v);
  }
  for (const [k, v] of b) if (!out.has(k)) out.set(k, v);
  return out;
}

/** a - b for every key of a (and 0 for keys only in b), never below zero. */
export function subtractNonNegative(a: ResourceList, b: ResourceList): ResourceList {
  const zero = Quantity.parse('0');
  const out: ResourceList = new Map();
  for (const [k, v] of a) {
    const other = b.get(k);
    const diff = other ? v.sub(other) : v;
    out.set(k, diff.sign() > 0 ? diff : zero);
  }
  for (const k of b.keys()) if (!out.has(k)) out.set(k, zero);
  return out;
}

/** The larger of a and b for every key of either. */
export function maxLists(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map();
  for (const [k, v] of a) {
    const other = b.get(k);
    out.set(k, other && v.cmp(other) <= 0 ? other : v);
  }
  for (const [k, v] of b) if (!out.has(k)) out.set(k, v);
  return out;
}

/** Only the keys in `names`. */
export function mask(list: ResourceList, names: Iterable<string>): ResourceList {
  const out: ResourceList = new Map();
  for (const name of names) {
    const v = list.get(name);
    if (v) out.set(name, v);
  }
  return out;
}

export function removeZeros(list: ResourceList): ResourceList {
  return new Map([...list].filter(([, v]) => !v.isZero()));
}

export function negativeNames(list: ResourceList): string[] {
  return [...list].filter(([, v]) => v.sign() < 0).map(([k]) => k);
}

/** The keys of `hard` whose value in `used` is larger (keys absent from `used` are within). */
export function exceededNames(used: ResourceList, hard: ResourceList): string[] {
  return [...hard].filter(([k, limit]) => {
    const v = used.get(k);
    return v !== undefined && v.cmp(limit) > 0;
  }).map(([k]) => k);
}

/** Same keys, equal values. */
export function listsEqual(a: ResourceList, b: ResourceList): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) {
    const other = b.get(k);
    if (!other || other.cmp(v) !== 0) return false;
  }
  return true;
}

/** "cpu=1,pods=2": sorted by name, as the reference prints lists in messages. */
export function prettyPrint(list: ResourceList): string {
  return [...list.keys()].sort().map((k) => `${k}=${list.get(k)!.toString()}`).join(',');
}
