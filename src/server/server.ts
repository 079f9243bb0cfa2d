// The listener and the filter chain: recover → request info → (authentication, authorization:
// later) → route to health, version, discovery, OpenAPI or a resource handler.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Catalog, defaultEnabled } from '../api/catalog.js';
import { bootstrap } from '../controllers/bootstrap.js';
import { Discovery } from '../endpoints/discovery.js';
import { negotiate } from '../endpoints/negotiation.js';
import { OpenApi } from '../endpoints/openapi.js';
import { sendBytes, sendStatusError, sendText, wantsPretty } from '../endpoints/request.js';
import { parseResourceParts, ResourceHandler } from '../endpoints/resources.js';
import { methodNotAllowed } from '../errors.js';
import { Registry } from '../registry/store.js';
import { MemoryStorage } from '../storage/memory.js';
import { SqliteStorage } from '../storage/sqlite.js';
import type { Storage } from '../storage/types.js';
import { Health } from './health.js';
import { versionInfo } from './version.js';

export interface ServerOptions {
  bindAddress: string;
  /** 0 picks a free port. */
  port: number;
  storage: 'sqlite' | 'memory';
  /** Folder of the database file (sqlite). */
  dataDir: string;
  /** How long changes stay available to watches, exact lists and continue tokens (default 5 min). */
  historyWindowMs?: number;
}

export interface RunningServer {
  url: string;
  port: number;
  storage: Storage;
  close(): Promise<void>;
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const storage: Storage = options.storage === 'memory' ? new MemoryStorage() : SqliteStorage.open(`${options.dataDir}/capstan.db`);
  const catalog = Catalog.load(defaultEnabled);
  const historyWindowMs = options.historyWindowMs ?? 5 * 60_000;
  const registry = new Registry(catalog, storage, { historyWindowMs });
  const compactor = startCompactor(storage, historyWindowMs);
  await bootstrap(catalog, registry);
  await registry.startCaches();
  const openapi = new OpenApi(defaultEnabled);
  const resources = new ResourceHandler(catalog, registry);
  let discovery: Discovery | undefined;
  let shuttingDown = false;

  const storageCheck = { name: 'etcd', check: () => (storage.currentRevision() >= 0 ? undefined : 'storage unavailable') };
  const ping = { name: 'ping', check: () => undefined };
  const log = { name: 'log', check: () => undefined };
  const bootstrapped = { name: 'poststarthook/bootstrap-controller', check: () => undefined };
  const health = new Health({
    healthz: [ping, log, storageCheck, bootstrapped],
    livez: [ping, log, storageCheck, bootstrapped],
    readyz: [ping, log, storageCheck, { ...storageCheck, name: 'etcd-readiness' }, bootstrapped, { name: 'shutdown', check: () => (shuttingDown ? 'process is shutting down' : undefined) }],
  });

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
    const query = url.searchParams;
    if (await health.handle(req, res, path, query)) return;
    const out = { format: 'json' as const, pretty: wantsPretty(req, query) };
    if (path === '/version') {
      if (req.method !== 'GET') return sendStatusError(res, methodNotAllowed());
      return sendBytes(res, 200, Buffer.from(JSON.stringify(versionInfo())), { ...out, pretty: true });
    }
    if (path === '/openapi/v2') return serveOpenApi(res, req, openapi.v2Document());
    if (path === '/openapi/v3') return sendBytes(res, 200, openapi.v3RootDocument(), out);
    if (path.startsWith('/openapi/v3/')) {
      const doc = openapi.v3Document(path.slice('/openapi/v3/'.length));
      if (doc) return serveOpenApi(res, req, doc, query.has('hash'));
      return sendText(res, 404, '404 page not found\n');
    }
    const segments = path.split('/').slice(1).map(decodeURIComponent);
    let group: string | undefined;
    let version: string | undefined;
    let rest: string[] = [];
    if (segments[0] === 'api' || segments[0] === 'apis') {
      discovery ??= new Discovery(catalog, { serverAddress: `${options.bindAddress === '0.0.0.0' ? '127.0.0.1' : options.bindAddress}:${port}` });
      const doc = discovery.document(path);
      if (doc) {
        try {
          const { format } = negotiate(req.headers.accept);
          if (req.method !== 'GET') throw methodNotAllowed();
          return sendBytes(res, 200, doc, { format, pretty: out.pretty });
        } catch (err) {
          return sendStatusError(res, err, out);
        }
      }
      if (segments[0] === 'api' && segments.length > 2) {
        group = '';
        version = segments[1];
        rest = segments.slice(2);
      } else if (segments[0] === 'apis' && segments.length > 3) {
        group = segments[1];
        version = segments[2];
        rest = segments.slice(3);
      }
    }
    if (group === undefined || version === undefined || !catalog.resources(group, version)) return sendText(res, 404, '404 page not found\n');
    const request = parseResourceParts(group, version, rest);
    if (!request) return sendText(res, 404, '404 page not found\n');
    await resources.handle(req, res, request, query);
  };

  const server: Server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    handle(req, res).catch((err: unknown) => sendStatusError(res, err));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.bindAddress, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  const host = options.bindAddress.includes(':') ? `[${options.bindAddress}]` : options.bindAddress;
  return {
    url: `http://${host}:${port}`,
    port,
    storage,
    async close() {
      shuttingDown = true;
      compactor.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await storage.close();
    },
  };
}

/**
 * Forgets storage history older than the window, as the reference's periodic etcd compaction:
 * revisions are sampled over time, and the newest sample older than the window is compacted.
 */
function startCompactor(storage: Storage, windowMs: number): { stop(): void } {
  const samples: Array<{ at: number; revision: number }> = [];
  const period = Math.max(50, Math.min(60_000, windowMs / 5));
  const timer = setInterval(() => {
    const now = Date.now();
    samples.push({ at: now, revision: storage.currentRevision() });
    let target: number | undefined;
    while (samples.length > 0 && samples[0]!.at <= now - windowMs) target = samples.shift()!.revision;
    if (target !== undefined && target > storage.compactedRevision()) {
      storage.compact(target).catch((err: unknown) => console.error('compaction failed:', err));
    }
  }, period);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

function serveOpenApi(res: ServerResponse, req: IncomingMessage, doc: { body: Buffer; etag: string }, immutable = false): void {
  if (req.headers['if-none-match'] === doc.etag) {
    res.writeHead(304, { ETag: doc.etag });
    res.end();
    return;
  }
  res.writeHead(200, {
    'Content-Type': 'application/json',
    ETag: doc.etag,
    'Content-Length': doc.body.length,
    'Cache-Control': immutable ? 'public, immutable' : 'no-cache, private',
  });
  res.end(doc.body);
}
