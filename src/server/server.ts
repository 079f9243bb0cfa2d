// The server's wiring: storage and registry, admission, security, the post-start hooks (the
// server's own objects and the controllers) stage by stage, and the listener with its filter chain
// → routes. HTTPS (h2 and http/1.1 by ALPN) by default; plain HTTP only when asked for (tests).
import { CRD_SCHEMA_ENGINE } from '../apiextensions/engine.js';
import { installCrdStrategy } from '../apiextensions/strategy.js';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { createSecureServer, type ServerHttp2Session } from 'node:http2';
import { TLSSocket } from 'node:tls';
import type { AddressInfo, Server, Socket } from 'node:net';
import { FeatureGates } from '../api/feature-gates.js';
import { runtimeConfig } from '../api/runtime-config.js';
import { builtinResourceDefinitions } from '../registry/builtin/index.js';
import type { ResourceDefinitions } from '../registry/definitions.js';
import { Discovery } from '../endpoints/discovery.js';
import { OpenApi } from '../endpoints/openapi.js';
import { ResourceHandler } from '../endpoints/resources.js';
import { AnswerResponse } from '../endpoints/response.js';
import { upgradeResponse } from '../endpoints/upgrade.js';
import { FirstState } from '../registry/reset.js';
import { Registry, SYSTEM_USER } from '../registry/store.js';
import { AdmissionChain, enabledPlugins } from '../admission/chain.js';
import { builtinPlugins } from '../admission/plugins/index.js';
import type { AdmissionServices } from '../admission/types.js';
import type { Storage } from '../storage/types.js';
import { InstrumentedStorage } from '../storage/instrumented.js';
import { ServerMetrics } from '../metrics/server-metrics.js';
import { storageTypeNames } from '../registry/storage-types.js';
import { storedObjectCounts } from './storage-objects.js';
import { ServiceAllocators } from '../registry/allocators/service-allocation.js';
import { attachServiceAllocators } from '../registry/allocators/service-strategy.js';
import { advertisedAddress } from '../controllers/kubernetes-service.js';
import type { LeaderElectionConfig } from '../controllers/kit/leader-election.js';
import type { ComponentHealth } from '../registry/services.js';
import { ensureServingMaterial, requestedServingNames, type ServingMaterial } from './certs.js';
import { readProvidedFiles } from './flag-files.js';
import { startAuditing } from './audit-setup.js';
import { audit, auditId } from './filters/audit.js';
import { authentication } from './filters/authentication.js';
import { authorization } from './filters/authorization.js';
import { filterChain, RequestContext } from './filters/context.js';
import { impersonation } from './filters/impersonation.js';
import { inFlightLimit } from './filters/in-flight-limit.js';
import { priorityAndFairness } from './filters/priority-and-fairness.js';
import { FlowControl } from './flowcontrol/controller.js';
import { recover } from './filters/recover.js';
import { requestInfo } from './filters/request-info.js';
import { requestLog } from './filters/request-log.js';
import { timeout } from './filters/timeout.js';
import { Health, type HealthCheck } from './health.js';
import { healthEndpoints } from './health-checks.js';
import { PostStartHooks, type HookContext } from './hooks.js';
import { issuerDiscovery, type IssuerDiscovery } from './issuer-discovery.js';
import { withDefaults, type Options } from './options.js';
import { openStorage } from './open-storage.js';
import { POST_START_HOOKS } from './post-start-hooks.js';
import { rootPaths } from './root-paths.js';
import { router } from './routes.js';
import { openApiInfoVersion, versionInfo } from './version.js';
import { buildSecurity } from './security.js';
import { requestHeaderAuthentication, setUpAggregation } from './aggregation-setup.js';
import { nodeTlsOptions } from './tls-options.js';
import { answerClientError } from './unreadable-requests.js';

/** The reference's MaxHeaderBytes (1 MiB). */
const MAX_HEADER_BYTES = 1 << 20;

export type { Options } from './options.js';

/** What startServer is given: any of the options; the rest take their defaults. */
export type ServerOptions = Partial<Options>;

