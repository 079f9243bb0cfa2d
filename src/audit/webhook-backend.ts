// The webhook backend (--audit-webhook-config-file): events POSTed as audit.k8s.io/v1 EventLists
// to the server a kubeconfig names, in batches (up to --audit-webhook-batch-max-size events, or
// what gathered in --audit-webhook-batch-max-wait), at most --audit-webhook-batch-throttle-qps
// batches a second (bursts of -burst); a failed batch is retried with a growing wait from
// --audit-webhook-initial-backoff, then dropped. In blocking modes each event goes on its own.
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { request as plainRequest } from 'node:http';
import { parseYaml } from '../encoding/yaml-decode.js';
import { isObject, type JsonObject } from '../json.js';
import { BoundedQueue, type AuditBackend, type BackendMode } from './backend.js';
import type { Stage } from './policy.js';
import type { AuditRecord } from './record.js';

export interface WebhookOptions {
  configFile: string;
  mode: BackendMode;
  bufferSize: number;
  maxBatchSize: number;
  maxWaitMs: number;
  throttle: { enabled: boolean; qps: number; burst: number };
  initialBackoffMs: number;
}

/** Where and how to POST: what the kubeconfig's current context names. */
export interface WebhookTarget {
  url: URL;
  ca?: string;
  insecure?: boolean;
  cert?: string;
  key?: string;
  token?: string;
}

const RETRIES = 4;
const TIMEOUT_MS = 30_000;

function named(list: unknown, name: unknown, what: string): JsonObject {
  const items = Array.isArray(list) ? list.filter(isObject) : [];
  const found = name === undefined ? items[0] : items.find((i) => i['name'] === name);
  if (!found) throw new Error(`no ${what}${typeof name === 'string' ? ` "${name}"` : ''} in the kubeconfig`);
  return found;
}

/** Reads a PEM from `<field>-data` (base64) or `<field>` (a file, relative to the kubeconfig's folder). */
function pem(obj: JsonObject, field: string, folder: string): string | undefined {
  const data = obj[`${field}-data`];
  if (typeof data === 'string' && data) return Buffer.from(data, 'base64').toString('utf8');
  const file = obj[field];
  if (typeof file === 'string' && file) return readFileSync(file.startsWith('/') ? file : `${folder}/${file}`, 'utf8');
  return undefined;
}

/** The webhook a kubeconfig names (its current context, or its only cluster and user). */
export function readWebhookConfig(path: string): WebhookTarget {
  const doc = parseYaml(readFileSync(path, 'utf8'));
  if (!isObject(doc)) throw new Error('not a kubeconfig');
  const folder = path.slice(0, Math.max(0, path.lastIndexOf('/'))) || '.';
  const current = doc['current-context'];
  const context = typeof current === 'string' && current ? (named(doc['contexts'], current, 'context')['context'] as JsonObject | undefined) ?? {} : undefined;
  const cluster = (named(doc['clusters'], context?.['cluster'], 'cluster')['cluster'] ?? {}) as JsonObject;
  const server = cluster['server'];
  if (typeof server !== 'string' || !URL.canParse(server)) throw new Error('the cluster has no server URL');
  const target: WebhookTarget = { url: new URL(server) };
  const ca = pem(cluster, 'certificate-authority', folder);
  if (ca) target.ca = ca;
  if (cluster['insecure-skip-tls-verify'] === true) target.insecure = true;
  const users = Array.isArray(doc['users']) ? doc['users'] : [];
  if (users.length) {
    const user = (named(users, context?.['user'], 'user')['user'] ?? {}) as JsonObject;
    const cert = pem(user, 'client-certificate', folder);
    const key = pem(user, 'client-key', folder);
    if (cert && key) Object.assign(target, { cert, key });
    if (typeof user['token'] === 'string' && user['token']) target.token = user['token'];
  }
  return target;
}

/** One POST; resolves on a 2xx answer. */
function post(target: WebhookTarget, body: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { 'Content-Type': 'application/json', Accept: 'application/json', 'Content-Length': body.length };
    if (target.token) headers['Authorization'] = `Bearer ${target.token}`;
    const options = { method: 'POST', headers, timeout: TIMEOUT_MS, ca: target.ca, cert: target.cert, key: target.key, rejectUnauthorized: !target.insecure };
    const send = target.url.protocol === 'http:' ? plainRequest : request;
    const req = send(target.url, options, (res) => {
      res.resume();
      res.on('end', () => {
        const code = res.statusCode ?? 0;
        if (code >= 200 && code < 300) resolve();
        else reject(new Error(`the webhook answered ${code}`));
      });
    });
    req.on('timeout', () => req.destroy(new Error('the webhook did not answer in time')));
    req.on('error', reject);
    req.end(body);
  });
}

/** A token bucket: `qps` tokens a second, at most `burst` saved. */
class Throttle {
  private tokens: number;
  private last = Date.now();

  constructor(private readonly qps: number, private readonly burst: number) {
    this.tokens = burst;
  }

  async take(): Promise<void> {
    const now = Date.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    if (this.tokens < 1) {
      await new Promise((r) => setTimeout(r, ((1 - this.tokens) / this.qps) * 1000));
      this.tokens = 1;
      this.last = Date.now();
    }
    this.tokens -= 1;
  }
}

export class WebhookBackend implements AuditBackend {
  private readonly queue: BoundedQueue<string>;
  private readonly throttle: Throttle | undefined;

  constructor(private readonly target: WebhookTarget, private readonly options: WebhookOptions) {
    const batch = options.mode === 'batch';
    this.throttle = batch && options.throttle.enabled ? new Throttle(options.throttle.qps, options.throttle.burst) : undefined;
    this.queue = new BoundedQueue(
      { bufferSize: options.bufferSize, maxBatchSize: batch ? options.maxBatchSize : 1, name: 'webhook', gatherMs: batch ? options.maxWaitMs : 0 },
      (events) => this.send(events),
    );
  }

  process(record: AuditRecord, stage: Stage, stageMicros: number): boolean {
    const line = record.line(stage, stageMicros);
    return this.queue.push(line.slice(0, -1));
  }

  close(): Promise<void> {
    return this.queue.close();
  }

  private async send(events: string[]): Promise<void> {
    await this.throttle?.take();
    const body = Buffer.from(`{"kind":"EventList","apiVersion":"audit.k8s.io/v1","metadata":{},"items":[${events.join(',')}]}`);
    let wait = this.options.initialBackoffMs;
    for (let attempt = 0; ; attempt++) {
      try {
        await post(this.target, body);
        return;
      } catch (err) {
        if (attempt >= RETRIES) throw err;
        await new Promise((r) => setTimeout(r, wait));
        wait *= 1.5;
      }
    }
  }
}
