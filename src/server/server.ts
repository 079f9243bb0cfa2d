// The listener and the filter chain: recover → authenticate → impersonate → authorize → route to
// health, version, discovery, OpenAPI or a resource handler. HTTPS (h2 and http/1.1 by ALPN) by
// default; plain HTTP only when asked for (tests).
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createSecureServer } from 'node:http2';
import { hostname } from 'node:os';
import type { AddressInfo } from 'node:net';
import { defaultEnabled } from '../api/catalog.js';
import { builtinResourceDefinitions } from '../registry/builtin/index.js';
import type { ResourceDefinitions } from '../registry/definitions.js';
import { bootstrap } from '../controllers/bootstrap.js';
import { Discovery } from '../endpoints/discovery.js';
import { negotiate } from '../endpoints/negotiation.js';
import { OpenApi } from '../endpoints/openapi.js';
import { sendBytes, sendStatusError, sendText, wantsPretty } from '../endpoints/request.js';
import { parseResourceParts, splitApiPath } from '../api/paths.js';
import { ResourceHandler } from '../endpoints/resources.js';
import { methodNotAllowed } from '../errors.js';
import { Registry, SYSTEM_USER } from '../registry/store.js';
import { AdmissionChain, enabledPlugins } from '../admission/chain.js';
import { builtinPlugins } from '../admission/plugins/index.js';
import type { AdmissionServices } from '../admission/types.js';
import { MemoryStorage } from '../storage/memory.js';
import { SqliteStorage } from '../storage/sqlite.js';
import type { Storage } from '../storage/types.js';
import { GarbageCollector } from '../controllers/gc.js';
import { PodTermination } from '../controllers/pod-termination.js';
import { DisruptionController } from '../controllers/disruption.js';
import { CsrSigningController } from '../controllers/csr-signing.js';
import { TokenController } from '../controllers/token.js';
import { StorageProtectionController } from '../controllers/storage-protection.js';
import { NamespaceController } from '../controllers/namespace.js';
import { NamespaceDefaults } from '../controllers/namespace-defaults.js';
import { advertisedAddress, KubernetesServiceController } from '../controllers/kubernetes-service.js';
import { ServiceAllocators } from '../registry/allocators/service-allocation.js';
import { attachServiceAllocators } from '../registry/allocators/service-strategy.js';
import { ResourceQuotaController } from '../controllers/quota.js';
import { reconcileBootstrapPolicy, startAggregationController } from '../controllers/rbac.js';
import { ensureServingMaterial, type ServingMaterial } from './certs.js';
import { Health } from './health.js';
import { buildSecurity } from './security.js';
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
  /** Plain HTTP, where a request without credentials acts as the loopback admin (tests only). */
  insecure?: boolean;
  /** Where the CA, serving and admin certificates live (created on first start). Default <dataDir>/pki. */
  certDir?: string;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  clientCaFile?: string;
  tokenAuthFile?: string;
  /** Anonymous requests as system:anonymous (default true, as the reference). */
  anonymousAuth?: boolean;
  authorizationMode?: 'RBAC' | 'AlwaysAllow';
  advertiseAddress?: string;
  /** Run the controllers that give every namespace its default objects (default true; tests that count revisions turn it off). */
  namespaceDefaults?: boolean;
  /** Run the garbage collector (default true; its own tests run theirs). */
  garbageCollector?: boolean;
  /** Admission plugins beyond the defaults, and those turned off (--enable/--disable-admission-plugins). */
  enableAdmissionPlugins?: string[];
  disableAdmissionPlugins?: string[];
  /** --service-cluster-ip-range (default "10.96.0.0/12") and --service-node-port-range (default "30000-32767"). */
  serviceClusterIpRange?: string;
  serviceNodePortRange?: string;
  /** Keep the `kubernetes` Service, Endpoints and EndpointSlice in `default` (default true; tests that count objects turn it off). */
  kubernetesService?: boolean;
}