export interface RunningServer {
  url: string;
  port: number;
  storage: Storage;
  /** The live set of served resources (add or remove definitions while it runs). */
  definitions: ResourceDefinitions;
  /** The TLS material (absent for plain HTTP): CA, serving and admin certificates. */
  material?: ServingMaterial;
  /** Back to the first start (test environments between tests); resolves with how many objects changed. */
  reset(): Promise<number>;
  /** From now on, reset returns to the store as it is now (a test environment's seeded state). */
  rememberFirstState(): Promise<void>;
  /** Stops at once: connections cut, requests in flight dropped. */
  close(): Promise<void>;
  /**
   * Stops as the reference does on SIGTERM: /readyz fails at once (its shutdown check),
   * --shutdown-delay-duration passes, the listener stops accepting, watches end cleanly, requests
   * in flight finish (up to the request timeout), then the store is closed.
   */
  shutdown(): Promise<void>;
}

/** How long a graceful shutdown waits for requests in flight (the reference's --request-timeout). */
const DRAIN_LIMIT_MS = 60_000;
/** How long an immediate close waits for handlers whose connections it ended. */
const CLOSE_DRAIN_LIMIT_MS = 5_000;

export async function startServer(given: ServerOptions = {}): Promise<RunningServer> {
  // The start the livez grace period counts from.
  const startedAt = performance.now();
  const options = withDefaults(given);
  // Bad ranges fail the start before anything is opened.
  const serviceAllocators = ServiceAllocators.fromFlags(options.serviceClusterIpRange, options.serviceNodePortRange);
  // So do the files the flags name: read and checked first.
  const provided = readProvidedFiles(options);
  // One set of gates per server (several may run in one process), handed where a gate matters.
  const featureGates = FeatureGates.parse(options.featureGates);
  const priorityAndFairnessOn = featureGates.enabled('APIPriorityAndFairness') && options.enablePriorityAndFairness;
  if (priorityAndFairnessOn && options.maxRequestsInflight + options.maxMutatingRequestsInflight <= 0) {
    throw new Error(`invalid configuration: MaxRequestsInFlight=${options.maxRequestsInflight} and MaxMutatingRequestsInFlight=${options.maxMutatingRequestsInflight}; they must add up to something positive`);
  }
  const metrics = options.metrics ? new ServerMetrics(versionInfo()) : undefined;
  const auditor = await startAuditing(options);
  const served = runtimeConfig(options.runtimeConfig).enabled;
  const definitions = builtinResourceDefinitions(served);
  const backend: Storage = await openStorage(options);
  // Every operation that reaches the store is timed (etcd_request_duration_seconds), whatever the backend.
  const storage: Storage = metrics ? new InstrumentedStorage(backend, metrics.storage, storageTypeNames(definitions)) : backend;
  metrics?.storage.countObjectsWith(() => storedObjectCounts(definitions, storage));
  installCrdStrategy(definitions, CRD_SCHEMA_ENGINE, featureGates);
  // The server's own registry writes without admission (the hooks before the `admission` stage);
  // everything else writes through admission: requests as their user, controllers as the server.
  const serverRegistry = new Registry(definitions, storage, { historyWindowMs: options.historyWindowMs });
  await attachServiceAllocators(serverRegistry, serviceAllocators);
  const admissionServices: AdmissionServices = { registry: serverRegistry, ...(metrics ? { metrics: metrics.admission } : {}) };
  const admission = new AdmissionChain(builtinPlugins(), enabledPlugins(options.enableAdmissionPlugins, options.disableAdmissionPlugins), admissionServices);
  const registry = serverRegistry.withAdmission(admission.for(SYSTEM_USER));
  const compactor = startCompactor(storage, options.historyWindowMs);
  let port: number | undefined;
  const ctx: HookContext = {
    options, featureGates, serverRegistry, registry, admission, admissionServices, serviceAllocators,
    port: () => port ?? failed('the port is not known before the server listens'),
  };
  // API Priority and Fairness or the max-in-flight limits, never both (as the reference).
  if (priorityAndFairnessOn) {
    ctx.flowControl = new FlowControl(serverRegistry, {
      serverConcurrencyLimit: options.maxRequestsInflight + options.maxMutatingRequestsInflight,
      waitLimitMs: options.requestTimeoutMs / 4,
    }, metrics?.flowcontrol);
  }
  const hooks = new PostStartHooks(POST_START_HOOKS, ctx, leaderElection(options));
  await hooks.run('storage');
  await hooks.run('caches');
  if (!options.insecure) {
    const names = requestedServingNames({ advertiseAddress: options.advertiseAddress, bindAddress: options.bindAddress, extraNames: options.extraServingNames });
    const own = options.servingMaterial ?? await ensureServingMaterial(options.certDir ?? `${options.dataDir}/pki`, names);
    // Tokens are signed with the operator's key when one is given (envtest gives its own).
    const sa = provided.serviceAccount;
    ctx.material = sa ? { ...own, serviceAccountKey: sa.key, serviceAccountPublicKey: sa.publicKey } : own;
    if (sa?.otherVerificationKeys) process.stderr.write(`note: --service-account-key-file: ${sa.otherVerificationKeys} key(s) besides the signing key's are not used (capstan verifies tokens it signed)\n`);
  }
  const material = ctx.material;
  const requestHeader = requestHeaderAuthentication(options, provided.clientCa, material);
  const { security, issuer } = await buildSecurity(registry, {
    ...(requestHeader ? { requestHeader: requestHeader.options } : {}),
    insecure: options.insecure, material, tokenAuthFile: options.tokenAuthFile,
    anonymousAuth: options.anonymousAuth, authorizationMode: options.authorizationMode,
    serviceAccountIssuer: options.serviceAccountIssuer,
  });
  ctx.issuer = issuer;
  ctx.authorizer = security.services.authorizer;
  // The review and token resources answer from the server's authorizer, authenticator and issuer.
  serverRegistry.provide(security.services);
  ctx.aggregation = await setUpAggregation(options, serverRegistry, material, provided.clientCa, metrics?.aggregator);
  await hooks.run('admission');
  await hooks.elect();

  let shuttingDown = false;
  // A store over the network is asked (etcd: the reference's read of <prefix>/health); a local one is there.
  const storageCheck: HealthCheck = { name: 'etcd', check: () => (storage.unreachable ? storage.unreachable() : storage.currentRevision() >= 0 ? undefined : 'storage unavailable') };
  const ping: HealthCheck = { name: 'ping', check: () => undefined };
  const log: HealthCheck = { name: 'log', check: () => undefined };
  // Built after the stages that decide which hooks run here (all but `serving`).
  const informerSync = hooks.readiness('informer-sync', 'watch-caches');
  const autoregisterCompletion = hooks.readiness('autoregister-completion', 'apiservice-autoregistration');
  const health = new Health(healthEndpoints([
    ping, log, storageCheck, { ...storageCheck, name: 'etcd-readiness' }, ...(informerSync ? [informerSync] : []), ...hooks.healthChecks(),
    ...(autoregisterCompletion ? [autoregisterCompletion] : []),
    { name: 'shutdown', check: () => (shuttingDown ? 'process is shutting down' : undefined) },
  ], options.livezGracePeriodMs, startedAt));
  // ComponentStatus: the controllers run here, the storage checked here; no scheduler runs at all.
  const componentHealth = async (): Promise<ComponentHealth[]> => {
    const storageFailure = await storageCheck.check();
    return [
      hooks.controllersReady()
        ? { name: 'controller-manager', status: 'True', message: 'ok' }
        : { name: 'controller-manager', status: 'False', error: 'the controllers have not all started' },
      storageFailure ? { name: 'etcd-0', status: 'False', error: storageFailure } : { name: 'etcd-0', status: 'True', message: 'ok' },
      { name: 'scheduler', status: 'Unknown', error: 'capstan runs no scheduler: pods are not scheduled' },
    ];
  };
  serverRegistry.provide({ componentHealth });
  // Known once the port is: the JWKS URI defaults to the address clients use.
  let issuerDocs: IssuerDiscovery | undefined;
  let firstState: FirstState | undefined;
  // One reset at a time (a second waits for the first, then runs).
  let resetting: Promise<number> = Promise.resolve(0);
  const resetServer = (): Promise<number> => (resetting = resetting.catch(() => 0).then(() => firstState?.restore(serverRegistry) ?? 0));
  const rememberFirstState = async (): Promise<void> => {
    await resetting.catch(() => 0);
    await serverRegistry.waitForRevision(storage.currentRevision());
    firstState?.stop();
    firstState = FirstState.of(storage);
  };
  let discovery: Discovery | undefined;
  const openapi = new OpenApi(definitions, served, openApiInfoVersion());
  ctx.aggregation?.aggregator.onOpenApiChange((parts) => openapi.setExtensions(parts));
  const routes = router({
    definitions,
    health,
    openapi,
    discovery: () => (discovery ??= new Discovery(definitions, { serverAddress: `${options.bindAddress === '0.0.0.0' ? '127.0.0.1' : options.bindAddress}:${ctx.port()}` })),
    resources: new ResourceHandler(registry, security.context, admission, { features: featureGates, metrics, minRequestTimeoutSeconds: options.minRequestTimeoutSeconds }),
    rootPaths: () => rootPaths(definitions, health, issuerDocs !== undefined),
    issuerDiscovery: () => issuerDocs,
    reset: resetServer,
    rememberFirstState,
    metrics,
    aggregator: ctx.aggregation?.aggregator,
  });
  // The filters, outermost first (the reference's order); then the routes.
  const handle = filterChain([
    recover(),
    requestLog(options.verbosity, options.requestLogWriter),
    requestInfo(),
    auditId(auditor),
    authentication(security.guard, security.credentials, metrics),
    audit(auditor),
    impersonation(security.guard),
    ctx.flowControl
      ? priorityAndFairness(ctx.flowControl, metrics?.requests)
      : inFlightLimit({ readOnly: options.maxRequestsInflight, mutating: options.maxMutatingRequestsInflight }, metrics?.requests, metrics?.flowcontrol),
    authorization(security.guard),
    timeout(options.requestTimeoutMs),
  ], routes);

  // Answers in flight, so that a graceful shutdown lets them finish. One counts until its handler
  // has settled and it is closed: a client that goes away closes the answer while the handler may
  // still be writing to the store.
  const inFlight = new Set<ServerResponse>();
  let drained: (() => void) | undefined;
  // Once a graceful shutdown drains, HTTP/1.1 connections close after their answer, as Go's server
  // does once shutting down (a keep-alive client would otherwise send its next request in).
  let draining = false;
  /** Resolves once no answer is in flight, or after `limitMs`. */
  const drain = (limitMs: number) => new Promise<void>((resolve) => {
    if (inFlight.size === 0) return resolve();
    const limit = setTimeout(resolve, limitMs);
    drained = () => {
      clearTimeout(limit);
      resolve();
    };
  });
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    inFlight.add(res);
    let open = 2;
    const settled = () => {
      if (--open === 0 && inFlight.delete(res) && inFlight.size === 0) drained?.();
    };
    if (draining) closeAfterAnswer(res);
    res.once('close', () => {
      if (draining && req.httpVersionMajor === 1) req.socket.end();
      settled();
    });
    handle(new RequestContext(req, res)).then(settled, settled);
  };
  // As the reference's http.Server: headers of up to 1 MiB (and the 4 KiB Go reads beyond its
  // MaxHeaderBytes), sent within ReadHeaderTimeout (which bounds the TLS handshake too).
  const headerTimeout = options.requestHeaderTimeoutMs;
  const connectionsCheckingInterval = Math.min(1000, Math.max(10, headerTimeout / 4));
  const server = material
    ? createSecureServer({
      allowHTTP1: true,
      key: provided.serving?.key ?? material.serverKey,
      cert: provided.serving?.cert ?? material.serverCert,
      // Client certificates are asked for, verified against the client CA, and never required.
      ca: [...(provided.clientCa ? [provided.clientCa] : []), material.caCert, ...(requestHeader ? [requestHeader.caPem] : [])],
      requestCert: true,
      rejectUnauthorized: false,
      ...nodeTlsOptions(options.tlsMinVersion ?? '', options.tlsCipherSuites),
      handshakeTimeout: headerTimeout,
      // What Go's HTTP/2 server advertises for MaxHeaderBytes (nghttp2 itself still caps one
      // header field at 64 KiB and a header block at 8 frames).
      settings: { maxHeaderListSize: MAX_HEADER_BYTES + 10 * 32, maxFrameSize: 256 * 1024 },
      // HTTP/1.1 answers carry the request's own headers without setHeader (endpoints/response.ts).
      Http1ServerResponse: AnswerResponse,
    }, listener as never)
    : createServer({ ServerResponse: AnswerResponse, keepAliveTimeout: 65_000, maxHeaderSize: MAX_HEADER_BYTES + 4096, headersTimeout: headerTimeout, connectionsCheckingInterval }, listener);
  if (material) {
    // Its HTTP/1.1 connections are served by Node's HTTP/1 server code, which reads these.
    Object.assign(server, { maxHeaderSize: MAX_HEADER_BYTES + 4096, headersTimeout: headerTimeout, connectionsCheckingInterval });
  }
  server.on('clientError', answerClientError);
  // Requests to switch protocols (HTTP/1.1 only) take the same way, answered on their socket.
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => listener(req, upgradeResponse(req, socket, head)));
  // Every connection, so that close() ends them (HTTP/2 sessions and keep-alive sockets alike).
  const sockets = new Set<Socket>();
  // And HTTP/2 sessions, told to take no new streams (GOAWAY) when a graceful shutdown drains.
  const sessions = new Set<ServerHttp2Session>();
  if (material) {
    server.on('session', (session: ServerHttp2Session) => {
      sessions.add(session);
      session.once('close', () => sessions.delete(session));
    });
  }
  server.on(material ? 'secureConnection' : 'connection', (socket: Socket) => {
    // As Go's TLS server, which never renegotiates: a connection's client certificate is the handshake's (authentication reads it once).
    if (socket instanceof TLSSocket) socket.disableRenegotiation();
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  const host = options.bindAddress.includes(':') ? `[${options.bindAddress}]` : options.bindAddress;
  try {
    await listen(server, options.port, options.bindAddress);
  } catch (err) {
    compactor.stop();
    metrics?.stop();
    await hooks.stop();
    await storage.close();
    throw listenFailure(err, `${host}:${options.port}`);
  }
  port = (server.address() as AddressInfo).port;
  if (issuer) {
    const advertised = advertisedAddress(options.advertiseAddress, options.bindAddress);
    const external = `${advertised.includes(':') ? `[${advertised}]` : advertised}:${port}`;
    const docs = issuerDiscovery(issuer.issuer, options.serviceAccountJwksUri, external, issuer.keyInfo);
    // As the reference: served when it can be, else said once why not.
    if ('unavailable' in docs) console.error(`service-account issuer discovery is not served: ${docs.unavailable}`);
    else issuerDocs = docs;
  }
  await hooks.run('serving');
  // What a reset goes back to: the store as it is now, the server's own objects made.
  firstState = FirstState.of(storage);
  return {
    url: `${material ? 'https' : 'http'}://${host}:${port}`,
    port,
    storage,
    definitions,
    material,
    reset: () => resetServer(),
    rememberFirstState,
    async close() {
      shuttingDown = true;
      compactor.stop();
      firstState?.stop();
      metrics?.stop();
      await hooks.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      // Handlers whose clients are now gone finish on an open store.
      await drain(CLOSE_DRAIN_LIMIT_MS);
      await auditor?.close();
      await storage.close();
    },
    async shutdown() {
      shuttingDown = true;
      if (options.shutdownDelayMs > 0) await new Promise((r) => setTimeout(r, options.shutdownDelayMs));
      draining = true;
      for (const res of inFlight) closeAfterAnswer(res);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const session of sessions) session.close();
      registry.endWatches();
      await drain(DRAIN_LIMIT_MS);
      // No request may come in while the server's own parts stop and the store closes.
      for (const socket of sockets) socket.destroy();
      compactor.stop();
      firstState?.stop();
      await hooks.stop();
      await closed;
      await auditor?.close();
      await storage.close();
    },
  };
}

