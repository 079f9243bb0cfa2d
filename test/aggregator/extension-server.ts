// A small extension API server for the tests: HTTPS with its own CA, trusting only front-proxy
// client certificates (the CA and names it reads from capstan's extension-apiserver-authentication
// ConfigMap, as a real one does) and taking the user from the X-Remote-* headers. It serves
// metrics.k8s.io/v1beta1 NodeMetrics and PodMetrics as metrics-server answers them, refuses users
// it does not know (403), streams a watch, and has a namespace whose requests never answer. It
// also switches protocols on a pod's `exec`: to WebSocket with the channel protocol kubectl and
// the clients speak (writing back what stdin sends, on stdout), or to any other protocol named in
// Upgrade (writing back each chunk it reads).
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { createHash } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { issueCertificate, newCertificateAuthority } from '../../src/server/certs.js';

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  /** The client certificate's CN, when one verified against the front-proxy CA. */
  clientCn?: string;
}

export interface ExtensionServerOptions {
  /** PEM of the front-proxy CA (requestheader-client-ca-file). */
  requestheaderCa: string;
  allowedNames: string[];
  /** The users it answers; anyone else is refused 403, as its SubjectAccessReview would. */
  knownUsers: string[];
  /** The Service DNS name its certificate is for (<name>.<namespace>.svc). */
  serviceName: string;
}

export interface ServerCa {
  cert: string;
  key: string;
}

const GV = 'metrics.k8s.io/v1beta1';

const RESOURCE_LIST = {
  kind: 'APIResourceList', apiVersion: 'v1', groupVersion: GV,
  resources: [
    { name: 'nodes', singularName: '', namespaced: false, kind: 'NodeMetrics', verbs: ['get', 'list'] },
    { name: 'pods', singularName: '', namespaced: true, kind: 'PodMetrics', verbs: ['get', 'list'] },
  ],
};

