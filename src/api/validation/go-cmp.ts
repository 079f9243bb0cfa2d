// The diff text the reference puts in "may not change" errors: github.com/google/go-cmp's
// cmp.Diff(old, new) report over the internal Go types (see go-types.ts), with its layout rules
// (two records of context, elided identical runs with counts, aligned keys, verbosity limits).
// Not reproduced: go-cmp's specialised diffing of long
// strings and long primitive slices, its triple-quoted multi-line strings, and the exact
// alignment its slice edit-script search finds in unusual reorderings.
import { type GoType, INT_OR_STRING_NAME, isZero, resolve, toGo, typeName } from './go-types.js';
import { goQuote, isGoPrintable } from '../../errors.js';
import { Quantity } from '../quantity.js';
import { quantityInternals } from './go-syntax.js';
import { isObject } from '../../json.js';

const MISSING = Symbol('missing');
type Json = unknown;

// ---- comparison tree (go-cmp's valueNode) ----

interface Node {
  type: GoType;
  x: Json | typeof MISSING;
  y: Json | typeof MISSING;
  same: number;
  diff: number;
  /** Transitive descendants, and the depth of the tree below (both 0 for leaves). */
  children: number;
  depth: number;
  records?: Array<{ key: string; node: Node }>;
  value?: Node;
}

const isNil = (v: Json): boolean => v === undefined || v === null;

function leaf(type: GoType, x: Json, y: Json, equal: boolean): Node {
  return { type, x, y, same: equal ? 1 : 0, diff: equal ? 0 : 1, children: 0, depth: 0 };
}

function parent(type: GoType, x: Json, y: Json, kids: Node[]): Node {
  const n: Node = { type, x, y, same: 0, diff: 0, children: 0, depth: 0 };
  for (const k of kids) {
    n.same += k.same;
    n.diff += k.diff;
    n.children += k.children + 1;
    n.depth = Math.max(n.depth, k.depth + 1);
  }
  return n;
}

/** IntOrString as its Go struct, in JSON field names. */
function intOrStringFields(v: Json): Record<string, unknown> {
  if (typeof v === 'string') return { type: 1, intVal: 0, strVal: v };
  return { type: 0, intVal: typeof v === 'number' ? v : 0, strVal: '' };
}

function structJson(t: GoType & { kind: 'struct' }, v: Json): Record<string, unknown> {
  if (t.name === INT_OR_STRING_NAME) return intOrStringFields(v);
  return isObject(v) ? v : {};
}

function quantitiesEqual(a: Json, b: Json): boolean {
  const qa = Quantity.from(a);
  const qb = Quantity.from(b);
  if (qa && qb) return qa.cmp(qb) === 0;
  return (isNil(a) || a === '') === (isNil(b) || b === '') && (qa === undefined) === (qb === undefined) && String(a ?? '') === String(b ?? '');
}

function compare(type: GoType, x: Json | typeof MISSING, y: Json | typeof MISSING): Node {
  if (x === MISSING || y === MISSING) return leaf(type, x, y, x === y);
  const t = resolve(type, [x, y]);
  switch (t.kind) {
    case 'string':
    case 'int':
    case 'bool': {
      const gx = toGo(t, x);
      const gy = toGo(t, y);
      return leaf(t, x, y, gx.kind === 'prim' && gy.kind === 'prim' && gx.value === gy.value);
    }
    case 'quantity':
      return leaf(t, x, y, quantitiesEqual(x, y));
    case 'ptr': {
      if (isNil(x) || isNil(y)) return leaf(t, x, y, isNil(x) && isNil(y));
      const value = compare(resolve(t.elem, [x, y]), x, y);
      return { ...parent(t, x, y, [value]), value };
    }
    case 'struct': {
      const ox = structJson(t, x);
      const oy = structJson(t, y);
      const records = t.fields.map((f) => ({ key: f.name, node: compare(f.type, f.embedded ? ox : ox[f.json], f.embedded ? oy : oy[f.json]) }));
      return { ...parent(t, x, y, records.map((r) => r.node)), records };
    }
    case 'slice': {
      if (!Array.isArray(x) || !Array.isArray(y)) return leaf(t, x, y, !Array.isArray(x) && !Array.isArray(y));
      const records = align(t.elem, x, y).map(([ix, iy]) => ({ key: '', node: compare(t.elem, ix < 0 ? MISSING : x[ix], iy < 0 ? MISSING : y[iy]) }));
      return { ...parent(t, x, y, records.map((r) => r.node)), records };
    }
    case 'map': {
      if (!isObject(x) || !isObject(y)) return leaf(t, x, y, !isObject(x) && !isObject(y));
      const keys = [...new Set([...Object.keys(x), ...Object.keys(y)])].sort();
      const records = keys.map((k) => ({ key: mapKey(k, t.stringerKeys), node: compare(t.elem, k in x ? x[k] : MISSING, k in y ? y[k] : MISSING) }));
      return { ...parent(t, x, y, records.map((r) => r.node)), records };
    }
  }
}

