// The endpoint of resource paths: a request's RequestInfo goes to its verb's handler (./handlers),
// after what every verb shares — content negotiation, the resource's lookup, a deprecated
// version's warning — and every answer, error or not, goes out here.
// performance from its module, not the global: the global is an accessor, called at each use.
import { performance } from 'node:perf_hooks';
import { FeatureGates } from '../api/feature-gates.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AdmissionChain } from '../admission/chain.js';
import { isValidPathSegmentName } from '../api/names.js';
import { auditOf } from '../audit/record.js';
import type { ResourceRequestInfo } from '../api/request-info.js';
import type { UserInfo } from '../api/user.js';
import type { Body } from '../encoding/lists.js';
import { canEncodeProtobuf } from '../encoding/protobuf-encode.js';
import { WebhookLatencies } from '../metrics/admission.js';
import type { ServerMetrics } from '../metrics/server-metrics.js';
import { badRequest, goQuote, methodNotAllowed, methodNotSupported, resourceNotFound } from '../errors.js';
import type { ResourceDefinitions, ResourceInfo } from '../registry/definitions.js';
import { referenceStorageKey } from '../registry/keys.js';
import type { Registry } from '../registry/store.js';
import { handleConnect, isConnect } from './handlers/connect.js';
import { handleCreate } from './handlers/create.js';
import { handleDelete } from './handlers/delete.js';
import { handleDeleteCollection } from './handlers/deletecollection.js';
import { handleGet } from './handlers/get.js';
import { handleList } from './handlers/list.js';
import { handlePatch } from './handlers/patch.js';
import type { Scope, SecurityContext, VerbHandler } from './handlers/scope.js';
import { handleUpdate } from './handlers/update.js';
import { handleWatch } from './handlers/watch.js';
import { observeRequest, type RequestObservation } from './metrics.js';
import { namesProtobuf, negotiate, type Negotiated, type Target } from './negotiation.js';
import { sendBytes, sendStatusError, wantsPretty, type Output } from './request.js';
import { warningHeaders, warningHeaderValues } from './warnings.js';

export type { SecurityContext } from './handlers/scope.js';

/** The user of requests on the plain-HTTP test listener. */
export const LOOPBACK_ADMIN: UserInfo = { name: 'system:admin', groups: ['system:masters', 'system:authenticated'] };

/** Every built-in resource has a Table printer (or the default Name / Created At columns). */
const TABLE_AVAILABLE = true;

/** Subresources read and written as the whole object (the write changes only their part). */
const OBJECT_SUBRESOURCES = new Set(['status', 'approval', 'ephemeralcontainers']);

type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/** Each verb's handler and the one method it answers. */
const VERBS: Readonly<Record<Verb, { method: string; handler: VerbHandler }>> = {
  get: { method: 'GET', handler: handleGet },
  list: { method: 'GET', handler: handleList },
  watch: { method: 'GET', handler: handleWatch },
  create: { method: 'POST', handler: handleCreate },
  update: { method: 'PUT', handler: handleUpdate },
  patch: { method: 'PATCH', handler: handlePatch },
  delete: { method: 'DELETE', handler: handleDelete },
  deletecollection: { method: 'DELETE', handler: handleDeleteCollection },
};

/** The verb a request is handled as: a subresource is read, never watched. */
function verbOf(r: ResourceRequestInfo): Verb | undefined {
  const verb = r.verb === 'watch' && r.subresource !== undefined ? 'get' : r.verb;
  return Object.hasOwn(VERBS, verb) ? (verb as Verb) : undefined;
}

/** What the answer is, for content negotiation: transformations apply to objects, lists and watches only. */
function targetOf(method: string, r: ResourceRequestInfo): Target {
  if (method !== 'GET') return 'other';
  if (r.name === undefined) return r.verb === 'watch' ? 'watch' : 'list';
  return r.subresource && !OBJECT_SUBRESOURCES.has(r.subresource) ? 'other' : 'object';
}

/**
 * A handler's answer, with the request's warnings. A write is stored by now, so nothing here may
 * turn it into an error: the warning headers cannot fail, and should the negotiated encoding of
 * the object fail, the object goes out as the JSON it is stored as.
 */
function sendAnswer(res: ServerResponse, status: number, body: Body, out: Output, warnings: string[]): void {
  const headers = warningHeaders(warnings);
  try {
    sendBytes(res, status, body, out, headers);
  } catch (err) {
    const json = Buffer.isBuffer(body) || Array.isArray(body);
    if (res.headersSent || status >= 300 || !json || (out.format === 'json' && !out.pretty)) throw err;
    console.error(`encoding a ${status} answer as ${out.format} failed (${err instanceof Error ? err.message : String(err)}); answering JSON`);
    sendBytes(res, status, body, { format: 'json', pretty: false }, headers);
  }
}

/** What the server's options say about request handling. */
export interface HandlerSettings {
  features?: FeatureGates;
  metrics?: ServerMetrics;
  /** --min-request-timeout: a watch without timeoutSeconds ends between this and twice this. */
  minRequestTimeoutSeconds?: number;
}

/** The reference's --min-request-timeout default. */
const DEFAULT_MIN_REQUEST_TIMEOUT_SECONDS = 1800;

/** The audit annotations of a request to a deprecated version, with the release it goes away in when one is planned. */
function annotateDeprecation(res: ServerResponse, info: ResourceInfo): void {
  const record = auditOf(res);
  if (!record) return;
  record.annotate('k8s.io/deprecated', 'true');
  if (info.removedRelease) record.annotate('k8s.io/removed-release', info.removedRelease);
}

