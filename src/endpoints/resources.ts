// The endpoint handlers for resource paths: request info → verb → registry → encoded answer.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ResourceDefinitions, ResourceInfo } from '../registry/definitions.js';
import type { ResourceRequestInfo } from '../api/request-info.js';
import { parseFieldSelector, parseLabelSelector, checkFieldSelector, objectFields } from '../api/selectors.js';
import { decodeProtobufObject } from '../encoding/protobuf.js';
import { canEncodeProtobuf } from '../encoding/protobuf-encode.js';
import type { Body } from '../encoding/lists.js';
import { decodeObject, decodePatch } from '../encoding/decode.js';
import { applyDuplicates, checkObjectBody, fieldValidationOf, PatchFieldCheck, type FieldValidation } from '../encoding/fieldvalidation.js';
import {
  badRequest, conflict, unsupportedMediaType, fieldInvalid, fieldNotSupported, fieldRequired, fieldTooLong, invalid, notFound, methodNotAllowed, resourceNotFound, StatusError,
} from '../errors.js';
import { applyJsonPatch } from '../fieldmanager/jsonpatch.js';
import { applyMergePatch } from '../fieldmanager/mergepatch.js';
import { applyStrategicMergePatch, recordUpdate } from '../fieldmanager/index.js';
import type { AdmissionChain } from '../admission/chain.js';
import { alwaysAllow } from '../auth/guard.js';
import { reviewStatus, type ReviewContext } from '../auth/reviews.js';
import type { Authorizer } from '../auth/types.js';
import type { UserInfo } from '../api/user.js';
import { metadataOf } from '../registry/objects.js';
import { listPlan, parseResourceVersion } from '../registry/readoptions.js';
import type { DeleteOptions, Registry, WriteContext } from '../registry/store.js';
import { mediaTypeOf, negotiate, type Negotiated, type Target } from './negotiation.js';
import { renderList, renderObject } from './representations.js';
import { readBody, sendBytes, sendStatusError, wantsPretty, type Output } from './request.js';
import { serveWatch } from './watch.js';
import { bindPod, evictPod, nodeProxy, podLog, podProxy, podStream, serviceProxy } from './pod-subresources.js';
import { type JsonObject, isObject, now as nowTime } from '../json.js';

const REVIEWS = new Set([
  'authorization.k8s.io/selfsubjectaccessreviews', 'authorization.k8s.io/subjectaccessreviews',
  'authorization.k8s.io/localsubjectaccessreviews', 'authorization.k8s.io/selfsubjectrulesreviews',
  'authentication.k8s.io/tokenreviews',
]);

/** What the handlers need of the security layer (review APIs, escalation checks, token requests). */
export interface SecurityContext {
  authorizer: Authorizer;
  /** TokenRequest: a token for the service account (bound to an object when asked); undefined when tokens are not served. */
  issueToken?: (sa: { namespace: string; name: string; uid: string }, audiences: string[], expirationSeconds: number, bound?: { kind: 'Pod' | 'Secret'; apiVersion?: string; name: string; uid: string }) => Promise<{ token: string; expirationTimestamp: string }>;
  /** The audiences tokens are issued for by default. */
  apiAudiences?: string[];
  /** RBAC privilege-escalation prevention for writes of roles and bindings; throws 403. */
  escalationCheck?: (user: UserInfo, info: ResourceInfo, obj: JsonObject, namespace: string | undefined) => void;
  rulesFor?: ReviewContext['rulesFor'];
  reviewToken?: ReviewContext['reviewToken'];
}

/** The user of requests on the plain-HTTP test listener. */
export const LOOPBACK_ADMIN: UserInfo = { name: 'system:admin', groups: ['system:masters', 'system:authenticated'] };

/** Every built-in resource has a Table printer (or the default Name / Created At columns). */
const TABLE_AVAILABLE = true;

function isWatch(r: ResourceRequestInfo): boolean {
  return r.verb === 'watch';
}

const FIELD_VALIDATION = ['', 'Ignore', 'Strict', 'Warn'];

/**
 * The field manager of a write: the fieldManager parameter, else the User-Agent up to its first
 * "/" (as the reference derives it: "kubectl", "recorder"), at most 128 characters.
 */