/**
 * The element pairing of two lists (index in x, index in y; -1 when the element is only on one
 * side): equal elements anchor it (longest common subsequence), and between anchors elements are
 * paired when similar (go-cmp: at least as many equal leaves, plus one, as different ones).
 */
function align(elem: GoType, x: Json[], y: Json[]): Array<[number, number]> {
  const equal = (i: number, j: number) => compare(elem, x[i], y[j]).diff === 0;
  const n = x.length;
  const m = y.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i]![j] = equal(i, j) ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const anchors: Array<[number, number]> = [];
  for (let i = 0, j = 0; i < n && j < m;) {
    if (equal(i, j)) anchors.push([i++, j++]);
    else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) i++;
    else j++;
  }
  const out: Array<[number, number]> = [];
  let px = 0;
  let py = 0;
  for (const [ax, ay] of [...anchors, [n, m] as [number, number]]) {
    while (px < ax && py < ay) {
      const r = compare(elem, x[px], y[py]);
      if (r.same + 1 >= r.diff) out.push([px++, py++]);
      else if (ax - px >= ay - py) out.push([px++, -1]);
      else out.push([-1, py++]);
    }
    while (px < ax) out.push([px++, -1]);
    while (py < ay) out.push([-1, py++]);
    if (ax < n) out.push([px++, py++]);
  }
  return out;
}

/** apimachinery's semantic equality: nil and empty lists and maps are equal, quantities by value. */
export function semanticallyEqual(type: GoType, x: Json, y: Json): boolean {
  const t = resolve(type, [x, y]);
  switch (t.kind) {
    case 'quantity':
      return quantitiesEqual(x, y);
    case 'string':
    case 'int':
    case 'bool': {
      const gx = toGo(t, x);
      const gy = toGo(t, y);
      return gx.kind === 'prim' && gy.kind === 'prim' && gx.value === gy.value;
    }
    case 'ptr':
      if (isNil(x) || isNil(y)) return isNil(x) && isNil(y);
      return semanticallyEqual(t.elem, x, y);
    case 'slice': {
      const a = Array.isArray(x) ? x : [];
      const b = Array.isArray(y) ? y : [];
      return a.length === b.length && a.every((v, i) => semanticallyEqual(t.elem, v, b[i]));
    }
    case 'map': {
      const a = isObject(x) ? x : {};
      const b = isObject(y) ? y : {};
      const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
      return [...keys].every((k) => k in a && k in b && semanticallyEqual(t.elem, a[k], b[k]));
    }
    case 'struct': {
      const ox = structJson(t, x);
      const oy = structJson(t, y);
      return t.fields.every((f) => semanticallyEqual(f.type, f.embedded ? ox : ox[f.json], f.embedded ? oy : oy[f.json]));
    }
  }
}

// ---- text nodes (go-cmp's textLine, textWrap, textList) ----

class Line {
  constructor(readonly s: string) {}
}
class Wrap {
  constructor(public prefix: string, public value: Text, public suffix: string) {}
}
interface Stats {
  name: string;
  identical: number;
  removed: number;
  inserted: number;
  modified: number;
}
interface Rec {
  diff: Mode;
  key: string;
  value: Text;
  elideComma?: boolean;
  comment?: Stats;
}
class List {
  constructor(public recs: Rec[]) {}
}
type Text = Line | Wrap | List;

const ELLIPSIS = '...';
const NIL = new Line('nil');
const MAX_COLUMN = 80;

