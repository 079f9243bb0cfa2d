// Shared test helpers: the repo root, reference fixtures, an in-process server and a raw HTTP client.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { get as httpGet, request as httpRequest, type IncomingMessage } from 'node:http';
import { get as httpsGet, request as httpsRequest } from 'node:https';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtinResourceDefinitions } from '../src/registry/builtin/index.js';
import type { ResourceDefinitions, ResourceHooks } from '../src/registry/definitions.js';
import type { Evaluator } from '../src/quota/evaluators.js';
import { startServer, type RunningServer, type ServerOptions } from '../src/server/server.js';

function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return dir;
}

export const repoRoot = findRoot();
/** Test data kept in the repository, so that a fresh clone tests on its own (see test/fixtures/README.md). */
export const fixturesDir = join(repoRoot, 'test', 'fixtures');
/** kube-apiserver 1.25.0's recorded answers. */
export const referenceDir = join(fixturesDir, 'reference');
/** One object of every built-in kind as JSON and Protobuf (the Kubernetes 1.25 API testdata). */
export const k8sTestdataDir = join(fixturesDir, 'k8s-1.25', 'testdata');

export interface Fixture {
  description: string;
  request: { method: string; path: string; headers: Record<string, string>; body: unknown };
  response: { status: number | null; headers: Record<string, unknown>; body: unknown; rawBody?: string };
}

export function fixture(name: string): Fixture {
  return JSON.parse(readFileSync(join(referenceDir, `${name}.json`), 'utf8')) as Fixture;
}

let builtins: ResourceDefinitions | undefined;

/** What the server does specially for a built-in resource (printer, field selectors, validation, defaults…); nothing for others. */
export function builtinHooks(group: string, resource: string): ResourceHooks {
  builtins ??= builtinResourceDefinitions();
  return builtins.definition(group, resource)?.hooks ?? {};
}

/** The quota evaluators of every built-in resource (what the quota controller measures with). */
export function builtinEvaluators(): Evaluator[] {
  builtins ??= builtinResourceDefinitions();
  return [...builtins.definitions()].flatMap((d) => (d.hooks.quota ? [d.hooks.quota] : []));
}

export async function memoryServer(options: Partial<ServerOptions> = {}): Promise<RunningServer> {
  return startServer({ bindAddress: '127.0.0.1', port: 0, storage: 'memory', dataDir: '', insecure: true, ...options });
}

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test convenience
}

/** TLS material of a client: the CA to trust and, optionally, a client certificate. */
export interface ClientTls {
  ca: string;
  cert?: string;
  key?: string;
}

/** The CA and admin client certificate of a kubeconfig written by capstan (its -data fields). */
export function kubeconfigTls(kubeconfigPath: string): ClientTls {
  const text = readFileSync(kubeconfigPath, 'utf8');
  const field = (name: string) => {
    const m = new RegExp(`${name}: (\\S+)`).exec(text);
    return m ? Buffer.from(m[1]!, 'base64').toString('utf8') : undefined;
  };
  return { ca: field('certificate-authority-data')!, cert: field('client-certificate-data'), key: field('client-key-data') };
}

/** A response read to its end: status, headers, text, and the text parsed as JSON when it is JSON. */
export function readReply(res: IncomingMessage): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('error', reject);
    res.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
    });
  });
}

export function call(base: string, method: string, path: string, options: { body?: unknown; headers?: Record<string, string>; tls?: ClientTls } = {}): Promise<Reply> {
  const url = new URL(path, base);
  let payload: Buffer | undefined;
  if (options.body !== undefined) payload = Buffer.isBuffer(options.body) ? options.body : Buffer.from(typeof options.body === 'string' ? options.body : JSON.stringify(options.body));
  // Content-Length always: Node's client would otherwise send a DELETE body unframed.
  const headers: Record<string, string> = { Accept: 'application/json', ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': String(payload.length) } : {}), ...options.headers };
  return new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, { method, headers, ...(options.tls ?? {}) }, (res) => readReply(res).then(resolve, reject));
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

const UIDS = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/** Puts the fixtures' placeholders into an answer of ours, so the two compare as the README says. */
export function placeholders(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.map((v) => placeholders(v, key));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = placeholders(v, k);
    return out;
  }
  if (typeof value === 'string') {
    if (key === 'resourceVersion') return '<rv>';
    if (TIME.test(value)) return '<time>';
    return value.replace(UIDS, (u) => (u === '00000000-0000-0000-0000-000000000000' ? u : '<uid>'));
  }
  return value;
}

/** managedFields arrive with the field manager; comparisons leave them out until then. */
export function withoutManagedFields(v: unknown): unknown {
  const copy = structuredClone(v) as { metadata?: Record<string, unknown> };
  if (copy.metadata) delete copy.metadata['managedFields'];
  return copy;
}

/** The reply, after asserting its status (the answer's text in the failure message). */
export async function mustOk(reply: Promise<Reply>, status = 200): Promise<Reply> {
  const r = await reply;
  assert.equal(r.status, status, `${r.status} ${r.text}`);
  return r;
}

/** Resolves after `ms` milliseconds: for a test that must let time pass (to see that nothing happens, or a deadline). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Polls `check` (at once, then every `everyMs`) until it gives a value other than undefined or
 * false, and returns that value; fails after `ms` with `what` (a function can describe the state).
 */
export async function until<T>(
  what: string | (() => string),
  check: () => T | undefined | false | Promise<T | undefined | false>,
  ms = 10_000,
  everyMs = 25,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`not reached in ${ms} ms: ${typeof what === 'string' ? what : what()}`);
    await sleep(everyMs);
  }
}

/** The status of a GET (TLS not verified, no client certificate, as envtest's readiness probe); 0 when nothing answers. */
export function probeStatus(url: string): Promise<number> {
  return new Promise((resolve) => {
    const get = url.startsWith('https:') ? httpsGet : httpGet;
    const req = get(url, { rejectUnauthorized: false, timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
    req.on('timeout', () => req.destroy());
  });
}

/** The first event of a watch (`path` names it, with ?watch=true), read as JSON; the connection is then closed. */
export function firstWatchEvent<T>(base: string, path: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const url = new URL(path, base);
    const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        const nl = text.indexOf('\n');
        if (nl < 0) return;
        resolve(JSON.parse(text.slice(0, nl)) as T);
        req.destroy();
      });
    });
    req.on('error', reject);
    req.end();
  });
}