function writerOf(req: IncomingMessage, query: URLSearchParams, optionsKind: string): WriteContext {
  const dryRun = dryRunOf(query, optionsKind);
  const given = query.get('fieldManager');
  if (given !== null && given !== '') {
    if (given.length > 128) throw invalid(optionsKind, 'meta.k8s.io', '', [fieldTooLong('fieldManager', 128)]);
    return { manager: given, dryRun };
  }
  const ua = req.headers['user-agent'] ?? '';
  return { manager: ua.split('/')[0]!.slice(0, 128), dryRun };
}

function checkFieldValidation(query: URLSearchParams, optionsKind: string): void {
  const v = query.get('fieldValidation');
  if (v !== null && !FIELD_VALIDATION.includes(v)) {
    throw invalid(optionsKind, 'meta.k8s.io', '', [fieldNotSupported('fieldValidation', v, FIELD_VALIDATION)]);
  }
}

/** dryRun: absent, or "All" (every stage but persistence); anything else is 422 as in the reference. */
function dryRunOf(query: URLSearchParams, optionsKind: string): boolean {
  const values = query.getAll('dryRun');
  if (values.length === 0) return false;
  const bad = values.find((v) => v !== 'All');
  if (bad !== undefined) throw invalid(optionsKind, 'meta.k8s.io', '', [fieldNotSupported('dryRun', bad, ['All'])]);
  return true;
}

/** The request's options object as an admission review carries it. */
function writeOptions(kind: string, query: URLSearchParams, ctx: WriteContext): JsonObject {
  const options: JsonObject = { kind, apiVersion: 'meta.k8s.io/v1' };
  if (ctx.dryRun) options['dryRun'] = ['All'];
  const manager = query.get('fieldManager');
  if (manager) options['fieldManager'] = manager;
  if (kind === 'PatchOptions' && (query.get('force') === 'true' || query.get('force') === '1')) options['force'] = true;
  const validation = query.get('fieldValidation');
  if (validation) options['fieldValidation'] = validation;
  return options;
}

/** Warnings as the reference sends them: one `299 - "text"` Warning header each, duplicates dropped. */
function warningHeaders(warnings: string[]): Record<string, string | string[]> {
  if (!warnings.length) return {};
  return { Warning: [...new Set(warnings)].map((w) => `299 - ${JSON.stringify(w)}`) };
}

type Filter = ((obj: JsonObject) => boolean) | undefined;

function selectorFilter(info: ResourceInfo, query: URLSearchParams): Filter {
  const labelText = query.get('labelSelector');
  const fieldText = query.get('fieldSelector');
  const labels = labelText ? parseLabelSelector(labelText) : undefined;
  const fields = fieldText ? parseFieldSelector(fieldText) : undefined;
  const selectable = info.definition.hooks.selectableFields;
  if (fields) checkFieldSelector(fields, selectable);
  if ((!labels || labels.empty) && (!fields || fields.empty)) return undefined;
  return (obj) => {
    if (labels && !labels.matches(metadataOf(obj)['labels'] as Record<string, string> | undefined)) return false;
    if (fields && !fields.matches(objectFields(selectable, obj))) return false;
    return true;
  };
}

