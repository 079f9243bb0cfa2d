// A seeded mutation fuzzer over valid bodies: POST, PUT and every PATCH type (JSON patch, merge,
// strategic merge, apply) of a few built-in kinds, as JSON or YAML, each body mutated (odd field
// names, type swaps, deep nesting, huge numbers, truncation, invalid UTF-8, duplicate keys, byte
// flips) and sent with odd query parameters. Counted: crashes (server gone), 5xx, error answers
// that are no Status, hangs, and unwanted changes (a refused or dry-run request that changed the
// stored object). Each worker owns its target objects, so "before" is what it last saw.
import { stringify as toYaml } from 'yaml';
import { Client, isStatus, parsed, type Answer } from './client.js';
import type { Figures } from './figures.js';
import { seededRandom } from './kill9.js';
import { wellFormed } from '../../src/json.js';
import type { ProbeServer } from './server.js';

/**
 * The fuzzer's server leaves out the workload controllers: "unwanted" is any change the fuzzer did
 * not make, and the deployment controller writes the fuzzed Deployments' status (and their
 * ReplicaSets' pods) of its own accord.
 */
export const FUZZ_SERVER_ARGS = ['--controllers=*,-deployment,-replicaset,-replicationcontroller'];

export interface FuzzLoad {
  inputs: number;
  seed: number;
  workers: number;
  /** An answer later than this is a hang. */
  hangMs: number;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Random = () => number;

interface Kind {
  kind: string;
  apiVersion: string;
  resource: string;
  spec(name: string): Record<string, Json>;
  /** A small valid change for patches (strategic merge may add list items). */
  change(n: number): Record<string, Json>;
}

const podSpec = (n = 0): Json => ({ containers: [{ name: 'c', image: `nginx:${n % 3 === 0 ? 'latest' : `1.${n % 20}`}` }] });

const KINDS: Kind[] = [
  { kind: 'ConfigMap', apiVersion: 'v1', resource: 'configmaps', spec: () => ({ data: { a: '1', b: 'two' } }), change: (n) => ({ data: { a: String(n) } }) },
  { kind: 'Secret', apiVersion: 'v1', resource: 'secrets', spec: () => ({ type: 'Opaque', data: { k: 'dmFsdWU=' } }), change: (n) => ({ stringData: { s: String(n) } }) },
  { kind: 'Pod', apiVersion: 'v1', resource: 'pods', spec: () => ({ spec: podSpec() }), change: (n) => ({ spec: podSpec(n) }) },
  {
    kind: 'Deployment',
    apiVersion: 'apps/v1',
    resource: 'deployments',
    spec: () => ({ spec: { replicas: 1, selector: { matchLabels: { app: 'fz' } }, template: { metadata: { labels: { app: 'fz' } }, spec: podSpec() } } }),
    change: (n) => ({ spec: { replicas: n % 4, template: { spec: podSpec(n) } } }),
  },
  { kind: 'Service', apiVersion: 'v1', resource: 'services', spec: () => ({ spec: { selector: { app: 'fz' }, ports: [{ name: 'http', port: 80 }] } }), change: (n) => ({ spec: { ports: [{ name: 'http', port: 80 + (n % 100) }] } }) },
  {
    kind: 'Role',
    apiVersion: 'rbac.authorization.k8s.io/v1',
    resource: 'roles',
    spec: () => ({ rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] }),
    change: (n) => ({ rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: n % 2 ? ['get'] : ['list'] }] }),
  },
];

const collectionPath = (k: Kind, ns: string) => `${k.apiVersion === 'v1' ? '/api/v1' : `/apis/${k.apiVersion}`}/namespaces/${ns}/${k.resource}`;