const NODE_METRICS = 'io.k8s.metrics.pkg.apis.metrics.v1beta1.NodeMetrics';
const OBJECT_META = { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' };

/** A small part of what metrics-server's /openapi/v2 says (paths of its group and others, its kinds, a shared definition). */
const OPENAPI_V2 = {
  swagger: '2.0', info: { title: 'Kubernetes metrics-server', version: 'v0.6.2' },
  paths: {
    [`/apis/${GV}/nodes`]: { get: { operationId: 'listMetricsV1beta1NodeMetrics', responses: { 200: { description: 'OK', schema: { $ref: '#/definitions/io.k8s.metrics.pkg.apis.metrics.v1beta1.NodeMetricsList' } } } } },
    '/version/': { get: { operationId: 'getCodeVersion', responses: { 200: { description: 'OK' } } } },
  },
  definitions: {
    [NODE_METRICS]: { type: 'object', properties: { metadata: OBJECT_META, usage: { type: 'object' } }, 'x-kubernetes-group-version-kind': [{ group: 'metrics.k8s.io', version: 'v1beta1', kind: 'NodeMetrics' }] },
    'io.k8s.metrics.pkg.apis.metrics.v1beta1.NodeMetricsList': { type: 'object', properties: { items: { type: 'array', items: { $ref: `#/definitions/${NODE_METRICS}` } } } },
    'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': { type: 'object', description: 'the extension\'s copy' },
  },
};

/** Its /openapi/v3 root: its own group-version, and one it has no business naming. */
export const OPENAPI_V3_HASH = 'EXTENSION0HASH';
const OPENAPI_V3_ROOT = {
  paths: {
    [`apis/${GV}`]: { serverRelativeURL: `/openapi/v3/apis/${GV}?hash=${OPENAPI_V3_HASH}` },
    'api/v1': { serverRelativeURL: '/openapi/v3/api/v1?hash=HIJACKED' },
  },
};

const OPENAPI_V3 = { openapi: '3.0.0', info: { title: 'Kubernetes metrics-server', version: 'v0.6.2' }, paths: { [`/apis/${GV}/nodes`]: { get: { responses: { 200: { description: 'OK' } } } } }, components: { schemas: {} } };

export function nodeMetrics(name: string, cpu: string, memory: string): object {
  return { metadata: { name, creationTimestamp: new Date().toISOString(), labels: { 'kubernetes.io/hostname': name } }, timestamp: new Date().toISOString(), window: '10.062s', usage: { cpu, memory } };
}

export function podMetrics(namespace: string, name: string, cpu: string, memory: string): object {
  return {
    metadata: { name, namespace, creationTimestamp: new Date().toISOString(), labels: { app: name } },
    timestamp: new Date().toISOString(), window: '10.062s',
    containers: [{ name: 'main', usage: { cpu, memory } }],
  };
}

export class ExtensionServer {
  readonly seen: SeenRequest[] = [];
  nodes: object[] = [];
  pods: object[] = [];
  private server: Server | undefined;
  port = 0;
  /** The address it listens on: one of this machine's that is not loopback (Endpoints may not name loopback). */
  readonly host = reachableAddress();

  private constructor(private readonly options: ExtensionServerOptions, readonly ca: ServerCa, private readonly serving: { cert: string; key: string }) {}

  static async create(options: ExtensionServerOptions): Promise<ExtensionServer> {
    const ca = await newCertificateAuthority('extension-ca');
    const serving = await issueCertificate(ca, { commonName: options.serviceName, dnsNames: [options.serviceName], usage: 'server' });
    return new ExtensionServer(options, ca, serving);
  }

  /** Listens (again, on the same port when it had one). */
  async listen(): Promise<void> {
    const server = createServer({ cert: this.serving.cert, key: this.serving.key, ca: this.options.requestheaderCa, requestCert: true, rejectUnauthorized: false }, (req, res) => this.handle(req, res));
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(req, socket, head));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, this.host, () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Records the request; the user the front proxy names, or the refusal to send (401, 403). */
  private admit(req: IncomingMessage): { user: string } | { refusal: [number, object] } {
    const socket = req.socket as TLSSocket;
    const peer = socket.getPeerCertificate();
    const clientCn = socket.authorized && peer && peer.subject ? String(peer.subject.CN) : undefined;
    this.seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, ...(clientCn ? { clientCn } : {}) });
    // Only the front proxy may say who the user is.
    if (!clientCn || (this.options.allowedNames.length > 0 && !this.options.allowedNames.includes(clientCn))) {
      return { refusal: [401, status(401, 'Unauthorized', 'Unauthorized')] };
    }
    const user = String(req.headers['x-remote-user'] ?? '');
    if (!this.options.knownUsers.includes(user)) {
      return { refusal: [403, status(403, 'Forbidden', `pods.metrics.k8s.io is forbidden: User "${user}" cannot list resource "pods" in API group "metrics.k8s.io"`)] };
    }
    return { user };
  }

  /** A request to switch protocols: only a pod's exec switches; anything else is answered in HTTP and the connection closed. */
  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    const admitted = this.admit(req);
    const refuse = (code: number, body: object) => {
      const text = JSON.stringify(body);
      socket.end(`HTTP/1.1 ${code} ${code === 401 ? 'Unauthorized' : code === 403 ? 'Forbidden' : 'Not Found'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`);
    };
    if ('refusal' in admitted) return refuse(...admitted.refusal);
    if (!/^\/apis\/metrics\.k8s\.io\/v1beta1\/namespaces\/[^/]+\/pods\/[^/]+\/exec(\?|$)/.test(req.url ?? '')) {
      return refuse(404, status(404, 'NotFound', 'the server could not find the requested resource'));
    }
    const protocol = String(req.headers.upgrade ?? '');
    if (protocol.toLowerCase() === 'websocket') return acceptWebSocket(req, socket, head, admitted.user);
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: ${protocol}\r\n\r\nhello ${admitted.user}\n`);
    const echo = (chunk: Buffer) => socket.write(`echo:${chunk.toString('utf8')}`);
    if (head.length > 0) echo(head);
    socket.on('data', echo);
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const send = (status: number, body: object) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const admitted = this.admit(req);
    if ('refusal' in admitted) return send(...admitted.refusal);
    const url = new URL(req.url ?? '/', 'https://x');
    const path = url.pathname;
    if (path === `/apis/${GV}`) return send(200, RESOURCE_LIST);
    if (path === '/openapi/v2') return send(200, OPENAPI_V2);
    if (path === '/openapi/v3') return send(200, OPENAPI_V3_ROOT);
    if (path === `/openapi/v3/apis/${GV}`) return send(200, OPENAPI_V3);
    if (path === `/apis/${GV}/nodes`) return send(200, { kind: 'NodeMetricsList', apiVersion: GV, metadata: {}, items: this.nodes });
    const m = /^\/apis\/metrics\.k8s\.io\/v1beta1\/namespaces\/([^/]+)\/pods$/.exec(path);
    if (m) {
      if (m[1] === 'slow') return; // never answers
      const items = this.pods.filter((p) => (p as { metadata: { namespace: string } }).metadata.namespace === m[1]);
      if (url.searchParams.get('watch') === 'true') {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
        for (const item of items) res.write(`${JSON.stringify({ type: 'ADDED', object: { kind: 'PodMetrics', apiVersion: GV, ...item } })}\n`);
        return; // stays open
      }
      return send(200, { kind: 'PodMetricsList', apiVersion: GV, metadata: {}, items });
    }
    if (path === `/apis/${GV}/pods`) return send(200, { kind: 'PodMetricsList', apiVersion: GV, metadata: {}, items: this.pods });
    send(404, status(404, 'NotFound', 'the server could not find the requested resource'));
  }
}

const WEBSOCKET_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const STDIN = 0;
const STDOUT = 1;

/**
 * The server side of RFC 6455, as small as the test needs: the handshake (the channel protocol the
 * client offers first), then binary messages of up to 125 bytes: "hello <user>" on stdout, and
 * each stdin message back as "echo:<it>" on stdout. A close frame is answered and ends it.
 */
function acceptWebSocket(req: IncomingMessage, socket: Duplex, head: Buffer, user: string): void {
  const accept = createHash('sha1').update(`${String(req.headers['sec-websocket-key'])}${WEBSOCKET_GUID}`).digest('base64');
  const offered = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim()).filter(Boolean);
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n${offered[0] ? `Sec-WebSocket-Protocol: ${offered[0]}\r\n` : ''}\r\n`);
  const send = (opcode: number, payload: Buffer) => socket.write(Buffer.concat([Buffer.from([0x80 | opcode, payload.length]), payload]));
  const stdout = (text: string) => send(0x2, Buffer.concat([Buffer.from([STDOUT]), Buffer.from(text)]));
  stdout(`hello ${user}`);
  let pending = head;
  const read = (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    // Client frames are masked; every one the test sends is short.
    while (pending.length >= 6) {
      const opcode = pending[0]! & 0x0f;
      const length = pending[1]! & 0x7f;
      if (pending.length < 6 + length) return;
      const mask = pending.subarray(2, 6);
      const payload = Buffer.from(pending.subarray(6, 6 + length).map((b, i) => b ^ mask[i % 4]!));
      pending = pending.subarray(6 + length);
      if (opcode === 0x8) {
        send(0x8, payload.subarray(0, 2));
        socket.end();
        return;
      }
      if (opcode === 0x2 && payload[0] === STDIN) stdout(`echo:${payload.subarray(1).toString('utf8')}`);
    }
  };
  socket.on('data', read);
  if (head.length > 0) read(Buffer.alloc(0));
}

function status(code: number, reason: string, message: string): object {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
}

/** An IPv4 address of this machine outside loopback; 127.0.0.1 when it has none (then Endpoints refuse it). */
export function reachableAddress(): string {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const a of addresses ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return '127.0.0.1';
}
