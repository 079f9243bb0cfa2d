// The HTTPS call to a webhook (admission and CRD conversion alike): POST of the review to clientConfig.url, or to a service reference
// (https://<name>.<namespace>.svc:<port><path>, dialled at an endpoint's address, the certificate
// checked for the service's DNS name), trusting caBundle. Failures read as the reference's client
// reports them (`Post "https://…?timeout=10s": dial tcp …: connect: connection refused`).
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { posix } from 'node:path';
import { isObject } from '../json.js';
import type { Registry } from './store.js';
import { ResolveError, resolveService, type Address, type ServiceReference } from './webhook-service.js';

export type { ServiceReference };

/** Where a webhook is called: a URL, or a service reference; with the CA bundle to trust. */
export interface ClientConfig {
  url?: string;
  service?: ServiceReference;
  /** PEM certificates to trust (decoded caBundle); the system's roots when absent. */
  caBundle?: string;
}

/** A webhook client config as stored (caBundle base64, service port defaulted to 443), read for calling. */
export function clientConfigFrom(raw: unknown): ClientConfig {
  const c = isObject(raw) ? raw : {};
  const out: ClientConfig = {};
  if (typeof c['url'] === 'string') out.url = c['url'];
  if (isObject(c['service'])) {
    const s = c['service'];
    out.service = {
      namespace: String(s['namespace'] ?? ''),
      name: String(s['name'] ?? ''),
      path: typeof s['path'] === 'string' ? s['path'] : undefined,
      port: typeof s['port'] === 'number' ? s['port'] : 443,
    };
  }
  if (typeof c['caBundle'] === 'string' && c['caBundle'] !== '') out.caBundle = Buffer.from(c['caBundle'], 'base64').toString('utf8');
  return out;
}

/** How a call is made: its deadline, and whether the deadline is sent as `?timeout=` (admission's client does). */
export interface CallOptions {
  timeoutSeconds: number;
  timeoutInQuery: boolean;
  userAgent: string;
}

/** Connections are kept for the next call (the agent pools them per address, CA and server name). */
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** A call that did not produce a usable 2xx answer; the message is the reference client's. */
export class CallFailure extends Error {}

interface Target {
  /** scheme://host[:port] as the URL was written (the reference shows an explicit :443). */
  origin: string;
  secure: boolean;
  path: string;
  dial: () => Promise<Address>;
  /** The name the certificate must be valid for (a service's DNS name, or the URL's host name). */
  servername: string;
}

/** A request path as the reference's client builds it: rooted, cleaned, no trailing slash. */
function cleanPath(path: string | undefined): string {
  const p = posix.normalize(`/${path ?? ''}`);
  return p.length > 1 ? p.replace(/\/+$/, '') : p;
}