function deleteOptionsFrom(body: Buffer, query: URLSearchParams): DeleteOptions {
  const options: DeleteOptions = {};
  if (body.length > 0) {
    const parsed = decodePatch(body);
    if (!isObject(parsed)) throw badRequest('DeleteOptions must be a JSON object');
    if (isObject(parsed['preconditions'])) {
      const p = parsed['preconditions'];
      options.preconditions = {
        uid: typeof p['uid'] === 'string' ? p['uid'] : undefined,
        resourceVersion: typeof p['resourceVersion'] === 'string' ? p['resourceVersion'] : undefined,
      };
    }
    if (typeof parsed['gracePeriodSeconds'] === 'number') options.gracePeriodSeconds = parsed['gracePeriodSeconds'];
    if (typeof parsed['propagationPolicy'] === 'string') options.propagationPolicy = parsed['propagationPolicy'];
    if (typeof parsed['orphanDependents'] === 'boolean') options.orphanDependents = parsed['orphanDependents'];
    if (Array.isArray(parsed['dryRun']) && parsed['dryRun'].length) {
      const bad = parsed['dryRun'].find((v) => v !== 'All');
      if (bad !== undefined) throw invalid('DeleteOptions', 'meta.k8s.io', '', [fieldNotSupported('dryRun', bad, ['All'])]);
      options.dryRun = true;
    }
  }
  const grace = query.get('gracePeriodSeconds');
  if (grace !== null) options.gracePeriodSeconds = Number(grace);
  const policy = query.get('propagationPolicy');
  if (policy !== null) options.propagationPolicy = policy;
  const orphan = query.get('orphanDependents');
  if (orphan !== null) options.orphanDependents = orphan === 'true' || orphan === '1';
  const errors = [];
  if (options.orphanDependents !== undefined && options.propagationPolicy !== undefined) {
    errors.push(fieldInvalid('propagationPolicy', options.propagationPolicy, 'orphanDependents and deletionPropagation cannot be both set'));
  }
  if (options.propagationPolicy !== undefined && !['Foreground', 'Background', 'Orphan'].includes(options.propagationPolicy)) {
    errors.push(fieldNotSupported('propagationPolicy', options.propagationPolicy, ['Foreground', 'Background', 'Orphan', 'nil']));
  }
  if (errors.length) throw invalid('DeleteOptions', 'meta.k8s.io', '', errors);
  // The deprecated orphanDependents names a policy.
  if (options.orphanDependents !== undefined) options.propagationPolicy = options.orphanDependents ? 'Orphan' : 'Background';
  return options;
}

const PROTOBUF = 'application/vnd.kubernetes.protobuf';
/** Subresources read and written as the whole object (the write changes only their part). */
const OBJECT_SUBRESOURCES = new Set(['status', 'approval', 'ephemeralcontainers']);
/** Subresources served by a node agent; answered as the reference does when none is reachable. */
const NODE_AGENT_SUBRESOURCES = new Set(['log', 'exec', 'attach', 'portforward', 'proxy']);
const PATCH_TYPES = new Set(['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml']);

export class ResourceHandler {

  constructor(
    private readonly registry: Registry,
    private readonly security: SecurityContext = { authorizer: alwaysAllow },
    /** The admission chain, handed into the registry with every write (none in some tests). */
    private readonly admission?: AdmissionChain,
  ) {}

  private get definitions(): ResourceDefinitions {
    return this.registry.definitions;
  }

