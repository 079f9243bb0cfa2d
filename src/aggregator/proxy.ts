// The proxy to extension API servers: a request under /apis/<group>/<version> of a remote
// APIService goes, as it came (path, query, body, streamed both ways, watches included), to a
// ready endpoint of the APIService's Service, over HTTPS with capstan's front-proxy client
// certificate and the user in the front proxy's headers. The client's own credentials and any
// identity headers it sent are not passed on. A request to switch protocols (SPDY, WebSocket)
// is passed on as one; when the extension server switches, the two connections are joined and
// carry bytes both ways until either ends.
import { request as httpsRequest, type RequestOptions } from 'node:https';
import type { IncomingMessage, ServerResponse, OutgoingHttpHeaders } from 'node:http';
import { checkServerIdentity } from 'node:tls';
import type { UserInfo } from '../api/user.js';
import { badRequest, StatusError } from '../errors.js';
import { sendStatusError, sendText, type Output } from '../endpoints/request.js';
import { upgradedConnection, type UpgradedConnection } from '../endpoints/upgrade.js';
import type { Duplex } from 'node:stream';
import type { APIServiceView } from './apiservice-objects.js';
import { identityHeaders, isIdentityHeader, type FrontProxyConfig } from './front-proxy.js';
import { isResolved, type Resolved, type ServiceResolver } from './service-resolver.js';

/** Request headers that belong to one hop, or to the client's identity: never sent on. */
const NOT_FORWARDED = new Set([
  'authorization', 'host', 'connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'transfer-encoding',
  'upgrade', 'te', 'trailer', 'http2-settings',
]);
/** Response headers HTTP/2 forbids, or that belong to one hop. */
const NOT_RETURNED = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'trailer']);

const TIMED_OUT = 'Timeout: request did not complete within requested timeout - context deadline exceeded';

export interface ProxyOptions {
  /** How long the extension server has to answer with its headers. */
  readonly responseTimeoutMs: number;
  /** Told when an endpoint could not be reached: the availability is checked again at once rather than at the next period. */
  readonly unreachable?: () => void;
}

/**
 * The path as the client sent it, checked to stay under the group-version's prefix: no `.` or `..`
 * segment, no encoded slash or backslash, nothing undecodable. Throws a 400 Status otherwise.
 */
export function checkedPath(rawUrl: string, group: string, version: string, prefix = `/apis/${group}/${version}`): string {
  const q = rawUrl.indexOf('?');
  const path = q < 0 ? rawUrl : rawUrl.slice(0, q);
  if (path !== prefix && !path.startsWith(`${prefix}/`)) throw badRequest(`the path ${JSON.stringify(path)} is not under ${prefix}`);
  for (const segment of path.split('/')) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      throw badRequest(`the path ${JSON.stringify(path)} is not a valid URL path`);
    }
    if (decoded === '.' || decoded === '..' || decoded.includes('/') || decoded.includes('\\') || decoded.includes('\0')) {
      throw badRequest(`the path ${JSON.stringify(path)} may not contain "." or ".." segments or encoded slashes`);
    }
  }
  return rawUrl;
}

/** The TLS settings for calling the APIService's server: its CA bundle (or no verification), the Service's DNS name, our client certificate. */
export function tlsFor(apiService: APIServiceView, config: FrontProxyConfig): Pick<RequestOptions, 'ca' | 'cert' | 'key' | 'rejectUnauthorized' | 'servername' | 'checkServerIdentity'> {
  const service = apiService.service!;
  const serverName = `${service.name}.${service.namespace}.svc`;
  return {
    cert: config.clientCert,
    key: config.clientKey,
    servername: serverName,
    ...(apiService.insecureSkipTLSVerify
      ? { rejectUnauthorized: false }
      : {
        rejectUnauthorized: true,
        ...(apiService.caBundle ? { ca: Buffer.from(apiService.caBundle, 'base64').toString('utf8') } : {}),
        checkServerIdentity: (_host: string, cert) => checkServerIdentity(serverName, cert),
      }),
  };
}

export class ExtensionProxy {
  constructor(private readonly resolver: ServiceResolver, private readonly config: FrontProxyConfig, private readonly options: ProxyOptions) {}