function statsText(s: Stats): string {
  const parts: string[] = [];
  let sum = 0;
  for (const [label, n] of [['identical', s.identical], ['removed', s.removed], ['inserted', s.inserted], ['modified', s.modified]] as const) {
    if (n > 0) parts.push(`${n} ${label}`);
    sum += n;
  }
  let name = s.name;
  if (sum > 1) name = name.endsWith('y') ? `${name.slice(0, -1)}ies` : `${name}s`;
  if (parts.length === 0) return '';
  if (parts.length <= 2) return `${parts.join(' and ')} ${name}`;
  return `${parts.slice(0, -1).join(', ')}, and ${parts[parts.length - 1]} ${name}`;
}

const statsZero = (s: Stats): boolean => s.identical + s.removed + s.inserted + s.modified === 0;

function appendEllipsis(list: Rec[], stats?: Stats): void {
  const last = list[list.length - 1];
  const lastIsEllipsis = last !== undefined && last.value instanceof Line && last.value.s === ELLIPSIS;
  const has = stats !== undefined && !statsZero(stats);
  if (!lastIsEllipsis) {
    list.push({ diff: '', key: '', value: new Line(ELLIPSIS), elideComma: true, ...(has ? { comment: stats } : {}) });
  } else if (has && last.comment) {
    last.comment = { ...last.comment, identical: last.comment.identical + stats.identical, removed: last.comment.removed + stats.removed, inserted: last.comment.inserted + stats.inserted, modified: last.comment.modified + stats.modified };
  } else if (has) {
    last.comment = stats;
  }
}

// ---- formatting (go-cmp's FormatDiff, formatDiffList, FormatValue, FormatType) ----

type Mode = '' | ' ' | '-' | '+';
type TypeMode = 'auto' | 'elide' | 'emit';
interface Opts {
  mode: Mode;
  typeMode: TypeMode;
  level: number;
  limit: boolean;
}
type Kind = 'struct' | 'slice' | 'map' | 'ptr' | '';

const verbosity = (o: Opts): number => Math.max(0, Math.min(16, o.level));
const kindOf = (t: GoType): Kind => (t.kind === 'struct' || t.kind === 'quantity' ? 'struct' : t.kind === 'slice' || t.kind === 'map' || t.kind === 'ptr' ? t.kind : '');
const byteLength = (s: string): number => Buffer.byteLength(s);

function formatType(t: GoType, s: Text, o: Opts): Text {
  if (o.typeMode === 'elide') return s;
  if (o.typeMode === 'auto') {
    if (kindOf(t) !== 'struct' && kindOf(t) !== 'slice' && kindOf(t) !== 'map') return s;
    if (s instanceof Line && s.s === 'nil') return s;
    if (o.mode === ' ') return s;
  }
  let name = typeName(t);
  if (t.kind === 'ptr') name = `(${name})`;
  return new Wrap(name, wrapParens(s), '');
}

function wrapParens(s: Text): Text {
  if (s instanceof Wrap && ((s.prefix.startsWith('(') && s.suffix.endsWith(')')) || (s.prefix.startsWith('{') && s.suffix.endsWith('}')))) return s;
  return new Wrap('(', s, ')');
}

/** go-cmp's formatString: quoted, or backquoted when quoting would escape and a raw literal is possible. */
function quoteString(s: string): string {
  const q = goQuote(s);
  if (byteLength(q) === byteLength(s) + 2) return q;
  if ([...s].every((ch) => ch !== '`' && ch !== '\n' && (isGoPrintable(ch) || ch === '\t'))) return `\`${s}\``;
  return q;
}

function formatString(prefix: string, s: string, o: Opts): Line {
  const max = o.limit ? (1 << verbosity(o)) << 5 : byteLength(s);
  if (byteLength(s) > max + ELLIPSIS.length) return new Line(`${prefix}${quoteString(Buffer.from(s).subarray(0, max).toString())}${ELLIPSIS}`);
  return new Line(`${prefix}${quoteString(s)}`);
}

function mapKey(k: string, stringer: boolean): string {
  return formatString(stringer ? 's' : '', k, { mode: ' ', typeMode: 'elide', level: 6, limit: true }).s;
}