export class ResourceHandler {

  constructor(
    private readonly registry: Registry,
    private readonly security: SecurityContext = {},
    /** The admission chain, handed into the registry with every write (none in some tests). */
    private readonly admission?: AdmissionChain,
    private readonly settings: HandlerSettings = {},
  ) {}

  /** The server's feature gates: APIListChunking and ServerSideFieldValidation change what requests get. */
  private get features(): FeatureGates {
    return this.settings.features ?? FeatureGates.DEFAULTS;
  }

  /** Where requests a route answers are recorded (none when metrics are off). */
  private get metrics(): ServerMetrics | undefined {
    return this.settings.metrics;
  }

  private get definitions(): ResourceDefinitions {
    return this.registry.definitions;
  }

  /** `received`: when the request arrived (performance.now()), for its latency. */
  async handle(req: IncomingMessage, res: ServerResponse, r: ResourceRequestInfo, query: URLSearchParams, user: UserInfo = LOOPBACK_ADMIN, received = performance.now()): Promise<void> {
    const out: Output = { format: 'json', pretty: wantsPretty(req, query) };
    // Set once a route takes the request: from then on it is counted, whatever its answer.
    let observation: RequestObservation | undefined;
    try {
      const target = targetOf(req.method ?? 'GET', r);
      const info = this.definitions.lookup(r.apiGroup, r.apiVersion, r.resource);
      const protobufOk = info !== undefined && namesProtobuf(req.headers.accept) && canEncodeProtobuf(info.apiVersion, target === 'list' ? info.listKind : info.kind);
      const negotiated = negotiate(req.headers.accept, target, TABLE_AVAILABLE, protobufOk, info !== undefined);
      out.format = negotiated.format;
      if (!info) throw resourceNotFound();
      if (r.namespace !== undefined && !info.namespaced) throw resourceNotFound();
      if (info.namespaced && r.namespace === undefined && r.name !== undefined) throw resourceNotFound();
      const warnings: string[] = [];
      // A deprecated version warns on every answer, errors and watches included.
      const deprecation = info.deprecationWarning;
      if (deprecation) {
        warnings.push(deprecation);
        res.setHeader('Warning', warningHeaderValues([deprecation]));
        annotateDeprecation(res, info);
      }
      const scope = this.scope(req, res, r, info, query, negotiated, user, warnings);
      const { handler, verb } = route(scope);
      if (this.metrics) observation = observeRequest(this.metrics, scope, received);
      // A name the storage cannot take is the route's answer (400), and counted as one.
      checkPathNames(r, info, verb);
      // A verb the resource lists but refuses for now (a terminating CRD's create).
      const refusal = r.subresource === undefined ? info.refusedVerbs?.[verb] : undefined;
      if (refusal !== undefined) throw methodNotSupported({ group: info.group, resource: info.resource }, verb, refusal);
      const result = await handler(scope);
      if (result) sendAnswer(res, result.status, result.body, out, warnings);
    } catch (err) {
      sendStatusError(res, err, out);
    } finally {
      observation?.answered();
    }
  }

  private scope(req: IncomingMessage, res: ServerResponse, request: ResourceRequestInfo, info: ResourceInfo, query: URLSearchParams, negotiated: Negotiated, user: UserInfo, warnings: string[]): Scope {
    const scope: Scope = { req, res, request, info, query, negotiated, user, warnings, registry: this.registry, admission: this.admission, security: this.security, metrics: this.metrics, features: this.features, minRequestTimeoutSeconds: this.settings.minRequestTimeoutSeconds ?? DEFAULT_MIN_REQUEST_TIMEOUT_SECONDS };
    // Only writes call webhooks.
    if (this.metrics && req.method !== 'GET') scope.webhookLatencies = new WebhookLatencies();
    return scope;
  }
}

/** The verb's handler, once the resource (or subresource) serves the verb; 404 or 405 otherwise (no route takes the request). */
function route(scope: Scope): { handler: VerbHandler; verb: Verb } {
  const { request: r, info, req } = scope;
  const verbs = r.subresource ? info.subresources.get(r.subresource)?.verbs : info.verbs;
  if (!verbs) throw resourceNotFound();
  if (r.subresource !== undefined && r.name !== undefined && isConnect(info, r.subresource)) return { handler: handleConnect, verb: 'get' };
  const verb = verbOf(r);
  if (!verb || VERBS[verb].method !== req.method || !verbs.includes(verb)) throw methodNotAllowed();
  return { handler: VERBS[verb].handler, verb };
}

/**
 * The path's name and namespace as the reference's storage reads them: its key function refuses
 * a name that cannot be a path segment (400), and its storage a key with a `.` or `..` segment
 * (its 500 "invalid key", a 400 here). A create is left to admission and validation, as there.
 */
function checkPathNames(r: ResourceRequestInfo, info: ResourceInfo, verb: Verb): void {
  if (r.name !== undefined) {
    const errs = isValidPathSegmentName(r.name);
    if (errs.length) throw badRequest(`Name parameter invalid: ${goQuote(r.name)}: ${errs.join(';')}`);
  }
  if (verb !== 'create' && (r.namespace === '.' || r.namespace === '..')) {
    const key = referenceStorageKey(info, r.namespace, r.name ?? '', true);
    throw badRequest(`invalid key: ${goQuote(r.name === undefined ? key.slice(0, -1) : key)}`);
  }
}