  async handle(req: IncomingMessage, res: ServerResponse, r: ResourceRequestInfo, query: URLSearchParams, user: UserInfo = LOOPBACK_ADMIN): Promise<void> {
    const out: Output = { format: 'json', pretty: wantsPretty(req, query) };
    try {
      const method = req.method ?? 'GET';
      const target: Target = method !== 'GET' ? 'other' : r.name === undefined ? (isWatch(r) ? 'watch' : 'list') : r.subresource && !OBJECT_SUBRESOURCES.has(r.subresource) ? 'other' : 'object';
      const info0 = this.definitions.lookup(r.apiGroup, r.apiVersion, r.resource);
      const protobufOk = info0 !== undefined && canEncodeProtobuf(info0.apiVersion, target === 'list' ? info0.listKind : info0.kind);
      const negotiated = negotiate(req.headers.accept, target, TABLE_AVAILABLE, protobufOk);
      out.format = negotiated.format;
      const info = this.definitions.lookup(r.apiGroup, r.apiVersion, r.resource);
      if (!info) throw resourceNotFound();
      if (r.namespace !== undefined && !info.namespaced) throw resourceNotFound();
      if (info.namespaced && r.namespace === undefined && r.name !== undefined) throw resourceNotFound();
      const warnings: string[] = [];
      // A deprecated version warns on every answer, errors and watches included.
      const deprecation = info.deprecationWarning;
      if (deprecation) {
        warnings.push(deprecation);
        res.setHeader('Warning', warningHeaders([deprecation])['Warning']!);
      }
      const result = await this.dispatch(req, res, info, r, query, negotiated, user, warnings);
      if (result) sendBytes(res, result.status, result.body, out, warningHeaders(warnings));
    } catch (err) {
      sendStatusError(res, err, out);
    }
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse, info: ResourceInfo, r: ResourceRequestInfo, query: URLSearchParams, n: Negotiated, user: UserInfo, warnings: string[]): Promise<{ status: number; body: Body } | undefined> {
    const method = req.method ?? 'GET';
    const verbs = r.subresource ? info.subresources.get(r.subresource)?.verbs : info.verbs;
    if (!verbs) throw resourceNotFound();
    const allow = (verb: string) => {
      if (!verbs.includes(verb)) throw methodNotAllowed();
    };
    const ns = r.namespace;
    if (r.subresource && r.name !== undefined && !OBJECT_SUBRESOURCES.has(r.subresource) && !['scale', 'token', 'finalize'].includes(r.subresource)) {
      return this.special(req, res, info, r.subresource, ns, r.name, query, user, warnings);
    }
    if (info.group === '' && info.resource === 'bindings' && method === 'POST' && r.name === undefined && ns !== undefined) {
      // The bindings collection: the pod is named by the Binding itself.
      allow('create');
      const writer = this.writer(info, user, req, query, 'CreateOptions', warnings);
      const binding = await this.objectBody(req, info, 'Binding');
      return bindPod(this.registry, this.definitions.lookup('', 'v1', 'pods')!, ns, String(metadataOf(binding)['name'] ?? ''), binding, writer);
    }
    if (r.subresource === 'scale' && r.name !== undefined) return this.scale(req, info, ns, r.name, query, allow, user, warnings);
    if (r.subresource === 'token' && r.name !== undefined && info.resource === 'serviceaccounts' && info.group === '') {
      allow('create');
      if (method !== 'POST') throw methodNotAllowed();
      return this.tokenRequest(req, info, ns!, r.name, query);
    }
    if (r.name === undefined) {
      switch (method) {
        case 'GET': {
          if (isWatch(r)) {
            allow('watch');
            await serveWatch(req, res, this.registry, info, ns, query, selectorFilter(info, query), n);
            return undefined;
          }
          allow('list');
          const filter = selectorFilter(info, query);
          const { plan } = listPlan(query, false);
          return { status: 200, body: renderList(info, await this.registry.list(info, ns, plan, filter), n, query) };
        }
        case 'POST': {
          allow('create');
          if (info.namespaced && ns === undefined) throw resourceNotFound();
          checkFieldValidation(query, 'CreateOptions');
          const writer = this.writer(info, user, req, query, 'CreateOptions', warnings);
          const body = await this.objectBody(req, info, info.kind, { level: fieldValidationOf(query), warnings });
          const review = await this.review(info, ns, body, writer, user);
          if (review) return review;
          return this.registry.create(info, ns, body, writer);
        }
        case 'DELETE': {
          allow('deletecollection');
          const dryRun = dryRunOf(query, 'DeleteOptions');
          const filter = selectorFilter(info, query);
          const options = deleteOptionsFrom(await readBody(req), query);
          if (dryRun) options.dryRun = true;
          const deleted = await this.registry.deleteCollection(info, ns, filter, { ...options, user, warnings, admission: this.admission?.for(user, warnings) });
          return { status: 200, body: renderList(info, deleted, n, query) };
        }
        default:
          throw methodNotAllowed();
      }
    }
    const name = r.name;
    if (method === 'GET' && !r.subresource && isWatch(r)) {
      // A watch of one object: the collection's watch narrowed to its name.
      allow('watch');
      const selected = selectorFilter(info, query);
      const named = (obj: JsonObject) => metadataOf(obj)['name'] === name && (!selected || selected(obj));
      await serveWatch(req, res, this.registry, info, ns, query, named, n);
      return undefined;
    }
    switch (method) {
      case 'GET':
        allow('get');
        return { status: 200, body: renderObject(info, await this.registry.get(info, ns, name, parseResourceVersion(query.get('resourceVersion'))), n, query) };
      case 'PUT': {
        allow('update');
        checkFieldValidation(query, 'UpdateOptions');
        const writer = this.writer(info, user, req, query, 'UpdateOptions', warnings);
        const body = await this.objectBody(req, info, info.kind, { level: fieldValidationOf(query), warnings });
        return this.registry.update(info, ns, name, body, r.subresource, writer);
      }
      case 'PATCH': {
        allow('patch');
        const type = mediaTypeOf(req.headers['content-type']);
        if (!PATCH_TYPES.has(type)) throw new StatusError(415, 'UnsupportedMediaType', '415: Unsupported Media Type', {});
        if (type === 'application/apply-patch+yaml' && !query.get('fieldManager')) {
          throw invalid('PatchOptions', 'meta.k8s.io', '', [fieldRequired('fieldManager', 'is required for apply patch')]);
        }
        checkFieldValidation(query, 'PatchOptions');
        const writer = this.writer(info, user, req, query, 'PatchOptions', warnings);
        const raw = await readBody(req);
        if (type === 'application/apply-patch+yaml') {
          const force = query.get('force') === 'true' || query.get('force') === '1';
          const applied = decodeObject(raw, 'application/yaml', info.kind);
          const options = { manager: writer.manager, force, dryRun: writer.dryRun, user, warnings, options: writer.options, admission: writer.admission };
          const refused = applyDuplicates(raw.toString('utf8'), fieldValidationOf(query), warnings);
          if (refused) {
            // The reference refuses repeated keys only once the apply itself went through.
            await this.registry.apply(info, ns, name, applied, { ...options, dryRun: true }, r.subresource);
            throw refused;
          }
          return this.registry.apply(info, ns, name, applied, options, r.subresource);
        }
        const patch = decodePatch(raw);
        const gvk = { group: info.group, version: info.version, kind: info.kind };
        const mergeBody = (): JsonObject => {
          if (!isObject(patch)) throw badRequest('json: cannot unmarshal into Go value of type map[string]interface {}');
          return patch;
        };
        const kindOfPatch = type === 'application/json-patch+json' ? 'json' : type === 'application/strategic-merge-patch+json' ? 'strategic' : 'merge';
        const fields = new PatchFieldCheck(kindOfPatch, raw.toString('utf8'), patch, gvk, fieldValidationOf(query), warnings);
        const apply = type === 'application/json-patch+json'
          ? (current: JsonObject) => fields.patched(() => applyJsonPatch(current, patch))
          : type === 'application/strategic-merge-patch+json'
            ? (current: JsonObject) => fields.patched(() => applyStrategicMergePatch(gvk, current, mergeBody()))
            : (current: JsonObject) => fields.patched(() => applyMergePatch(current, mergeBody()));
        return this.registry.patch(info, ns, name, apply, r.subresource, writer);
      }
      case 'DELETE': {
        allow('delete');
        const dryRun = dryRunOf(query, 'DeleteOptions');
        const options = deleteOptionsFrom(await readBody(req), query);
        if (dryRun) options.dryRun = true;
        return this.registry.delete(info, ns, name, { ...options, user, warnings, admission: this.admission?.for(user, warnings) });
      }
      case 'POST':
        throw methodNotAllowed();
      default:
        throw methodNotAllowed();
    }
  }

