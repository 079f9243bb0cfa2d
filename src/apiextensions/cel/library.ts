// The Kubernetes CEL library of kube-apiserver 1.25 on cel-js: lists (isSorted, sum, min, max,
// indexOf, lastIndexOf), regex (find, findAll) and urls (url, isURL, getScheme, getHost,
// getHostname, getPort, getEscapedPath, getQuery), plus the strings extension functions cel-js
// lacks (charAt, replace). Regular expressions run on RE2 (re2js: linear time, RE2 syntax, as
// cel-go's) — `matches` too, which compile.ts renames to `re2matches` in every rule's AST,
// because cel-js's own `matches` uses backtracking RegExp. Functions charge the meter by input size.
import type { Environment } from '@marcbachmann/cel-js';
import type { RE2JS } from 're2js';
import { re2Engine } from '../schema/re2.js';
import { charge } from './meter.js';

const regexCache = new Map<string, RE2JS>();

/** A compiled RE2 pattern (cached; throws the RE2 syntax error). */
export function re2(pattern: string): RE2JS {
  let re = regexCache.get(pattern);
  if (!re) {
    re = re2Engine().compile(pattern);
    if (regexCache.size > 1000) regexCache.clear();
    regexCache.set(pattern, re);
  }
  return re;
}

/** The cost of a regex over a string, as cel-go's estimator puts it (traversal × pattern size). */
const regexCost = (s: string, p: string): number => 1 + Math.ceil(s.length * 0.1 * Math.max(1, p.length * 0.25));
const sizeCost = (n: number): number => 1 + Math.ceil(n * 0.1);

function findAll(s: string, p: string, limit: number): string[] {
  charge(regexCost(s, p));
  const out: string[] = [];
  if (limit === 0) return out;
  const m = re2(p).matcher(s);
  while (m.find()) {
    out.push(m.group() ?? '');
    if (limit > 0 && out.length >= limit) break;
  }
  return out;
}

/** A URL as the urls library holds it (net/url.URL: absolute URIs and absolute paths). */
export class KubeURL {
  constructor(readonly raw: string, readonly url: URL, readonly hasHost: boolean) {}
}

function parseURL(s: string): KubeURL | undefined {
  const scheme = /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(s);
  if (!scheme && !s.startsWith('/')) return undefined;
  if (/[\s]/.test(s)) return undefined;
  try {
    const url = scheme ? new URL(s) : new URL(s, 'http://placeholder');
    return new KubeURL(s, url, scheme && /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(s));
  } catch {
    return undefined;
  }
}

type Comparable = bigint | number | string;
function compare(a: Comparable, b: Comparable): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Registers the library on `env` (once, on the base environment every rule's environment clones). */
export function registerKubernetesLibrary(env: Environment): void {
  const fn = (signature: string, handler: (...args: never[]) => unknown): void => {
    env.registerFunction(signature, handler as (...args: unknown[]) => unknown);
  };
  // regex
  fn('string.re2matches(string): bool', (s: string, p: string) => { charge(regexCost(s, p)); return re2(p).matcher(s).find(); });
  fn('re2matches(string, string): bool', (s: string, p: string) => { charge(regexCost(s, p)); return re2(p).matcher(s).find(); });
  fn('string.find(string): string', (s: string, p: string) => findAll(s, p, 1)[0] ?? '');
  fn('string.findAll(string): list<string>', (s: string, p: string) => findAll(s, p, -1));
  fn('string.findAll(string, int): list<string>', (s: string, p: string, n: bigint) => findAll(s, p, Number(n)));
  // strings extension functions cel-js does not have
  fn('string.charAt(int): string', (s: string, i: bigint) => {
    const cps = [...s];
    if (i < 0n || i > BigInt(cps.length)) throw new Error(`index out of range: ${i}`);
    return cps[Number(i)] ?? '';
  });
  fn('string.replace(string, string): string', (s: string, a: string, b: string) => { charge(sizeCost(s.length)); return s.split(a).join(b); });
  fn('string.replace(string, string, int): string', (s: string, a: string, b: string, n: bigint) => {
    charge(sizeCost(s.length));
    if (n < 0n) return s.split(a).join(b);
    const parts = s.split(a);
    const k = Math.min(Number(n), parts.length - 1);
    return parts.slice(0, k + 1).join(b) + (k + 1 < parts.length ? a + parts.slice(k + 1).join(a) : '');
  });
  // lists
  for (const t of ['int', 'uint', 'double', 'string', 'bool', 'bytes', 'google.protobuf.Timestamp', 'google.protobuf.Duration']) {
    const key = (v: unknown): Comparable => (v instanceof Date ? v.getTime() : v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : typeof v === 'boolean' ? Number(v) : (v as Comparable));
    const sorted = (l: unknown[]) => { charge(1 + l.length); return l.every((x, i) => i === 0 || compare(key(l[i - 1]), key(x)) <= 0); };
    const pick = (name: string, sign: number) => (l: unknown[]) => {
      charge(1 + l.length);
      if (!l.length) throw new Error(`${name} called on empty list`);
      return l.reduce((m, x) => (compare(key(x), key(m)) * sign > 0 ? x : m));
    };
    const index = (last: boolean) => (l: unknown[], v: unknown) => {
      charge(1 + l.length);
      const i = last ? l.map(key).lastIndexOf(key(v)) : l.map(key).indexOf(key(v));
      return BigInt(i);
    };
    if (t !== 'bool' && t !== 'bytes' && t !== 'google.protobuf.Duration') {
      fn(`list<${t}>.isSorted(): bool`, sorted);
      fn(`list<${t}>.min(): ${t}`, pick('min', -1));
      fn(`list<${t}>.max(): ${t}`, pick('max', 1));
    }
    if (t !== 'google.protobuf.Duration') {
      fn(`list<${t}>.indexOf(${t}): int`, index(false));
      fn(`list<${t}>.lastIndexOf(${t}): int`, index(true));
    }
  }
  fn('list<int>.sum(): int', (l: bigint[]) => { charge(1 + l.length); return l.reduce((a, b) => a + b, 0n); });
  fn('list<double>.sum(): double', (l: number[]) => { charge(1 + l.length); return l.reduce((a, b) => a + b, 0); });
  // urls
  env.registerType('net.URL', KubeURL);
  fn('url(string): net.URL', (s: string) => {
    charge(sizeCost(s.length));
    const u = parseURL(s);
    if (!u) throw new Error(`URL parse error during conversion from string: parse ${JSON.stringify(s)}: invalid URI for request`);
    return u;
  });
  fn('isURL(string): bool', (s: string) => { charge(sizeCost(s.length)); return parseURL(s) !== undefined; });
  fn('net.URL.getScheme(): string', (u: KubeURL) => (/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(u.raw) ? u.url.protocol.slice(0, -1) : ''));
  fn('net.URL.getHost(): string', (u: KubeURL) => (u.hasHost ? u.url.host : ''));
  fn('net.URL.getHostname(): string', (u: KubeURL) => (u.hasHost ? u.url.hostname.replace(/^\[(.*)\]$/, '$1') : ''));
  fn('net.URL.getPort(): string', (u: KubeURL) => (u.hasHost ? u.url.port : ''));
  fn('net.URL.getEscapedPath(): string', (u: KubeURL) => u.url.pathname);
  fn('net.URL.getQuery(): map<string, list<string>>', (u: KubeURL) => {
    const out = new Map<string, string[]>();
    for (const [k, v] of u.url.searchParams) out.set(k, [...(out.get(k) ?? []), v]);
    return out;
  });
}
