// Sets of field paths, as fieldsV1 encodes them.
//
// A path is a list of path elements, each written as in fieldsV1:
//   f:<name>        a struct field or map key
//   k:<json>        an item of an associative list, by its key fields ({"name":"nginx"})
//   v:<json>        an item of a set (list of unique scalars), by value
//   i:<n>           an item of a list without keys, by index
// A set is a tree; a node is a member when the path that leads to it is in the set. In
// fieldsV1 a member with children gets a "." key; a member without children is `{}`.

export type Path = readonly string[];

export class PathSet {
  member = false;
  readonly children = new Map<string, PathSet>();

  static fromPaths(paths: Iterable<Path>): PathSet {
    const s = new PathSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  insert(path: Path): void {
    let n: PathSet = this;
    for (const pe of path) {
      let c = n.children.get(pe);
      if (!c) {
        c = new PathSet();
        n.children.set(pe, c);
      }
      n = c;
    }
    n.member = true;
  }

  child(pe: string): PathSet | undefined {
    return this.children.get(pe);
  }

  /** The node at `path`, or undefined. */
  at(path: Path): PathSet | undefined {
    let n: PathSet | undefined = this;
    for (const pe of path) {
      n = n.children.get(pe);
      if (!n) return undefined;
    }
    return n;
  }

  has(path: Path): boolean {
    return this.at(path)?.member === true;
  }

  empty(): boolean {
    if (this.member) return false;
    for (const c of this.children.values()) if (!c.empty()) return false;
    return true;
  }

  clone(): PathSet {
    const s = new PathSet();
    s.member = this.member;
    for (const [k, c] of this.children) s.children.set(k, c.clone());
    return s;
  }

  union(other: PathSet): PathSet {
    const s = this.clone();
    s.addAll(other);
    return s;
  }

  /** In place union. */
  addAll(other: PathSet): void {
    if (other.member) this.member = true;
    for (const [k, oc] of other.children) {
      let c = this.children.get(k);
      if (!c) {
        c = new PathSet();
        this.children.set(k, c);
      }
      c.addAll(oc);
    }
  }

  /** Members of this set that are not members of `other` (children of removed members stay). */
  difference(other: PathSet): PathSet {
    const s = new PathSet();
    s.member = this.member && !other.member;
    for (const [k, c] of this.children) {
      const oc = other.children.get(k);
      const d = oc ? c.difference(oc) : c.clone();
      if (!d.empty()) s.children.set(k, d);
    }
    return s;
  }

  /** Members of this set that are neither members of `other` nor below one of its members. */
  recursiveDifference(other: PathSet): PathSet {
    const s = new PathSet();
    s.member = this.member && !other.member;
    for (const [k, c] of this.children) {
      const oc = other.children.get(k);
      if (oc?.member) continue;
      const d = oc ? c.recursiveDifference(oc) : c.clone();
      if (!d.empty()) s.children.set(k, d);
    }
    return s;
  }

  /**
   * In place, what `difference(other)` answers: for a set its caller made and owns (nothing else
   * holds its nodes). Saves a copy of the whole tree, which `difference` makes.
   */
  subtract(other: PathSet): void {
    if (other.member) this.member = false;
    for (const [k, c] of this.children) {
      const oc = other.children.get(k);
      if (oc) c.subtract(oc);
      if (c.empty()) this.children.delete(k);
    }
  }

  /** In place, what `recursiveDifference(other)` answers, for a set its caller owns (as `subtract`). */
  recursiveSubtract(other: PathSet): void {
    if (other.member) this.member = false;
    for (const [k, c] of this.children) {
      const oc = other.children.get(k);
      if (oc?.member) this.children.delete(k);
      else {
        if (oc) c.recursiveSubtract(oc);
        if (c.empty()) this.children.delete(k);
      }
    }
  }

  intersection(other: PathSet): PathSet {
    const s = new PathSet();
    s.member = this.member && other.member;
    for (const [k, c] of this.children) {
      const oc = other.children.get(k);
      if (!oc) continue;
      const i = c.intersection(oc);
      if (!i.empty()) s.children.set(k, i);
    }
    return s;
  }

  /** Every member path, in fieldsV1 order. */
  paths(prefix: string[] = []): string[][] {
    const out: string[][] = [];
    if (this.member) out.push([...prefix]);
    for (const k of sortedKeys(this.children.keys())) {
      prefix.push(k);
      out.push(...this.children.get(k)!.paths(prefix));
      prefix.pop();
    }
    return out;
  }

  /** Whether any member lies at or below the node of `path`. */
  hasAtOrBelow(path: Path): boolean {
    const n = this.at(path);
    return n !== undefined && !n.empty();
  }

  toFieldsV1(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    if (this.member && this.children.size > 0) out['.'] = {};
    for (const k of sortedKeys(this.children.keys())) {
      const c = this.children.get(k)!;
      if (c.empty()) continue;
      out[k] = c.toFieldsV1();
    }
    return out;
  }

  static fromFieldsV1(v: unknown): PathSet {
    const s = new PathSet();
    read(s, v, 0);
    return s;
  }
}

function read(s: PathSet, v: unknown, depth: number): void {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('fieldsV1: expected an object');
  if (depth > 1000) throw new Error('fieldsV1: too deep');
  const keys = Object.keys(v);
  if (keys.length === 0) {
    s.member = true;
    return;
  }
  for (const k of keys) {
    if (k === '.') {
      s.member = true;
      continue;
    }
    if (!/^[fkvi]:/.test(k)) throw new Error(`fieldsV1: unexpected key ${JSON.stringify(k)}`);
    const c = new PathSet();
    read(c, (v as Record<string, unknown>)[k], depth + 1);
    s.children.set(k, c);
  }
}

// ---------------------------------------------------------------------------------------
// Path elements

export function fieldPE(name: string): string {
  return `f:${name}`;
}

/** `k:{…}` for an item with these key fields (sorted by name, as the reference writes them). */
export function keyPE(fields: Record<string, unknown>): string {
  const names = Object.keys(fields).sort();
  const parts = names.map((n) => `${JSON.stringify(n)}:${JSON.stringify(fields[n])}`);
  return `k:{${parts.join(',')}}`;
}

export function valuePE(v: unknown): string {
  return `v:${JSON.stringify(v)}`;
}

export function indexPE(i: number): string {
  return `i:${i}`;
}

const TYPE_ORDER: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

function valueRank(v: unknown): number {
  if (v === null) return 0;
  if (typeof v === 'boolean') return 1;
  if (typeof v === 'number') return 2;
  if (typeof v === 'string') return 3;
  return 4;
}

function compareValues(a: unknown, b: unknown): number {
  const ra = valueRank(a);
  const rb = valueRank(b);
  if (ra !== rb) return ra - rb;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const sa = typeof a === 'string' ? a : JSON.stringify(a);
  const sb = typeof b === 'string' ? b : JSON.stringify(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

function parseJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}

export function comparePE(a: string, b: string): number {
  const ta = TYPE_ORDER[a[0]] ?? 9;
  const tb = TYPE_ORDER[b[0]] ?? 9;
  if (ta !== tb) return ta - tb;
  const ra = a.slice(2);
  const rb = b.slice(2);
  switch (a[0]) {
    case 'f':
      return ra < rb ? -1 : ra > rb ? 1 : 0;
    case 'i':
      return Number(ra) - Number(rb);
    case 'v':
      return compareValues(parseJson(ra), parseJson(rb));
    case 'k': {
      const ka = parseJson(ra);
      const kb = parseJson(rb);
      if (typeof ka !== 'object' || typeof kb !== 'object' || !ka || !kb) return ra < rb ? -1 : ra > rb ? 1 : 0;
      const ea = Object.entries(ka);
      const eb = Object.entries(kb);
      for (let i = 0; i < Math.min(ea.length, eb.length); i++) {
        if (ea[i][0] !== eb[i][0]) return ea[i][0] < eb[i][0] ? -1 : 1;
        const c = compareValues(ea[i][1], eb[i][1]);
        if (c !== 0) return c;
      }
      return ea.length - eb.length;
    }
    default:
      return a < b ? -1 : a > b ? 1 : 0;
  }
}

function sortedKeys(keys: Iterable<string>): string[] {
  return [...keys].sort(comparePE);
}

/** A path as the reference prints it in conflicts: `.spec.containers[name="nginx"].image`. */
export function pathString(path: Path): string {
  let out = '';
  for (const pe of path) {
    const rest = pe.slice(2);
    switch (pe[0]) {
      case 'f':
        out += `.${rest}`;
        break;
      case 'i':
        out += `[${rest}]`;
        break;
      case 'v':
        out += `[=${rest}]`;
        break;
      case 'k': {
        const k = parseJson(rest);
        if (typeof k === 'object' && k !== null) {
          out += `[${Object.entries(k).map(([n, v]) => `${n}=${JSON.stringify(v)}`).join(',')}]`;
        } else out += `[${rest}]`;
        break;
      }
      default:
        out += pe;
    }
  }
  return out;
}