const ORIGIN = /^([a-z][a-z0-9+.-]*:\/\/[^/?#]*)/i;

function targetOf(registry: Registry, config: ClientConfig): Target {
  if (config.url !== undefined) {
    let url: URL;
    try {
      url = new URL(config.url);
    } catch {
      throw new CallFailure(`parse ${goQuote(config.url)}: invalid URL`);
    }
    const secure = url.protocol !== 'http:';
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const port = url.port ? Number(url.port) : secure ? 443 : 80;
    const origin = ORIGIN.exec(config.url)?.[1] ?? `${url.protocol}//${url.host}`;
    return { origin, secure, path: cleanPath(url.pathname), servername: host, dial: async () => ({ host, port }) };
  }
  const service = config.service;
  if (!service) throw new CallFailure('no url or service reference in clientConfig');
  const servername = `${service.name}.${service.namespace}.svc`;
  return {
    origin: `https://${servername}:${service.port}`, secure: true, path: cleanPath(service.path), servername,
    dial: () => resolveService(registry, service),
  };
}

function goQuote(s: string): string {
  return JSON.stringify(s);
}

/** Node's connection and TLS errors in the words of Go's (what the reference prints). */
function networkErrorText(err: NodeJS.ErrnoException & { cert?: { subjectaltname?: string } }, address: Address, servername: string): string {
  const hostPort = isIP(address.host) === 6 ? `[${address.host}]:${address.port}` : `${address.host}:${address.port}`;
  switch (err.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${hostPort}: connect: connection refused`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `dial tcp: lookup ${address.host}: no such host`;
    case 'ECONNRESET':
      return 'EOF';
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return 'x509: certificate signed by unknown authority';
    case 'CERT_HAS_EXPIRED':
    case 'CERT_NOT_YET_VALID':
      return 'x509: certificate has expired or is not yet valid';
    case 'ERR_TLS_CERT_ALTNAME_INVALID': {
      const names = (err.cert?.subjectaltname ?? '').split(', ').map((n) => n.replace(/^(DNS|IP Address):/, '')).filter(Boolean);
      return names.length ? `x509: certificate is valid for ${names.join(', ')}, not ${servername}` : `x509: certificate is not valid for any names, but wanted to match ${servername}`;
    }
    default:
      return err.message;
  }
}

/** The reference client's error for a non-2xx answer that is not a Status. */
function unexpectedStatusText(status: number, contentType: string, body: Buffer): string {
  const serverMessage = contentType.startsWith('text/') ? body.toString('utf8').trim().slice(0, 2048) : 'unknown';
  switch (status) {
    case 400: return 'the server rejected our request for an unknown reason';
    case 401: return 'the server has asked for the client to provide credentials';
    case 403: return serverMessage;
    case 404: return 'the server could not find the requested resource';
    case 405: return 'the server does not allow this method on the requested resource';
    case 406: return 'the server was unable to respond with a content type that the client supports';
    case 409: return 'the server reported a conflict';
    case 415: return 'the server was unable to respond with a content type that the client supports';
    case 422: return 'the server rejected our request due to an error in our request';
    case 429: return 'the server has received too many requests and has asked us to try again later';
    case 503: return 'the server is currently unable to handle the request';
    case 504: return 'the server was unable to return a response in the time allotted, but may still be processing the request';
    default:
      if (status >= 500) return `an error on the server (${goQuote(serverMessage)}) has prevented the request from succeeding`;
      return `the server responded with the status code ${status} but did not return more information`;
  }
}

/** A non-2xx answer: its Status's message when it sent one, else the generic text for the code. */
function nonSuccessText(status: number, contentType: string, body: Buffer): string {
  if (contentType === '' || contentType.includes('json')) {
    try {
      const parsed: unknown = JSON.parse(body.toString('utf8'));
      if (typeof parsed === 'object' && parsed !== null && (parsed as Record<string, unknown>)['kind'] === 'Status') {
        const message = (parsed as Record<string, unknown>)['message'];
        if (typeof message === 'string' && message) return message;
      }
    } catch {
      // not a Status: the generic text below
    }
  }
  return unexpectedStatusText(status, contentType, body);
}

/** Go's encoding/json wording for a body that is not JSON. */
export function jsonErrorText(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '') return 'unexpected end of JSON input';
  const first = trimmed[0]!;
  if (!'{["-0123456789tfn'.includes(first)) return `invalid character '${first}' looking for beginning of value`;
  return 'unexpected end of JSON input';
}

function send(target: Target, address: Address, path: string, body: Buffer, ca: string | undefined, timeoutMs: number, userAgent: string): Promise<IncomingMessage & { data: Buffer }> {
  return new Promise((resolve, reject) => {
    const options = {
      host: address.host,
      port: address.port,
      path,
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, */*',
        'Content-Length': String(body.length),
        'User-Agent': userAgent,
      },
      // No SNI for an IP address; the certificate is then checked for the IP.
      ...(target.secure ? { agent, ca, servername: isIP(target.servername) ? undefined : target.servername } : {}),
    };
    let settled = false;
    let timedOut = false;
    const settle = (err: Error | undefined, res?: IncomingMessage & { data: Buffer }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // Whatever broke once the deadline passed, the deadline is the reason.
      if (err) reject(timedOut ? new DeadlineExceeded() : err);
      else resolve(res!);
    };
    const req = (target.secure ? httpsRequest : httpRequest)(options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => settle(undefined, Object.assign(res, { data: Buffer.concat(chunks) })));
      res.on('error', settle);
      res.on('close', () => settle(new Error('unexpected EOF')));
    });
    const timer = setTimeout(() => {
      timedOut = true;
      req.destroy(new DeadlineExceeded());
    }, timeoutMs);
    req.on('error', settle);
    req.end(body);
  });
}

class DeadlineExceeded extends Error {
  constructor() {
    super('context deadline exceeded');
  }
}

/** Admission's calls: the hook's timeout, also sent as the `timeout` parameter. */
export function admissionCall(timeoutSeconds: number): CallOptions {
  return { timeoutSeconds, timeoutInQuery: true, userAgent: 'kube-apiserver-admission' };
}

/**
 * POSTs `body` to the webhook within the call's deadline and returns the parsed JSON answer;
 * throws CallFailure with the reference client's text otherwise.
 */
export async function postJson(registry: Registry, config: ClientConfig, body: Buffer, call: CallOptions): Promise<unknown> {
  const target = targetOf(registry, config);
  const { timeoutSeconds } = call;
  const path = call.timeoutInQuery ? `${target.path}?timeout=${timeoutSeconds}s` : target.path;
  const shown = `Post ${goQuote(target.origin + path)}`;
  let address: Address | undefined;
  let res: IncomingMessage & { data: Buffer };
  try {
    address = await target.dial();
    res = await send(target, address, path, body, config.caBundle, timeoutSeconds * 1000, call.userAgent);
  } catch (err) {
    if (err instanceof ResolveError || err instanceof DeadlineExceeded) throw new CallFailure(`${shown}: ${err.message}`);
    if (err instanceof CallFailure) throw err;
    const text = address ? networkErrorText(err as NodeJS.ErrnoException, address, target.servername) : String(err);
    throw new CallFailure(`${shown}: ${text}`);
  }
  const status = res.statusCode ?? 0;
  const contentType = String(res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (status < 200 || status > 206) throw new CallFailure(nonSuccessText(status, contentType, res.data));
  const text = res.data.toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new CallFailure(jsonErrorText(text));
  }
}
