// The review APIs: SubjectAccessReview, LocalSubjectAccessReview, SelfSubjectAccessReview,
// SelfSubjectRulesReview (authorization.k8s.io/v1) and TokenReview (authentication.k8s.io/v1).
// Nothing is stored: a create is answered from the server's own authorizer and authenticator
// (registry.services), the answer carrying the spec as sent and its managedFields — except
// SelfSubjectRulesReview's, which the reference builds anew (empty spec, no managedFields).
import { badRequest, fieldRequired, invalid } from '../../errors.js';
import { recordUpdate } from '../../fieldmanager/index.js';
import type { UserInfo } from '../../api/user.js';
import { type JsonObject, isObject, now } from '../../json.js';
import type { CreateCall, CreateHook } from '../definitions.js';
import type { AccessAttributes, RegistryServices } from '../services.js';
import { SYSTEM_USER } from '../store.js';

const AUTHORIZATION = 'authorization.k8s.io';
const AUTHENTICATION = 'authentication.k8s.io';

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function specOf(body: JsonObject, kind: string, group: string): JsonObject {
  const spec = body['spec'];
  if (!isObject(spec)) throw invalid(kind, group, '', [fieldRequired('spec', '')]);
  return spec;
}

function attributesOf(user: UserInfo, spec: JsonObject, kind: string): AccessAttributes {
  const ra = spec['resourceAttributes'];
  const nra = spec['nonResourceAttributes'];
  if (isObject(ra)) {
    const a: AccessAttributes = { user, verb: str(ra['verb']) ?? '', resourceRequest: true, apiGroup: str(ra['group']) ?? '', resource: str(ra['resource']) ?? '' };
    if (str(ra['version'])) a.apiVersion = str(ra['version']);
    if (str(ra['subresource'])) a.subresource = str(ra['subresource']);
    if (str(ra['name'])) a.name = str(ra['name']);
    if (str(ra['namespace'])) a.namespace = str(ra['namespace']);
    return a;
  }
  if (isObject(nra)) return { user, verb: str(nra['verb']) ?? '', resourceRequest: false, path: str(nra['path']) ?? '' };
  throw invalid(kind, AUTHORIZATION, '', [fieldRequired('spec.resourceAttributes', 'exactly one of nonResourceAttributes or resourceAttributes must be specified')]);
}

function userOfSpec(spec: JsonObject): UserInfo {
  const user: UserInfo = { name: str(spec['user']) ?? '', groups: Array.isArray(spec['groups']) ? spec['groups'].map(String) : [] };
  if (str(spec['uid'])) user.uid = str(spec['uid']);
  if (isObject(spec['extra'])) user.extra = spec['extra'] as Record<string, string[]>;
  return user;
}

/** The authorizer's answer; without one installed, no opinion (not allowed), as the reference's empty union. */
function accessStatus(services: RegistryServices, a: AccessAttributes): JsonObject {
  const decision = services.authorizer?.authorize(a) ?? { allowed: false, reason: '' };
  const status: JsonObject = { allowed: decision.allowed };
  if (decision.reason) status['reason'] = decision.reason;
  return status;
}

/** What a review finds, from its spec: the status of the answer. */
type Review = (spec: JsonObject, call: CreateCall, services: RegistryServices) => Promise<JsonObject> | JsonObject;

interface ReviewOptions {
  /**
   * The answer is a new object holding only the status (an empty spec, no managedFields), and
   * the spec is not required: the reference's REST reads what it needs and builds its answer anew.
   */
  freshAnswer?: boolean;
}

/** A review resource's create: checked, answered by `review`, nothing stored. */
function reviewOf(kind: string, group: string, review: Review, options: ReviewOptions = {}): CreateHook {
  return async (registry, call) => {
    const { info, namespace, body, writer } = call;
    registry.checkTypeMeta(info, body);
    const spec = options.freshAnswer ? (isObject(body['spec']) ? body['spec'] : {}) : specOf(body, kind, group);
    const status = await review(spec, call, registry.services);
    const meta: JsonObject = namespace !== undefined ? { namespace } : {};
    meta['creationTimestamp'] = null;
    const answer: JsonObject = { kind: info.kind, apiVersion: info.apiVersion, metadata: meta, spec: options.freshAnswer ? {} : body['spec'] };
    if (!options.freshAnswer) recordUpdate({ group: info.group, version: info.version, kind: info.kind }, undefined, answer, writer.manager, { now: now() });
    answer['status'] = status;
    return { status: 201, body: Buffer.from(JSON.stringify(answer)) };
  };
}

const requester = (call: CreateCall): UserInfo => call.writer.user ?? SYSTEM_USER;

export const selfSubjectAccessReview = reviewOf('SelfSubjectAccessReview', AUTHORIZATION, (spec, call, services) =>
  accessStatus(services, attributesOf(requester(call), spec, 'SelfSubjectAccessReview')));

export const subjectAccessReview = reviewOf('SubjectAccessReview', AUTHORIZATION, (spec, _call, services) => {
  const user = userOfSpec(spec);
  if (!user.name && user.groups.length === 0) {
    throw invalid('SubjectAccessReview', AUTHORIZATION, '', [fieldRequired('spec.user', 'at least one of user or group must be specified')]);
  }
  return accessStatus(services, attributesOf(user, spec, 'SubjectAccessReview'));
});

export const localSubjectAccessReview = reviewOf('LocalSubjectAccessReview', AUTHORIZATION, (spec, call, services) => {
  const a = attributesOf(userOfSpec(spec), spec, 'LocalSubjectAccessReview');
  if (!a.resourceRequest || a.namespace !== call.namespace) {
    throw badRequest(`spec.resourceAttributes.namespace must match namespace: ${call.namespace}`);
  }
  return accessStatus(services, a);
});

export const selfSubjectRulesReview = reviewOf('SelfSubjectRulesReview', AUTHORIZATION, (spec, call, services) => {
  const namespace = str(spec['namespace']) ?? '';
  if (!namespace) throw badRequest('no namespace on request');
  const rules = services.rulesFor?.(requester(call), namespace) ?? { resourceRules: [], nonResourceRules: [], incomplete: true };
  return { resourceRules: rules.resourceRules, nonResourceRules: rules.nonResourceRules, incomplete: rules.incomplete };
}, { freshAnswer: true });

export const tokenReview = reviewOf('TokenReview', AUTHENTICATION, async (spec, _call, services) => {
  const token = str(spec['token']) ?? '';
  const audiences = Array.isArray(spec['audiences']) ? spec['audiences'].map(String) : [];
  const result = token && services.reviewToken ? await services.reviewToken(token, audiences) : undefined;
  if (!result) return { user: {}, error: 'invalid bearer token' };
  const user: JsonObject = { username: result.user.name };
  if (result.user.uid) user['uid'] = result.user.uid;
  if (result.user.groups.length) user['groups'] = result.user.groups;
  if (result.user.extra) user['extra'] = result.user.extra;
  return { authenticated: true, user, audiences: result.audiences };
});