  /** Sends the request on to the APIService's server and its answer back. Resolves when the exchange ends. */
  async forward(req: IncomingMessage, res: ServerResponse, user: UserInfo, apiService: APIServiceView, out: Output, prefix?: string): Promise<void> {
    let path: string;
    try {
      path = checkedPath(req.url ?? '/', apiService.group, apiService.version, prefix);
    } catch (err) {
      return sendStatusError(res, err, out);
    }
    const target = this.resolver.resolve(apiService.service!);
    if (!isResolved(target)) return sendText(res, 503, `${target.message}\n`);
    await this.exchange(req, res, user, apiService, target, path, out);
  }

  private exchange(req: IncomingMessage, res: ServerResponse, user: UserInfo, apiService: APIServiceView, target: Resolved, path: string, out: Output): Promise<void> {
    return new Promise<void>((resolve) => {
      const headers: OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (name.startsWith(':') || NOT_FORWARDED.has(name) || name.startsWith('impersonate-') || isIdentityHeader(name, this.config) || value === undefined) continue;
        headers[name] = value;
      }
      Object.assign(headers, identityHeaders(user, this.config));
      headers.host = `${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`;
      const upgrade = upgradedConnection(res);
      if (upgrade) Object.assign(headers, { connection: 'Upgrade', upgrade: req.headers.upgrade ?? '' });
      const upstream = httpsRequest({
        host: target.host, port: target.port, method: req.method, path, headers, agent: false,
        ...tlsFor(apiService, this.config),
      });
      let settled = false;
      const finish = () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve();
      };
      // A response cut short, unless it has ended: the request timeout's 504 (the filter's timer
      // runs out with this one) must reach the client whole.
      const cut = () => {
        if (!res.writableEnded) res.destroy();
      };
      const timer = setTimeout(() => {
        upstream.destroy();
        if (!res.headersSent) sendStatusError(res, new StatusError(504, 'Timeout', TIMED_OUT, {}), out);
        else cut();
        finish();
      }, this.options.responseTimeoutMs);
      timer.unref();
      upstream.on('upgrade', (answer: IncomingMessage, theirs: Duplex, theirHead: Buffer) => {
        clearTimeout(timer);
        if (!upgrade || res.headersSent || res.writableEnded) {
          theirs.destroy();
          return finish();
        }
        res.writeHead(101, { ...returnedHeaders(answer), connection: 'Upgrade', upgrade: answer.headers.upgrade ?? '' });
        res.end();
        join(upgrade, theirs, theirHead);
        finish();
      });
      upstream.on('response', (answer) => {
        clearTimeout(timer);
        const back = returnedHeaders(answer);
        if (res.headersSent || res.writableEnded) {
          answer.destroy();
          return finish();
        }
        res.writeHead(answer.statusCode ?? 502, back);
        // Piped: each chunk goes on as it comes (a watch's events), at the pace the client reads.
        answer.pipe(res);
        answer.on('end', finish);
        answer.on('error', () => {
          res.destroy();
          finish();
        });
      });
      upstream.on('error', (err) => {
        if (settled) return;
        this.options.unreachable?.();
        // As the reference's proxy: the dial's or TLS's error, as text, 503.
        if (!res.headersSent) sendText(res, 503, `${describe(err, target)}\n`);
        else cut();
        finish();
      });
      // The client went away (or the request timed out): the call ends too.
      res.on('close', () => {
        upstream.destroy();
        finish();
      });
      req.pipe(upstream);
    });
  }
}

/** The extension server's response headers that go back to the client. */
function returnedHeaders(answer: IncomingMessage): OutgoingHttpHeaders {
  const back: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(answer.headers)) {
    if (!NOT_RETURNED.has(name) && value !== undefined) back[name] = value;
  }
  return back;
}

/** The client's connection and the extension server's, switched to their new protocol, joined: bytes flow both ways until either side ends. */
function join(client: UpgradedConnection, theirs: Duplex, theirHead: Buffer): void {
  const ours = client.socket;
  if (theirHead.length > 0) ours.write(theirHead);
  if (client.head.length > 0) theirs.write(client.head);
  const close = () => {
    ours.destroy();
    theirs.destroy();
  };
  theirs.on('error', close);
  theirs.on('close', close);
  ours.on('close', close);
  theirs.pipe(ours);
  ours.pipe(theirs);
}

function describe(err: Error, target: Resolved): string {
  const code = (err as NodeJS.ErrnoException).code;
  const address = `${target.host}:${target.port}`;
  if (code === 'ECONNREFUSED') return `dial tcp ${address}: connect: connection refused`;
  if (code === 'ECONNRESET') return `read tcp ${address}: connection reset by peer`;
  return `error trying to reach service: ${err.message}`;
}