  /** Subresources that are not plain object writes: binding, eviction and the node agent's. */
  private async special(req: IncomingMessage, res: ServerResponse, info: ResourceInfo, subresource: string, ns: string | undefined, name: string, query: URLSearchParams, user: UserInfo, warnings: string[]): Promise<{ status: number; body: Body } | undefined> {
    const method = req.method ?? 'GET';
    const pod = info.group === '' && info.resource === 'pods' && ns !== undefined;
    if (pod && subresource === 'binding' && method === 'POST') {
      const writer = this.writer(info, user, req, query, 'CreateOptions', warnings);
      const binding = await this.objectBody(req, info, 'Binding');
      const bodyName = metadataOf(binding)['name'];
      if (bodyName !== undefined && bodyName !== name) throw badRequest(`name in URL does not match name in Binding object`);
      return bindPod(this.registry, info, ns, name, binding, writer);
    }
    if (pod && subresource === 'eviction' && method === 'POST') {
      const dryRun = dryRunOf(query, 'CreateOptions');
      const eviction = await this.objectBody(req, info, 'Eviction');
      return evictPod(this.registry, info, ns, name, eviction, { dryRun, user, warnings, admission: this.admission?.for(user, warnings) });
    }
    if (NODE_AGENT_SUBRESOURCES.has(subresource)) {
      if (pod && subresource === 'log' && method === 'GET') {
        const log = await podLog(this.registry, info, ns, name, query);
        res.writeHead(log.status, { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(log.text) });
        res.end(log.text);
        return undefined;
      }
      if (pod && subresource === 'proxy') return podProxy(this.registry, info, ns, name);
      if (pod && (method === 'GET' || method === 'POST')) return podStream(this.registry, info, ns, name, subresource, query);
      if (info.group === '' && info.resource === 'services' && subresource === 'proxy' && ns !== undefined) return serviceProxy(this.registry, ns, name);
      if (info.group === '' && info.resource === 'nodes' && subresource === 'proxy') return nodeProxy(this.registry, name);
    }
    throw methodNotAllowed();
  }

