// Where a request that passed the filters goes: the index of paths (/), health, /version, OpenAPI,
// service-account issuer discovery, discovery, or the resource handler; anything else is a 404 as
// the reference's (a Status where its API container would have answered, else plain text).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ResourceDefinitions } from '../registry/definitions.js';
import type { Discovery } from '../endpoints/discovery.js';
import { negotiate } from '../endpoints/negotiation.js';
import { openApiV2Format, type OpenApi } from '../endpoints/openapi.js';
import { sendBytes, sendStatusError, sendText } from '../endpoints/request.js';
import type { ResourceHandler } from '../endpoints/resources.js';
import { methodNotAllowed, resourceNotFound, StatusError } from '../errors.js';
import type { RequestContext } from './filters/context.js';
import type { Health } from './health.js';
import { JWKS_PATH, OPENID_CONFIGURATION_PATH, type IssuerDiscovery } from './issuer-discovery.js';
import { versionInfo } from './version.js';
import { metricsEndpoint, observeHealthRequest } from './metrics-endpoint.js';
import type { ServerMetrics } from '../metrics/server-metrics.js';
import type { Aggregator } from '../aggregator/aggregator.js';

export interface Routes {
  definitions: ResourceDefinitions;
  health: Health;
  openapi: OpenApi;
  /** Discovery documents (made on first use: they name the port served). */
  discovery(): Discovery;
  resources: ResourceHandler;
  /** What GET / lists. */
  rootPaths(): string[];
  /** The issuer discovery documents; undefined when not served (plain HTTP, an issuer that is not an https URL). */
  issuerDiscovery(): IssuerDiscovery | undefined;
  /** Back to the first start (POST RESET_PATH, system:masters only); resolves with how many objects changed. */
  reset(): Promise<number>;
  /** POST FIRST_STATE_PATH: resets return to the store as it is now. */
  rememberFirstState(): Promise<void>;
  /** What /metrics serves; absent when metrics are off (then /metrics is not found). */
  metrics?: ServerMetrics;
  /** The aggregation layer: remote APIServices' paths and groups; absent when APIServices are not served. */
  aggregator?: Aggregator;
}

/** capstan's own paths (not the reference's): test environments reset the server between tests, */
export const RESET_PATH = '/capstan/reset';
/** after saying, if they seed it, which state counts as the first. */
export const FIRST_STATE_PATH = '/capstan/first-state';

/** The reference's Cache-Control for issuer discovery (it overrides the API's "no-cache, private"). */
const DISCOVERY_CACHE_CONTROL = 'public, max-age=3600';