function formatQuantity(json: Json, o: Opts): Text {
  const recs: Rec[] = quantityInternals(Quantity.from(json)).map(([k, v]) => {
    if (Array.isArray(v)) {
      const inner = new Wrap('{', new List(v.map(([ik, iv]) => ({ diff: '' as Mode, key: ik, value: new Line(String(iv)) }))), '}');
      return { diff: '' as Mode, key: k, value: o.mode === ' ' ? inner : new Wrap('resource.int64Amount', inner, '') };
    }
    return { diff: '' as Mode, key: k, value: typeof v === 'string' ? formatString('', v, o) : new Line(String(v)) };
  });
  return formatType({ kind: 'quantity' }, new Wrap('{', new List(recs), '}'), o);
}

/** FormatValue: a whole value, zero struct fields elided, lists cut at the verbosity's length. */
function formatValue(type: GoType, json: Json | typeof MISSING, o: Opts): Text | null {
  if (json === MISSING) return null;
  const t = resolve(type, [json]);
  switch (t.kind) {
    case 'string': {
      const g = toGo(t, json);
      return formatString('', g.kind === 'prim' ? String(g.value) : '', o);
    }
    case 'int':
    case 'bool': {
      const g = toGo(t, json);
      return new Line(g.kind === 'prim' ? String(g.value) : '');
    }
    case 'quantity':
      return formatQuantity(json, o);
    case 'ptr': {
      if (isNil(json)) return NIL;
      // An unnamed pointer type: the value it points to prints the type.
      return new Wrap('&', formatValue(t.elem, json, o)!, '');
    }
    case 'slice': {
      if (!Array.isArray(json)) return NIL;
      const max = o.limit ? ((1 << verbosity(o)) >> 1) << 2 : json.length;
      const inner: Opts = { ...o, level: o.limit ? o.level - 1 : o.level, typeMode: 'elide' };
      const recs: Rec[] = [];
      for (const item of json) {
        if (recs.length === max) {
          appendEllipsis(recs);
          break;
        }
        recs.push({ diff: '', key: '', value: formatValue(t.elem, item, inner)! });
      }
      return formatType(t, new Wrap('{', new List(recs), '}'), o);
    }
    case 'map': {
      if (!isObject(json)) return NIL;
      const max = o.limit ? ((1 << verbosity(o)) >> 1) << 2 : Object.keys(json).length;
      const inner: Opts = { ...o, level: o.limit ? o.level - 1 : o.level, typeMode: 'elide' };
      const recs: Rec[] = [];
      for (const k of Object.keys(json).sort()) {
        if (recs.length === max) {
          appendEllipsis(recs);
          break;
        }
        recs.push({ diff: '', key: mapKey(k, t.stringerKeys), value: formatValue(t.elem, json[k], inner)! });
      }
      return formatType(t, new Wrap('{', new List(recs), '}'), o);
    }
    case 'struct': {
      const obj = structJson(t, json);
      const max = o.limit ? ((1 << verbosity(o)) >> 1) << 2 : t.fields.length;
      const inner: Opts = { ...o, level: o.limit ? o.level - 1 : o.level, typeMode: 'auto' };
      const recs: Rec[] = [];
      for (const f of t.fields) {
        const v = f.embedded ? obj : obj[f.json];
        if (isZero(toGo(resolve(f.type, [v]), v))) continue;
        if (recs.length === max) {
          appendEllipsis(recs);
          break;
        }
        recs.push({ diff: '', key: f.name, value: formatValue(f.type, v, inner)! });
      }
      return formatType(t, new Wrap('{', new List(recs), '}'), o);
    }
  }
}

function zeroOf(type: GoType, json: Json | typeof MISSING): boolean {
  if (json === MISSING) return true;
  return isZero(toGo(resolve(type, [json]), json));
}

/** FormatDiff: a node of the comparison, in the given mode. */
function formatDiff(n: Node, opts: Opts): Text | null {
  let o = opts;
  if (o.mode === ' ') o = { ...o, limit: true, level: 1 };
  else if (verbosity(o) < 3) o = { ...o, limit: true, level: 3 };
  if (n.depth === 0) {
    switch (o.mode) {
      case '':
      case ' ': {
        if (n.diff === 0) return formatValue(n.type, n.x, o);
        const recs: Rec[] = [];
        const ox = formatValue(n.type, n.x, { ...o, typeMode: 'elide' });
        const oy = formatValue(n.type, n.y, { ...o, typeMode: 'elide' });
        if (ox) recs.push({ diff: '-', key: '', value: ox });
        if (oy) recs.push({ diff: '+', key: '', value: oy });
        return formatType(n.type, new List(recs), { ...o, typeMode: 'emit' });
      }
      case '-':
        return formatValue(n.type, n.x, o);
      case '+':
        return formatValue(n.type, n.y, o);
    }
  }
  const kind = kindOf(n.type);
  if (kind === 'ptr') return new Wrap('&', formatDiff(n.value!, o)!, '');
  return formatType(n.type, formatDiffList(n, kind, o), o);
}