  private async scale(req: IncomingMessage, info: ResourceInfo, ns: string | undefined, name: string, query: URLSearchParams, allow: (verb: string) => void, user: UserInfo, warnings: string[]): Promise<{ status: number; body: Buffer }> {
    const method = req.method ?? 'GET';
    if (method === 'GET') {
      allow('get');
      return { status: 200, body: await this.registry.getScale(info, ns, name) };
    }
    const writer = this.writer(info, user, req, query, method === 'PUT' ? 'UpdateOptions' : 'PatchOptions', warnings);
    if (method === 'PUT') {
      allow('update');
      const body = decodeObject(await readBody(req), mediaTypeOf(req.headers['content-type']) === 'application/yaml' ? 'application/yaml' : 'application/json', 'Scale');
      return this.registry.updateScale(info, ns, name, () => body, writer);
    }
    if (method === 'PATCH') {
      allow('patch');
      const type = mediaTypeOf(req.headers['content-type']);
      if (!PATCH_TYPES.has(type) || type === 'application/apply-patch+yaml') throw new StatusError(415, 'UnsupportedMediaType', '415: Unsupported Media Type', {});
      const patch = decodePatch(await readBody(req));
      return this.registry.updateScale(info, ns, name, (scale) => {
        if (type === 'application/json-patch+json') return applyJsonPatch(scale, patch);
        if (!isObject(patch)) throw badRequest('json: cannot unmarshal into Go value of type map[string]interface {}');
        if (type === 'application/strategic-merge-patch+json') return applyStrategicMergePatch({ group: 'autoscaling', version: 'v1', kind: 'Scale' }, scale, patch);
        return applyMergePatch(scale, patch);
      }, writer);
    }
    throw methodNotAllowed();
  }

  /** The writer of a request: its field manager, dry-run, and (for RBAC objects) the escalation check. */
  private writer(info: ResourceInfo, user: UserInfo, req: IncomingMessage, query: URLSearchParams, optionsKind: string, warnings: string[]): WriteContext {
    const ctx = writerOf(req, query, optionsKind);
    ctx.user = user;
    ctx.warnings = warnings;
    ctx.options = writeOptions(optionsKind, query, ctx);
    ctx.admission = this.admission?.for(user, warnings);
    const check = this.security.escalationCheck;
    // Roles and bindings may not grant what their writer does not hold.
    if (check && info.group === 'rbac.authorization.k8s.io') ctx.admit = (obj, namespace) => check(user, info, obj, namespace);
    return ctx;
  }

