// The probes' HTTP client: HTTPS/1.1 over keep-alive connections, as the admin (client
// certificate) or as a token user, every request with a time limit (a request past it is a hang);
// Http2Client: the same over one HTTP/2 connection.
import { Agent, request } from 'node:https';
import { connect, type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import type { ClientTls } from '../helpers.js';

export interface Answer {
  /** 0: no answer in time (a hang); -1: the connection failed (`error` says how). */
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  ms: number;
  error?: string;
}

export interface RequestOptions {
  body?: Buffer | string | object;
  /** application/json unless said. */
  contentType?: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

export class Client {
  private readonly agent: Agent;

  /** `token`: a bearer token instead of the client certificate of `tls`. */
  constructor(
    readonly base: string,
    tls: ClientTls,
    private readonly token?: string,
    maxSockets = 8,
  ) {
    const identity = token ? { ca: tls.ca } : tls;
    this.agent = new Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets, ...identity });
  }

  /** The same server and trust, as a token user. */
  as(token: string, tls: ClientTls): Client {
    return new Client(this.base, tls, token);
  }

  request(method: string, path: string, options: RequestOptions = {}): Promise<Answer> {
    const { body } = options;
    const payload = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    const headers: Record<string, string> = {
      Accept: 'application/json',
      ...(payload ? { 'Content-Type': options.contentType ?? 'application/json', 'Content-Length': String(payload.length) } : {}),
      ...(this.token ? { Authorization: `Bearer ${this.token}` } : {}),
      ...options.headers,
    };
    const started = performance.now();
    return new Promise((resolve) => {
      let settled = false;
      const settle = (a: Omit<Answer, 'ms'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ...a, ms: performance.now() - started });
      };
      // The path goes out as written (no URL resolution of dot segments or of a leading //).
      const base = new URL(this.base);
      const req = request({ hostname: base.hostname, port: base.port, path, method, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => settle({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', (err) => settle({ status: -1, headers: {}, body: Buffer.alloc(0), error: err.message }));
      });
      const timer = setTimeout(() => {
        settle({ status: 0, headers: {}, body: Buffer.alloc(0), error: 'no answer in time' });
        req.destroy();
      }, options.timeoutMs ?? 30_000);
      req.on('error', (err) => settle({ status: -1, headers: {}, body: Buffer.alloc(0), error: err.message }));
      req.end(payload);
    });
  }

  /** The request's answer as JSON, after checking its status. */
  async json<T = Record<string, unknown>>(method: string, path: string, options: RequestOptions & { expect?: number } = {}): Promise<T> {
    const a = await this.request(method, path, options);
    const expect = options.expect ?? (method === 'POST' ? 201 : 200);
    if (a.status !== expect) throw new Error(`${method} ${path}: ${a.status} ${a.error ?? a.body.toString().slice(0, 300)}`);
    return JSON.parse(a.body.toString()) as T;
  }

  close(): void {
    this.agent.destroy();
  }
}

/** The answer's body as JSON, or undefined when it is not JSON. */
export function parsed(a: Answer): unknown {
  try {
    return JSON.parse(a.body.toString());
  } catch {
    return undefined;
  }
}

/** A Kubernetes Status object (kind Status, apiVersion v1), as every error answer must be. */
export function isStatus(a: Answer): boolean {
  const s = parsed(a) as { kind?: unknown; apiVersion?: unknown } | undefined;
  return s?.kind === 'Status' && s.apiVersion === 'v1';
}

/**
 * One HTTP/2 connection as the admin (client certificate), with the same request shape as Client.
 * A failed connection is opened again on the next request (after a server restart).
 */
export class Http2Client {
  private session: ClientHttp2Session | undefined;

  constructor(
    readonly base: string,
    private readonly tls: ClientTls,
  ) {}

  private open(): ClientHttp2Session {
    if (this.session && !this.session.closed && !this.session.destroyed) return this.session;
    const session = connect(this.base, { ...this.tls });
    session.on('error', () => session.destroy());
    this.session = session;
    return session;
  }

  request(method: string, path: string, options: RequestOptions = {}): Promise<Answer> {
    const { body } = options;
    const payload = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    const started = performance.now();
    return new Promise((resolve) => {
      let settled = false;
      const settle = (a: Omit<Answer, 'ms'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ...a, ms: performance.now() - started });
      };
      const timer = setTimeout(() => {
        settle({ status: 0, headers: {}, body: Buffer.alloc(0), error: 'no answer in time' });
        stream?.close();
      }, options.timeoutMs ?? 30_000);
      let stream: ClientHttp2Stream | undefined;
      try {
        stream = this.open().request({
          ':method': method,
          ':path': path,
          accept: 'application/json',
          ...(payload ? { 'content-type': options.contentType ?? 'application/json' } : {}),
          ...options.headers,
        });
      } catch (err) {
        settle({ status: -1, headers: {}, body: Buffer.alloc(0), error: (err as Error).message });
        return;
      }
      let status = 0;
      let headers: Record<string, string | string[] | undefined> = {};
      const chunks: Buffer[] = [];
      stream.on('response', (h) => {
        status = Number(h[':status']);
        headers = h as Record<string, string | string[] | undefined>;
      });
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => settle(status ? { status, headers, body: Buffer.concat(chunks) } : { status: -1, headers: {}, body: Buffer.alloc(0), error: 'stream ended without an answer' }));
      stream.on('error', (err) => settle({ status: -1, headers: {}, body: Buffer.alloc(0), error: err.message }));
      stream.on('close', () => settle(status ? { status, headers, body: Buffer.concat(chunks) } : { status: -1, headers: {}, body: Buffer.alloc(0), error: 'stream closed' }));
      stream.end(payload);
    });
  }

  close(): void {
    this.session?.destroy();
  }
}

/** What the probes' writers need of a client: Client (HTTP/1.1) and Http2Client both are one. */
export interface Requester {
  request(method: string, path: string, options?: RequestOptions): Promise<Answer>;
  close(): void;
}
