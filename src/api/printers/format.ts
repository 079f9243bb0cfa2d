// Small formatting helpers shared by the printers: field access on untyped objects, human
// durations, timestamps, label maps and label selectors, as kubectl and the reference show them.
import { rfc3339 as rfc3339Time } from '../../json.js';

export type Obj = Record<string, unknown>;

/** Walks `obj` along `path`; undefined as soon as a step is not an object. */
export function get(obj: unknown, ...path: (string | number)[]): unknown {
  let cur: unknown = obj;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[key];
  }
  return cur;
}

export function str(v: unknown, fallback = ''): string {
  return typeof v === 'string' ? v : fallback;
}

export function num(v: unknown, fallback = 0): number {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return Number(v);
  return fallback;
}

export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

export function rec(v: unknown): Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {};
}

export function bool(v: unknown, fallback = false): boolean {
  return typeof v === 'boolean' ? v : fallback;
}

/** Whether `v` is neither undefined nor null (a Go pointer that is set). */
export function isSet(v: unknown): boolean {
  return v !== undefined && v !== null;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * A duration (milliseconds) the way the reference prints ages: two significant units at most,
 * coarser as the duration grows (`5s`, `119s`, `3m2s`, `10m`, `2h5m`, `20h`, `2d3h`, `9d`,
 * `2y30d`, `9y`); `0s` for a slightly negative one, `<invalid>` below -1 s.
 */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(ms / MINUTE);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(ms / HOUR);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    const d = Math.trunc(hours / 24);
    return h === 0 ? `${d}d` : `${d}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const years = Math.trunc(hours / 24 / 365);
    const dy = Math.trunc(hours / 24) % 365;
    return dy === 0 ? `${years}y` : `${years}y${dy}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})$/;

const GO_ZERO_TIME = Date.parse('0001-01-01T00:00:00.000Z');

/** Milliseconds since the epoch of an RFC 3339 (micro)time; undefined when unset, zero or malformed. */
export function parseTime(v: unknown): number | undefined {
  if (typeof v !== 'string' || v === '') return undefined;
  const m = RFC3339.exec(v);
  if (!m) return undefined;
  const frac = (m[7] ?? '').slice(0, 3).padEnd(3, '0');
  const zone = m[8] === 'z' ? 'Z' : m[8];
  const t = Date.parse(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}.${frac}${zone}`);
  if (Number.isNaN(t)) return undefined;
  if (t === GO_ZERO_TIME) return undefined; // Go's zero time, what an unset metav1.Time reads as
  return t;
}

/** The age of a timestamp at `now`: a human duration, or `<unknown>` when the time is unset. */
export function since(ts: unknown, now: number): string {
  const t = parseTime(ts);
  return t === undefined ? '<unknown>' : elapsedSince(t, now);
}

/**
 * The time from `from` (ms) to `now` as a human duration: the one way a printer's cells depend on
 * the time. While cells are printed under withAgesMarked it is a mark instead (see there).
 */
export function elapsedSince(from: number, now: number): string {
  if (marked === undefined) return humanDuration(now - from);
  marked.push(from);
  return `${AGE_MARK}${marked.length - 1}${AGE_MARK}`;
}

/** Brackets the index of a marked age: U+E000, of Unicode's private use area. */
export const AGE_MARK = '\uE000';

let marked: number[] | undefined;

/**
 * Runs `print` with each age it writes (elapsedSince) written as a mark — AGE_MARK, an index into
 * `ages`, AGE_MARK — so that what it prints can be kept and its ages filled in at any later time
 * (a Table row kept with its object version, encoding/derived.ts).
 */
export function withAgesMarked<T>(print: () => T): { result: T; ages: number[] } {
  const outer = marked;
  const ages: number[] = [];
  marked = ages;
  try {
    return { result: print(), ages };
  } finally {
    marked = outer;
  }
}

/** The creation timestamp formatted as RFC 3339 in UTC, to the second (the default table's cell). */
export function rfc3339(ts: unknown): string {
  const t = parseTime(ts);
  if (t === undefined) return '0001-01-01T00:00:00Z';
  return rfc3339Time(t);
}

/** `k1=v1,k2=v2` with sorted keys; `<none>` for an empty map. */
export function formatLabels(labels: unknown): string {
  const m = rec(labels);
  const keys = Object.keys(m).sort();
  if (keys.length === 0) return '<none>';
  return keys.map((k) => `${k}=${str(m[k])}`).join(',');
}

/**
 * A metav1.LabelSelector as a selector string (`app=web,tier in (a,b),!legacy`); `<none>` for a
 * missing or empty selector, `<error>` for one that cannot be a selector.
 */
export function formatLabelSelector(selector: unknown): string {
  if (!isSet(selector) || typeof selector !== 'object') return '<none>';
  const reqs: { key: string; text: string }[] = [];
  const matchLabels = rec(get(selector, 'matchLabels'));
  for (const [k, v] of Object.entries(matchLabels)) reqs.push({ key: k, text: `${k}=${str(v)}` });
  for (const e of arr(get(selector, 'matchExpressions'))) {
    const key = str(get(e, 'key'));
    const values = arr(get(e, 'values')).map((v) => str(v));
    const sorted = [...values].sort();
    switch (get(e, 'operator')) {
      case 'In':
        if (values.length === 0) return '<error>';
        reqs.push({ key, text: `${key} in (${sorted.join(',')})` });
        break;
      case 'NotIn':
        if (values.length === 0) return '<error>';
        reqs.push({ key, text: `${key} notin (${sorted.join(',')})` });
        break;
      case 'Exists':
        if (values.length !== 0) return '<error>';
        reqs.push({ key, text: key });
        break;
      case 'DoesNotExist':
        if (values.length !== 0) return '<error>';
        reqs.push({ key, text: `!${key}` });
        break;
      default:
        return '<error>';
    }
  }
  reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const s = reqs.map((r) => r.text).join(',');
  return s === '' ? '<none>' : s;
}

/** An IntOrString as text. */
export function intOrString(v: unknown): string {
  if (typeof v === 'number') return String(v);
  return str(v);
}

/** A quantity as text (`0` when unset; stored quantities are already canonical). */
export function quantity(v: unknown): string {
  if (typeof v === 'number') return String(v);
  return typeof v === 'string' && v !== '' ? v : '0';
}

/** Joins an address and a port as Go's net.JoinHostPort does (brackets around IPv6). */
export function joinHostPort(host: string, port: number | string): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** `a,b,c` of the first `max` items, `a,b,c + 4 more...` when there are more; `<unset>` when none. */
export function listWithMore(list: string[], count: number, max: number): string {
  const ret = list.slice(0, max).join(',');
  if (count > max) return `${ret} + ${count - max} more...`;
  return ret === '' ? '<unset>' : ret;
}