export interface RunningServer {
  url: string;
  port: number;
  storage: Storage;
  /** The live set of served resources (add or remove definitions while it runs). */
  definitions: ResourceDefinitions;
  /** The TLS material (absent for plain HTTP): CA, serving and admin certificates. */
  material?: ServingMaterial;
  close(): Promise<void>;
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  // Bad ranges fail the start before anything is opened.
  const serviceAllocators = ServiceAllocators.fromFlags(options.serviceClusterIpRange, options.serviceNodePortRange);
  const storage: Storage = options.storage === 'memory' ? new MemoryStorage() : SqliteStorage.open(`${options.dataDir}/capstan.db`);
  const definitions = builtinResourceDefinitions(defaultEnabled);
  const historyWindowMs = options.historyWindowMs ?? 5 * 60_000;
  // The server's own registry writes without admission: its first-start objects (system namespaces
  // and priority classes, the bootstrap RBAC policy) pass no plugin, and a chain that refuses every
  // write (AlwaysDeny) must not keep the server from starting.
  const serverRegistry = new Registry(definitions, storage, { historyWindowMs });
  await attachServiceAllocators(serverRegistry, serviceAllocators);
  const admissionServices: AdmissionServices = { registry: serverRegistry };
  const admission = new AdmissionChain(builtinPlugins(), enabledPlugins(options.enableAdmissionPlugins, options.disableAdmissionPlugins), admissionServices);
  // Everything else writes through admission: requests with their user's, controllers as the server.
  const registry = serverRegistry.withAdmission(admission.for(SYSTEM_USER));
  const compactor = startCompactor(storage, historyWindowMs);
  await bootstrap(serverRegistry);
  await registry.startCaches();
  const rbac = (options.authorizationMode ?? 'RBAC') === 'RBAC';
  // The bootstrap policy and aggregation belong to RBAC, as the reference's post-start hook.
  if (rbac) await reconcileBootstrapPolicy(serverRegistry);
  const aggregation = rbac ? await startAggregationController(serverRegistry) : { stop() {} };
  const namespaceController = new NamespaceController(registry);
  await namespaceController.start();
  const quotaController = new ResourceQuotaController(registry);
  await quotaController.start();
  const gc = new GarbageCollector(registry);
  if (options.garbageCollector ?? true) await gc.start();
  const podTermination = new PodTermination(registry);
  await podTermination.start();
  const disruption = new DisruptionController(registry);
  await disruption.start();
  const storageProtection = new StorageProtectionController(registry);
  await storageProtection.start();
  let material: ServingMaterial | undefined;
  if (!options.insecure) {
    const names = [hostname(), ...(options.advertiseAddress ? [options.advertiseAddress] : [])];
    material = await ensureServingMaterial(options.certDir ?? `${options.dataDir}/pki`, names);
  }
  const { security, issuer } = await buildSecurity(registry, {
    insecure: options.insecure ?? false,
    material,
    tokenAuthFile: options.tokenAuthFile,
    anonymousAuth: options.anonymousAuth ?? true,
    authorizationMode: options.authorizationMode ?? 'RBAC',
  });
  // The cluster CA signs approved requests of the built-in signers (none on a plain-HTTP server).
  const csrSigning = material ? new CsrSigningController(registry, material) : undefined;
  await csrSigning?.start();
  const tokens = issuer && material ? new TokenController(registry, issuer, material.caCert) : undefined;
  await tokens?.start();
  // Plugins that authorize further (CSR approval and signing) use the request authorizer.
  admissionServices.authorizer = security.context.authorizer;
  const namespaceDefaults = new NamespaceDefaults(registry, material?.caCert);
  if (options.namespaceDefaults ?? true) await namespaceDefaults.start();
  const openapi = new OpenApi(definitions, defaultEnabled);
  const resources = new ResourceHandler(registry, security.context, admission);
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
    const out = { format: 'json' as const, pretty: wantsPretty(req, query) };
    // The path is read once, for authorization and for routing.
    const split = splitApiPath(path);
    const resourcePath = split ? parseResourceParts(split.group, split.version, split.rest) ?? null : null;
    let user;
    try {
      user = await security.guard.user(security.credentials(req));
      security.guard.authorize(user, req.method ?? 'GET', path, query, resourcePath);
    } catch (err) {
      return sendStatusError(res, err, out);
    }
    if (await health.handle(req, res, path, query)) return;
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
    if (path === '/api' || path === '/apis' || path.startsWith('/api/') || path.startsWith('/apis/')) {
      discovery ??= new Discovery(definitions, { serverAddress: `${options.bindAddress === '0.0.0.0' ? '127.0.0.1' : options.bindAddress}:${port}` });
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
    }
    if (!split || !definitions.resources(split.group, split.version)) return sendText(res, 404, '404 page not found\n');
    const request = resourcePath;
    if (!request) return sendText(res, 404, '404 page not found\n');
    await resources.handle(req, res, request, query, user);
  };

  const listener = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((err: unknown) => sendStatusError(res, err));
  };
  const server = material
    ? createSecureServer({
      allowHTTP1: true,
      key: options.tlsPrivateKeyFile ? readFileSync(options.tlsPrivateKeyFile) : material.serverKey,
      cert: options.tlsCertFile ? readFileSync(options.tlsCertFile) : material.serverCert,
      // Client certificates are asked for, verified against the client CA, and never required.
      ca: options.clientCaFile ? [readFileSync(options.clientCaFile, 'utf8'), material.caCert] : material.caCert,
      requestCert: true,
      rejectUnauthorized: false,
    }, listener as never)
    : createServer({ keepAliveTimeout: 65_000 }, listener);
  // Every connection, so that close() ends them (HTTP/2 sessions and keep-alive sockets alike).
  const sockets = new Set<import('node:net').Socket>();
  server.on(material ? 'secureConnection' : 'connection', (socket: import('node:net').Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.bindAddress, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  // The `kubernetes` Service points at the port actually served.
  const kubernetesService = new KubernetesServiceController(registry, {
    clusterIp: serviceAllocators.kubernetesServiceIp(), address: advertisedAddress(options.advertiseAddress, options.bindAddress), port,
  });
  if (options.kubernetesService ?? true) await kubernetesService.start();
  const host = options.bindAddress.includes(':') ? `[${options.bindAddress}]` : options.bindAddress;
  return {
    url: `${material ? 'https' : 'http'}://${host}:${port}`,
    port,
    storage,
    definitions,
    material,
    async close() {
      shuttingDown = true;
      compactor.stop();
      aggregation.stop();
      namespaceController.stop();
      quotaController.stop();
      gc.stop();
      podTermination.stop();
      disruption.stop();
      storageProtection.stop();
      csrSigning?.stop();
      tokens?.stop();
      namespaceDefaults.stop();
      await kubernetesService.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
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