const ODD_NAMES = ['', '\u0000', 'a\u0007b', '\u001b[31m', 'zzz💥', 'ключ', '名前', '\ud800', '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '$ref', '.', '/', '~1', 'a.b', 'x'.repeat(10_000), ' ', '\r\n', 'f\u00ffld'];
const ODD_VALUES: Json[] = [null, true, false, 0, -1, 1.5, 1e308, -1e308, '', 'x', '💥', [], {}, [[[]]], { a: { b: {} } }, 'x'.repeat(5000)];
const HUGE_NUMBERS = ['1e999999', '123456789012345678901234567890', '-0', '1e-400', '9007199254740993', '0x10', '01', '1.', 'NaN', 'Infinity', '-'];
const ODD_QUERY = [
  'dryRun=All', 'dryRun=All', 'dryRun=bogus', 'dryRun=', 'fieldManager=fz%00x', `fieldManager=${'m'.repeat(200)}`, 'fieldManager=%F0%9F%92%A5', 'fieldManager=',
  'fieldValidation=Strict', 'fieldValidation=Warn', 'fieldValidation=Ignore', 'fieldValidation=bogus', 'force=true', 'force=false', 'force=x',
  'gracePeriodSeconds=abc', 'gracePeriodSeconds=-1', 'gracePeriodSeconds=5', 'resourceVersion=abc', 'resourceVersion=1', 'resourceVersion=999999999999',
  'pretty=1', 'timeout=abc', 'timeout=1s', 'labelSelector=%3D%3D%3D', 'fieldSelector=a%3Db', 'propagationPolicy=x', '%zz=1', 'a=%', '__proto__=1',
];

/** Sets an own property (so that `__proto__` becomes a field, not the prototype). */
function setOwn(o: Record<string, Json>, key: string, value: Json): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Every place a value sits: its parent and key. */
function places(value: Json, out: [Json[] | Record<string, Json>, string | number][] = [], depth = 0): [Json[] | Record<string, Json>, string | number][] {
  if (depth > 20 || value === null || typeof value !== 'object') return out;
  if (Array.isArray(value)) value.forEach((v, i) => (out.push([value, i]), places(v, out, depth + 1)));
  else for (const k of Object.keys(value)) out.push([value, k]), places(value[k]!, out, depth + 1);
  return out;
}

function objectsIn(value: Json, out: Record<string, Json>[] = [], depth = 0): Record<string, Json>[] {
  if (depth > 20 || value === null || typeof value !== 'object') return out;
  if (Array.isArray(value)) for (const v of value) objectsIn(v, out, depth + 1);
  else {
    out.push(value);
    for (const v of Object.values(value)) objectsIn(v, out, depth + 1);
  }
  return out;
}

const pick = <T>(random: Random, list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
/** A fresh copy of an odd value (shared ones would be mutated into cycles by later mutations). */
const oddValue = (random: Random): Json => structuredClone(pick(random, ODD_VALUES));

function nested(depth: number, arrays: boolean): Json {
  let v: Json = 1;
  for (let i = 0; i < depth; i++) v = arrays ? [v] : { a: v };
  return v;
}

/** One mutation of the value's structure; returns its name. */
function mutateValue(value: Json, random: Random): string {
  const spots = places(value);
  const objects = objectsIn(value);
  const r = random();
  if (r < 0.3 && objects.length) {
    const name = pick(random, ODD_NAMES);
    setOwn(pick(random, objects), name, oddValue(random));
    return `odd field name ${JSON.stringify(name.slice(0, 20))}`;
  }
  if (r < 0.55 && spots.length) {
    const [parent, key] = pick(random, spots);
    (parent as Record<string | number, Json>)[key] = oddValue(random);
    return `type swap at ${String(key).slice(0, 20)}`;
  }
  if (r < 0.65 && spots.length) {
    const [parent, key] = pick(random, spots);
    const depth = Math.floor(10 + random() * 3000);
    (parent as Record<string | number, Json>)[key] = nested(depth, random() < 0.5);
    return `nesting ${depth}`;
  }
  if (r < 0.8 && spots.length) {
    const [parent, key] = pick(random, spots);
    if (Array.isArray(parent)) parent.splice(key as number, 1);
    else delete parent[key as string];
    return `removed ${String(key).slice(0, 20)}`;
  }
  if (r < 0.9 && objects.length) {
    // Odd names where names are checked: labels, annotations, the object's name.
    const o = pick(random, objects);
    const odd = pick(random, ODD_NAMES);
    const m = o['metadata'];
    const meta = (m !== null && typeof m === 'object' && !Array.isArray(m) ? m : o) as Record<string, Json>;
    const where = pick(random, ['labels', 'annotations', 'name', 'generateName', 'finalizers']);
    if (where === 'name' || where === 'generateName') meta[where] = odd;
    else if (where === 'finalizers') meta[where] = [odd];
    else {
      const held = meta[where];
      const map = held !== null && typeof held === 'object' && !Array.isArray(held) ? held : (meta[where] = {});
      setOwn(map, odd, odd);
    }
    return `odd ${where} ${JSON.stringify(odd.slice(0, 20))}`;
  }
  if (objects.length) {
    const o = pick(random, objects);
    setOwn(o, 'zzz💥', 1);
    return 'unknown field zzz💥';
  }
  return 'none';
}

/** One mutation of the serialized bytes; returns its name. */
function mutateBytes(bytes: Buffer, random: Random): [Buffer, string] {
  const r = random();
  const at = Math.floor(random() * bytes.length);
  if (r < 0.2) return [bytes.subarray(0, at), `truncated at ${at}`];
  if (r < 0.4) {
    const bad = pick(random, [[0xff], [0xfe, 0xff], [0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80]]);
    return [Buffer.concat([bytes.subarray(0, at), Buffer.from(bad), bytes.subarray(at)]), 'invalid UTF-8'];
  }
  if (r < 0.6) {
    const text = bytes.toString('latin1');
    const m = /"(\w+)":/.exec(text.slice(Math.floor(random() * text.length * 0.8)));
    if (m) {
      const dup = `"${m[1]}":${pick(random, ['1', 'null', '{}', '"x"', '[]'])},`;
      const first = text.indexOf('{');
      return [Buffer.from(text.slice(0, first + 1) + dup + text.slice(first + 1), 'latin1'), `duplicate key ${m[1]}`];
    }
  }
  if (r < 0.8) {
    const text = bytes.toString('latin1');
    const m = /:\s*(-?\d+(\.\d+)?)/.exec(text);
    if (m) return [Buffer.from(text.replace(m[1]!, pick(random, HUGE_NUMBERS)), 'latin1'), 'huge number'];
  }
  const copy = Buffer.from(bytes);
  const flips = 1 + Math.floor(random() * 4);
  for (let i = 0; i < flips && copy.length; i++) copy[Math.floor(random() * copy.length)]! ^= 1 << Math.floor(random() * 8);
  return [copy, `${flips} byte flips`];
}

interface Input {
  method: string;
  path: string;
  contentType: string;
  body: Buffer;
  what: string;
  dryRun: boolean;
  /** For POST: the name the body creates (GET it afterwards). */
  creates?: string;
}

const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'];

function makeInput(kind: Kind, ns: string, target: string, current: Record<string, Json>, n: number, random: Random): Input {
  const collection = collectionPath(kind, ns);
  const r = random();
  let method: string;
  let path: string;
  let contentType: string;
  let value: Json;
  let creates: string | undefined;
  if (r < 0.2) {
    method = 'POST';
    path = collection;
    creates = `${target}-p${n}`;
    value = { apiVersion: kind.apiVersion, kind: kind.kind, metadata: { name: creates, labels: { fz: 'post' } }, ...kind.spec(creates) };
    contentType = random() < 0.7 ? 'application/json' : 'application/yaml';
  } else if (r < 0.4) {
    method = 'PUT';
    path = `${collection}/${target}`;
    value = structuredClone(current);
    const meta = (value as Record<string, Json>)['metadata'] as Record<string, Json>;
    meta['labels'] = { fz: String(n) };
    delete meta['managedFields'];
    contentType = random() < 0.7 ? 'application/json' : 'application/yaml';
  } else {
    method = 'PATCH';
    path = `${collection}/${target}`;
    contentType = pick(random, PATCH_TYPES);
    const change = kind.change(n);
    if (contentType === 'application/json-patch+json') value = [{ op: 'add', path: '/metadata/labels', value: { fz: String(n) } }, ...Object.entries(change).map(([k, v]): Json => ({ op: 'add', path: `/${k}`, value: v }))];
    else if (contentType === 'application/apply-patch+yaml') value = { apiVersion: kind.apiVersion, kind: kind.kind, metadata: { name: target, labels: { fz: String(n) } }, ...change };
    else value = { metadata: { labels: { fz: String(n) } }, ...change };
  }
  const what: string[] = [];
  const structural = Math.floor(random() * 3);
  for (let i = 0; i < structural; i++) what.push(mutateValue(value, random));
  const yaml = contentType === 'application/yaml' || (contentType === 'application/apply-patch+yaml' && random() < 0.5);
  let body: Buffer = Buffer.from(yaml ? safeYaml(value) : JSON.stringify(value));
  if (random() < 0.35) {
    const [b, name] = mutateBytes(body, random);
    body = b;
    what.push(name);
  }
  // Now and then the same write aimed at a subresource (status; a Deployment's scale).
  if (method !== 'POST' && random() < 0.1) {
    const sub = kind.kind === 'Deployment' && random() < 0.5 ? 'scale' : 'status';
    if (['Pod', 'Deployment', 'Service'].includes(kind.kind) || sub === 'scale') path += `/${sub}`;
  }
  const query: string[] = [];
  if (contentType === 'application/apply-patch+yaml') query.push(random() < 0.9 ? 'fieldManager=fz' : pick(random, ODD_QUERY));
  const extra = Math.floor(random() * 3);
  for (let i = 0; i < extra; i++) query.push(pick(random, ODD_QUERY));
  const dryRun = query.includes('dryRun=All');
  return { method, path: query.length ? `${path}?${query.join('&')}` : path, contentType, body, what: what.join(', ') || 'valid', dryRun, ...(creates ? { creates } : {}) };
}

/** YAML of the value; the YAML library cannot write every value (lone surrogates): JSON is YAML too. */
function safeYaml(value: Json): string {
  try {
    return toYaml(value, { aliasDuplicateObjects: false });
  } catch {
    return JSON.stringify(value);
  }
}

/** Hangs after which the server is taken to answer no more. */
const HANGS_TO_GIVE_UP = 10;

const FAILURES = ['crashes', '5xx', 'non-Status error answers', 'hangs', 'unwanted changes'] as const;
type Failure = (typeof FAILURES)[number];

function show(input: Input, a: Answer, extra = ''): string {
  const body = JSON.stringify(input.body.toString('latin1').slice(0, 240));
  return `${input.method} ${input.path.slice(0, 160)} [${input.contentType}] (${input.what}) ${body}${input.body.length > 240 ? `…(${input.body.length} bytes)` : ''} → ${a.status} ${a.error ?? a.body.toString().slice(0, 240)}${extra}`;
}

export interface FuzzResult {
  counts: Record<Failure, number>;
  examples: Record<Failure, string[]>;
  inputs: number;
  statuses: Map<number, number>;
}

export async function fuzz(server: ProbeServer, load: FuzzLoad, figures: Figures): Promise<FuzzResult> {
  const result: FuzzResult = { counts: { crashes: 0, '5xx': 0, 'non-Status error answers': 0, hangs: 0, 'unwanted changes': 0 }, examples: { crashes: [], '5xx': [], 'non-Status error answers': [], hangs: [], 'unwanted changes': [] }, inputs: 0, statuses: new Map() };
  let crashed = false;
  const fail = (f: Failure, text: string) => {
    result.counts[f]++;
    if (result.examples[f].length < 5) result.examples[f].push(text);
    // A server that stopped answering (an input that blocks it for good) ends the run: the first hangs show the input.
    if (f === 'hangs' && result.counts.hangs >= HANGS_TO_GIVE_UP) crashed = true;
  };
  const admin = new Client(server.url, server.admin, undefined, load.workers * 2);
  let next = 0;
  /** The target read back after an input: 200 with a JSON body, or 404; undefined (counted as a hang) when the server gives neither in three tries. */
  const readBack = async (path: string, input: Input, a: Answer): Promise<Answer | undefined> => {
    for (let i = 0; i < 3; i++) {
      const got = await admin.request('GET', path, { timeoutMs: load.hangMs });
      if (got.status === 404 || (got.status === 200 && parsed(got) !== undefined)) return got;
      fail('hangs', show(input, a, `\n    then reading ${path} back: ${got.status} ${got.error ?? ''} ${got.body.length} bytes`));
    }
    return undefined;
  };
  const worker = async (w: number) => {
    const random = seededRandom(load.seed * 7919 + w);
    const ns = `fuzz-${w}`;
    await admin.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } });
    const targets: { kind: Kind; name: string; bytes: Buffer }[] = [];
    for (const kind of KINDS) {
      const name = `fz-${kind.resource}`;
      const created = await admin.request('POST', collectionPath(kind, ns), { body: { apiVersion: kind.apiVersion, kind: kind.kind, metadata: { name }, ...kind.spec(name) } });
      if (created.status !== 201) throw new Error(`fuzz: creating ${kind.kind}: ${created.status} ${created.body.toString().slice(0, 300)}`);
      const got = await admin.request('GET', `${collectionPath(kind, ns)}/${name}`);
      targets.push({ kind, name, bytes: got.body });
    }
    while (!crashed) {
      const n = next++;
      if (n >= load.inputs) return;
      const target = pick(random, targets);
      const current = JSON.parse(target.bytes.toString()) as Record<string, Json>;
      const input = makeInput(target.kind, ns, target.name, current, n, random);
      const a = await admin.request(input.method, input.path, { body: input.body, contentType: input.contentType, timeoutMs: load.hangMs });
      result.inputs++;
      result.statuses.set(a.status, (result.statuses.get(a.status) ?? 0) + 1);
      if (!server.alive()) {
        crashed = true;
        fail('crashes', show(input, a, `\n    server stderr: ${server.stderr().slice(-500)}`));
        return;
      }
      if (a.status === 0) fail('hangs', show(input, a));
      if (a.status >= 500) fail('5xx', show(input, a));
      if (a.status >= 400 && !isStatus(a)) fail('non-Status error answers', show(input, a));
      const changedOnPurpose = a.status >= 200 && a.status < 300 && !input.dryRun;
      if (input.creates) {
        const got = await admin.request('GET', `${collectionPath(target.kind, ns)}/${input.creates}`);
        if (got.status === 200) {
          if (!changedOnPurpose) fail('unwanted changes', show(input, a, `\n    yet ${input.creates} now exists`));
          await admin.request('DELETE', `${collectionPath(target.kind, ns)}/${input.creates}?gracePeriodSeconds=0`);
        }
        const made = (parsed(a) as { metadata?: { name?: string } } | undefined)?.metadata?.name;
        if (changedOnPurpose && made && made !== input.creates) {
          if (wellFormed(made) !== made) fail('unwanted changes', show(input, a, `\n    stored a name that is not well-formed UTF-16: ${JSON.stringify(made)}`));
          else await admin.request('DELETE', `${collectionPath(target.kind, ns)}/${encodeURIComponent(made)}?gracePeriodSeconds=0`);
        }
      } else {
        const targetPath = `${collectionPath(target.kind, ns)}/${target.name}`;
        let got = await readBack(targetPath, input, a);
        if (!got) continue; // the read-back failed (counted): keep what was seen before
        if (got.status === 404) {
          // No PUT or PATCH deletes: the target going away is a change nobody asked for.
          fail('unwanted changes', show(input, a, `\n    and then GET ${target.name}: 404`));
          await admin.request('POST', collectionPath(target.kind, ns), { body: { apiVersion: target.kind.apiVersion, kind: target.kind.kind, metadata: { name: target.name }, ...target.kind.spec(target.name) } });
          got = await readBack(targetPath, input, a);
          if (got?.status === 200) target.bytes = got.body;
          continue;
        }
        if (!changedOnPurpose && !got.body.equals(target.bytes)) fail('unwanted changes', show(input, a, `\n    before: ${target.bytes.toString().slice(0, 300)}\n    after:  ${got.body.toString().slice(0, 300)}`));
        target.bytes = got.body;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: load.workers }, (_, w) => worker(w)));
  } finally {
    admin.close();
  }
  figures.note('seed', String(load.seed));
  figures.note('inputs', String(result.inputs));
  figures.note('answers', [...result.statuses].sort((x, y) => x[0] - y[0]).map(([s, c]) => `${s}: ${c}`).join(', '));
  for (const f of FAILURES) {
    figures.zero(f, result.counts[f]);
    result.examples[f].forEach((e, i) => figures.note(`${f} example ${i + 1}`, e));
  }
  return result;
}