export function router(routes: Routes): (ctx: RequestContext) => Promise<void> {
  return async (ctx) => {
    const { req, res, info, query, out } = ctx;
    // A resource of a group-version served here, first: nearly every request is one. No other
    // route's path is a resource request's (/api/… or /apis/… deep enough to name a resource),
    // no discovery document's either, and the aggregator never takes a group-version served here.
    if (info.isResourceRequest && routes.definitions.resources(info.apiGroup, info.apiVersion)) return routes.resources.handle(req, res, info, query, ctx.user, ctx.received);
    const path = info.path;
    if (path === '/' || path === '/index.html') {
      // Indented, without a final newline, as the reference's index (any method).
      return sendRaw(res, 'application/json', Buffer.from(JSON.stringify({ paths: routes.rootPaths() }, null, 2)));
    }
    if (await routes.health.handle(req, res, path, query)) {
      if (routes.metrics) observeHealthRequest(routes.metrics, ctx);
      return;
    }
    if (path === '/metrics' && routes.metrics) return metricsEndpoint(routes.metrics, ctx);
    if (path === '/version') {
      if (req.method !== 'GET') return sendStatusError(res, methodNotAllowed());
      return sendBytes(res, 200, Buffer.from(JSON.stringify(versionInfo())), { ...out, pretty: true });
    }
    if (path === OPENID_CONFIGURATION_PATH || path === JWKS_PATH) {
      const discovery = routes.issuerDiscovery();
      if (discovery) {
        if (req.method !== 'GET') return sendStatusError(res, methodNotAllowed());
        if (path === JWKS_PATH) return sendRaw(res, 'application/jwk-set+json', discovery.keySet, DISCOVERY_CACHE_CONTROL);
        return sendRaw(res, 'application/json', discovery.configuration, DISCOVERY_CACHE_CONTROL);
      }
    }
    if (path === RESET_PATH || path === FIRST_STATE_PATH) return firstState(ctx, routes, path);
    if (path === '/openapi/v2') return serveOpenApiV2(res, req, routes.openapi);
    // A remote APIService's v3 document is its server's.
    if (routes.aggregator && path.startsWith('/openapi/v3/apis/') && !servedHere(routes.definitions, path.slice('/openapi/v3'.length))) {
      if (await routes.aggregator.handle(req, res, path, ctx.user, out)) return;
    }
    if (path === '/openapi/v3') return sendBytes(res, 200, routes.openapi.v3RootDocument(), out);
    if (path.startsWith('/openapi/v3/')) {
      const doc = routes.openapi.v3Document(path.slice('/openapi/v3/'.length));
      if (doc) return serveOpenApi(res, req, doc, query.has('hash'));
      return sendText(res, 404, '404 page not found\n');
    }
    // A group-version served here is never a remote APIService's (the aggregator is not asked).
    if (routes.aggregator && path.startsWith('/apis/') && !servedHere(routes.definitions, path)) {
      if (await routes.aggregator.handle(req, res, path, ctx.user, out)) return;
    }
    if (path === '/api' || path === '/apis' || path.startsWith('/api/') || path.startsWith('/apis/')) {
      const served = routes.discovery().document(path);
      const doc = served && path === '/apis' && routes.aggregator ? routes.aggregator.groupList(served) : served;
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
    return notFound(ctx, routes.definitions);
  };
}

/** Whether /apis/<group>[/<version>…] names a group (and version) this server serves itself. */
function servedHere(definitions: ResourceDefinitions, path: string): boolean {
  const [group, version] = path.slice('/apis/'.length).split('/');
  if (!group) return true;
  if (version === undefined || version === '') return definitions.group(group) !== undefined;
  return definitions.resources(group, version) !== undefined;
}

/**
 * A path nothing serves. Under /api/ or a served built-in group (`/apis/batch/v1beta1/cronjobs`)
 * the reference's API container answers it with a NotFound Status; anywhere else (an unknown
 * group, a custom resource group's unknown version) its plain-text 404.
 */
function notFound(ctx: RequestContext, definitions: ResourceDefinitions): void {
  const [root, group, rest] = ctx.info.path.split('/').slice(1);
  const inApiContainer = (root === 'api' && group !== undefined) || (root === 'apis' && group !== undefined && rest !== undefined && isBuiltinGroup(definitions, group));
  if (inApiContainer) return sendStatusError(ctx.res, resourceNotFound(), ctx.out);
  sendText(ctx.res, 404, '404 page not found\n');
}

function isBuiltinGroup(definitions: ResourceDefinitions, group: string): boolean {
  const versions = definitions.group(group)?.versions ?? [];
  return versions.some((v) => definitions.resources(group, v)?.some((info) => info.definition.builtin));
}

/** POST RESET_PATH or FIRST_STATE_PATH: as system:masters only, whatever the authorizer allowed. */
async function firstState(ctx: RequestContext, routes: Routes, path: string): Promise<void> {
  if (ctx.req.method !== 'POST') return sendStatusError(ctx.res, methodNotAllowed());
  if (!ctx.user.groups.includes('system:masters')) {
    return sendStatusError(ctx.res, new StatusError(403, 'Forbidden', `User "${ctx.user.name}" cannot post path "${path}": only system:masters may`), ctx.out);
  }
  let message: string;
  if (path === RESET_PATH) {
    message = `reset to the first state: ${await routes.reset()} objects changed`;
  } else {
    await routes.rememberFirstState();
    message = 'the store as it is now is the first state';
  }
  const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', message, code: 200 };
  return sendBytes(ctx.res, 200, Buffer.from(JSON.stringify(status)), ctx.out);
}

/**
 * /openapi/v2 as JSON or as gnostic's Protobuf, by Accept (406 for neither). Both share the JSON's
 * ETag, as the reference's; it names no Content-Type for the Protobuf, so Go's sniffing answers
 * application/octet-stream.
 */
function serveOpenApiV2(res: ServerResponse, req: IncomingMessage, openapi: OpenApi): void {
  res.setHeader('Vary', 'Accept');
  const format = openApiV2Format(req.headers.accept);
  if (!format) {
    res.writeHead(406);
    res.end();
    return;
  }
  const json = openapi.v2Document();
  // A client holding the current ETag gets its 304 without the Protobuf being made.
  if (format === 'json' || req.headers['if-none-match'] === json.etag) return serveOpenApi(res, req, json);
  serveOpenApi(res, req, openapi.v2ProtobufDocument(), false, 'application/octet-stream');
}

function serveOpenApi(res: ServerResponse, req: IncomingMessage, doc: { body: Buffer; etag: string }, immutable = false, contentType = 'application/json'): void {
  if (req.headers['if-none-match'] === doc.etag) {
    res.writeHead(304, { ETag: doc.etag });
    res.end();
    return;
  }
  res.writeHead(200, {
    'Content-Type': contentType,
    ETag: doc.etag,
    'Content-Length': doc.body.length,
    'Cache-Control': immutable ? 'public, immutable' : 'no-cache, private',
  });
  res.end(doc.body);
}

function sendRaw(res: ServerResponse, contentType: string, body: Buffer, cacheControl?: string): void {
  res.writeHead(200, { 'Content-Type': contentType, 'Content-Length': body.length, ...(cacheControl ? { 'Cache-Control': cacheControl } : {}) });
  res.end(body);
}