/** Has an HTTP/1.1 answer not yet begun say `Connection: close` (Node's writer reads shouldKeepAlive). */
function closeAfterAnswer(res: ServerResponse): void {
  if (res.req.httpVersionMajor === 1 && !res.headersSent) res.shouldKeepAlive = false;
}

function listen(server: Server, port: number, address: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, address, resolve);
  });
}

const LISTEN_ERRORS: Record<string, string> = {
  EADDRINUSE: 'address already in use',
  EACCES: 'permission denied',
  EADDRNOTAVAIL: 'cannot assign requested address',
  ENOTFOUND: 'no such address',
};

/** "cannot listen on 127.0.0.1:6443: address already in use": the one line a failed start prints. */
function listenFailure(err: unknown, where: string): Error {
  const code = (err as { code?: string }).code ?? '';
  return new Error(`cannot listen on ${where}: ${LISTEN_ERRORS[code] ?? (err as Error).message}`, { cause: err });
}

function failed(message: string): never {
  throw new Error(message);
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

/**
 * How this server competes for kube-controller-manager's work: on a shared store (etcd) by default,
 * as `<hostname>_<uuid>` like kube-controller-manager; undefined when it runs the controllers itself.
 */
function leaderElection(options: Options): LeaderElectionConfig | undefined {
  if (!(options.leaderElect ?? options.storage === 'etcd')) return undefined;
  return {
    namespace: options.leaderElectResourceNamespace, name: options.leaderElectResourceName, identity: `${hostname()}_${randomUUID()}`,
    leaseDurationMs: options.leaderElectLeaseDurationMs, renewDeadlineMs: options.leaderElectRenewDeadlineMs, retryPeriodMs: options.leaderElectRetryPeriodMs,
  };
}