function formatDiffList(n: Node, kind: Kind, opts: Opts): Text {
  const name = kind === 'struct' ? 'field' : kind === 'map' ? 'entry' : 'element';
  let o: Opts = { ...opts, typeMode: kind === 'struct' ? 'auto' : 'elide' };
  let maxLen = -1;
  if (o.limit) {
    maxLen = o.mode === ' ' ? ((1 << verbosity(o)) >> 1) << 2 : (1 << verbosity(o)) << 1;
    o = { ...o, level: o.level - 1 };
  }
  const records = n.records ?? [];
  if (o.mode !== '') {
    const list: Rec[] = [];
    let deferred = false;
    for (const r of records) {
      if (list.length === maxLen) {
        deferred = true;
        break;
      }
      if (kind === 'struct') {
        const zero = o.mode === ' ' ? zeroOf(r.node.type, r.node.x) || zeroOf(r.node.type, r.node.y) : o.mode === '-' ? zeroOf(r.node.type, r.node.x) : zeroOf(r.node.type, r.node.y);
        if (zero) continue;
      }
      const out = formatDiff(r.node, o);
      if (out) list.push({ diff: '', key: r.key, value: out });
    }
    if (deferred) appendEllipsis(list);
    return new Wrap('{', new List(list), '}');
  }

  // Runs of equal and of differing records.
  const groups: Array<Stats & { equal: boolean }> = [];
  for (const r of records) {
    const equal = r.node.diff === 0;
    let g = groups[groups.length - 1];
    if (!g || g.equal !== equal) groups.push((g = { name, equal, identical: 0, removed: 0, inserted: 0, modified: 0 }));
    if (equal) g.identical++;
    else if (r.node.y === MISSING) g.removed++;
    else if (r.node.x === MISSING) g.inserted++;
    else g.modified++;
  }
  const list: Rec[] = [];
  let rest = records;
  let diffs = 0;
  const dropped: Stats = { name, identical: 0, removed: 0, inserted: 0, modified: 0 };
  groups.forEach((g, i) => {
    const count = g.identical + g.removed + g.inserted + g.modified;
    if (maxLen >= 0 && diffs >= maxLen) {
      dropped.identical += g.identical;
      dropped.removed += g.removed;
      dropped.inserted += g.inserted;
      dropped.modified += g.modified;
      return;
    }
    if (g.equal) {
      let lo = 0;
      let hi = 0;
      while (lo < 2 && lo + hi < count && i !== 0) lo++;
      while (hi < 2 && lo + hi < count && i !== groups.length - 1) hi++;
      if (count - (lo + hi) === 1) hi++;
      const identical = { ...o, mode: ' ' as Mode };
      for (const r of rest.slice(0, lo)) list.push({ diff: '', key: r.key, value: formatDiff(r.node, identical)! });
      if (count > lo + hi) appendEllipsis(list, { name, identical: count - lo - hi, removed: 0, inserted: 0, modified: 0 });
      for (const r of rest.slice(count - hi, count)) list.push({ diff: '', key: r.key, value: formatDiff(r.node, identical)! });
      rest = rest.slice(count);
      return;
    }
    for (const r of rest.slice(0, count)) {
      if (r.node.children === r.node.depth) {
        const ox = formatDiff(r.node, { ...o, mode: '-' });
        const oy = formatDiff(r.node, { ...o, mode: '+' });
        if (ox) list.push({ diff: '-', key: r.key, value: ox });
        if (oy) list.push({ diff: '+', key: r.key, value: oy });
      } else {
        list.push({ diff: '', key: r.key, value: formatDiff(r.node, o)! });
      }
    }
    rest = rest.slice(count);
    diffs += count;
  });
  if (!statsZero(dropped)) appendEllipsis(list, dropped);
  return new Wrap('{', new List(list), '}');
}

// ---- layout (go-cmp's formatCompactTo and formatExpandedTo) ----