  /** serviceaccounts/{name}/token: a TokenRequest answered with a signed, expiring token. */
  private async tokenRequest(req: IncomingMessage, info: ResourceInfo, ns: string, name: string, query: URLSearchParams): Promise<{ status: number; body: Buffer }> {
    const writer = writerOf(req, query, 'CreateOptions');
    const body = await this.objectBody(req, info, 'TokenRequest');
    if (!this.security.issueToken) throw resourceNotFound();
    const sa = await this.registry.getObject(info, ns, name);
    if (!sa) throw notFound({ group: '', resource: 'serviceaccounts' }, name);
    const spec = isObject(body['spec']) ? body['spec'] : {};
    const audiences = Array.isArray(spec['audiences']) && spec['audiences'].length ? spec['audiences'].map(String) : this.security.apiAudiences ?? [];
    const expirationSeconds = typeof spec['expirationSeconds'] === 'number' ? spec['expirationSeconds'] : 3600;
    if (expirationSeconds < 600) {
      throw invalid('TokenRequest', 'authentication.k8s.io', name, [fieldInvalid('spec.expirationSeconds', expirationSeconds, 'may not specify a duration less than 10 minutes')]);
    }
    const boundRef = isObject(spec['boundObjectRef']) ? spec['boundObjectRef'] : undefined;
    let bound: { kind: 'Pod' | 'Secret'; apiVersion?: string; name: string; uid: string } | undefined;
    if (boundRef) {
      const kind = String(boundRef['kind'] ?? '');
      if (kind !== 'Pod' && kind !== 'Secret') throw badRequest(`cannot bind token to object of type ${kind}`);
      const target = this.definitions.lookup('', 'v1', kind === 'Pod' ? 'pods' : 'secrets')!;
      const obj = await this.registry.getObject(target, ns, String(boundRef['name'] ?? ''));
      if (!obj) throw notFound({ group: '', resource: target.resource }, String(boundRef['name'] ?? ''));
      const uid = String(metadataOf(obj)['uid']);
      if (boundRef['uid'] !== undefined && boundRef['uid'] !== uid) throw conflict({ group: '', resource: target.resource }, String(boundRef['name']), 'the UID in the bound object reference does not match the object');
      bound = { kind, apiVersion: 'v1', name: String(boundRef['name']), uid };
    }
    const issued = await this.security.issueToken({ namespace: ns, name, uid: String(metadataOf(sa)['uid']) }, audiences, expirationSeconds, bound);
    const now = nowTime();
    const out: JsonObject = {
      kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v1',
      metadata: { name, namespace: ns, creationTimestamp: now },
      spec: { audiences, expirationSeconds, boundObjectRef: boundRef ?? null },
    };
    // Ownership is recorded on what was sent (spec as given), into the answer's metadata (shared).
    recordUpdate({ group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' }, undefined, { ...out, spec: body['spec'] ?? {} }, writer.manager, { now, subresource: 'token' });
    out['status'] = { token: issued.token, expirationTimestamp: issued.expirationTimestamp };
    return { status: 201, body: Buffer.from(JSON.stringify(out)) };
  }

  /** The review APIs answer a POST from the authenticator and authorizer; nothing is stored. */
  private async review(info: ResourceInfo, ns: string | undefined, body: JsonObject, writer: WriteContext, user: UserInfo): Promise<{ status: number; body: Buffer } | undefined> {
    if (!REVIEWS.has(`${info.group}/${info.resource}`)) return undefined;
    this.registry.checkTypeMeta(info, body);
    const status = await reviewStatus(info.group, info.resource, body, {
      requester: user, authorizer: this.security.authorizer, namespace: ns,
      rulesFor: this.security.rulesFor, reviewToken: this.security.reviewToken,
    });
    const meta: JsonObject = ns !== undefined ? { namespace: ns } : {};
    meta['creationTimestamp'] = null;
    const obj: JsonObject = { kind: info.kind, apiVersion: info.apiVersion, metadata: meta, spec: body['spec'] };
    recordUpdate({ group: info.group, version: info.version, kind: info.kind }, undefined, obj, writer.manager, { now: nowTime() });
    obj['status'] = status;
    return { status: 201, body: Buffer.from(JSON.stringify(obj)) };
  }

  /** The decoded body; with `fields`, checked (and unknown fields dropped) as fieldValidation says. */
  private async objectBody(req: IncomingMessage, info: ResourceInfo, kind = info.kind, fields?: { level: FieldValidation; warnings: string[] }): Promise<JsonObject> {
    const type = mediaTypeOf(req.headers['content-type']) || 'application/json';
    if (type === PROTOBUF) return decodeProtobufObject(await readBody(req), kind).object;
    if (type !== 'application/json' && type !== 'application/yaml') {
      await readBody(req).catch(() => undefined);
      throw unsupportedMediaType();
    }
    const raw = await readBody(req);
    const body = decodeObject(raw, type, kind);
    if (fields) {
      // A body of another kind or version is refused (or converted) before it is decoded.
      if (body['apiVersion'] !== info.apiVersion || body['kind'] !== info.kind) this.registry.checkTypeMeta(info, body);
      const endpoint = { group: info.group, version: info.version, kind: info.kind };
      checkObjectBody({ text: raw.toString('utf8'), yaml: type === 'application/yaml', object: body, endpoint }, fields.level, fields.warnings);
    }
    return body;
  }
}