const merge = (d: Mode, r: Mode): Mode => (r === '' ? d : r);

function compact(t: Text, d: Mode): [string, Text] {
  if (t instanceof Line) return [t.s, t];
  if (t instanceof Wrap) {
    const [inner, v] = compact(t.value, d);
    t.value = v;
    const s = `${t.prefix}${inner}${t.suffix}`;
    return v instanceof Line ? [s, new Line(s)] : [s, t];
  }
  let b = '';
  let multi = false;
  t.recs.forEach((r, i) => {
    if (r.diff === '-' || r.diff === '+') multi = true;
    b += r.key;
    if (r.key) b += ': ';
    const [s, v] = compact(r.value, merge(d, r.diff));
    r.value = v;
    b += s;
    if (!(v instanceof Line)) multi = true;
    if (r.comment) multi = true;
    if (i < t.recs.length - 1) b += ', ';
  });
  if ((d === '-' || d === '+') && byteLength(b) > MAX_COLUMN) multi = true;
  return multi ? [b, t] : [b, new Line(b)];
}

/**
 * A line's prefix: the diff mark and tabs. go-cmp picks regular or non-breaking spaces at random
 * per process (so that nobody relies on its output); the recorded reference used non-breaking ones.
 */
function indent(d: Mode, n: number): string {
  return `${d === '-' ? '-\u00a0' : d === '+' ? '+\u00a0' : '\u00a0\u00a0'}${'\t'.repeat(n)}`;
}

/** Padding that aligns a value over consecutive records that qualify (keys, or values before comments). */
function alignLens(recs: Rec[], skip: (r: Rec) => boolean, len: (r: Rec) => number): number[] {
  const lens = new Array<number>(recs.length).fill(0);
  let start = 0;
  let end = 0;
  let max = 0;
  const flush = () => {
    for (let j = start; j < end && j < recs.length; j++) lens[j] = max - len(recs[j]!);
  };
  recs.forEach((r, i) => {
    if (skip(r)) {
      flush();
      start = i + 1;
      end = i + 1;
      max = 0;
    } else {
      max = Math.max(max, len(r));
      end = i + 1;
    }
  });
  flush();
  return lens;
}

const runes = (s: string): number => [...s].length;

function expanded(t: Text, d: Mode, n: number): string {
  if (t instanceof Line) return t.s;
  if (t instanceof Wrap) return `${t.prefix}${expanded(t.value, d, n)}${t.suffix}`;
  const recs = t.recs;
  const keyPad = alignLens(recs, (r) => r.key === '' || !(r.value instanceof Line), (r) => runes(r.key));
  const valuePad = alignLens(recs, (r) => !(r.value instanceof Line) || r.comment === undefined, (r) => runes((r.value as Line).s));
  const simple = recs.length > 0 && recs.every((r) => r.diff === '' && r.key === '' && r.value instanceof Line && !r.comment);
  let out = '';
  if (simple) {
    let batch = '';
    const emit = () => {
      if (batch) out += `\n${indent(d, n + 1)}${batch.replace(/ +$/, '')}`;
      batch = '';
    };
    for (const r of recs) {
      const line = (r.value as Line).s;
      if (byteLength(batch) + byteLength(line) + 2 > MAX_COLUMN) emit();
      batch += `${line}, `;
    }
    emit();
    return `${out}\n${indent(d, n)}`;
  }
  recs.forEach((r, i) => {
    const mode = merge(d, r.diff);
    out += `\n${indent(mode, n + 1)}`;
    if (r.key) out += `${r.key}: `;
    out += ' '.repeat(keyPad[i]!);
    out += expanded(r.value, mode, n + 1);
    if (!r.elideComma) out += ',';
    out += ' '.repeat(valuePad[i]!);
    if (r.comment) out += ` // ${statsText(r.comment)}`;
  });
  return `${out}\n${indent(d, n)}`;
}

/** cmp.Diff(x, y) for values of Go type `type` given as JSON: '' when equal. */
export function goCmpDiff(type: GoType, x: Json, y: Json): string {
  const root = compare(type, x, y);
  if (root.diff === 0) return '';
  const text = formatDiff(root, { mode: '', typeMode: 'auto', level: 0, limit: false })!;
  const [, laidOut] = compact(text, '');
  return `${indent('', 0)}${expanded(laidOut, '', 0)}\n`;
}
