// The review APIs: SubjectAccessReview, LocalSubjectAccessReview, SelfSubjectAccessReview,
// SelfSubjectRulesReview (authorization.k8s.io/v1) and TokenReview (authentication.k8s.io/v1).
// They are answered from the same authenticator and authorizer that guard requests; nothing is stored.
import { badRequest, fieldRequired, invalid } from '../errors.js';
import type { Attributes, Authorizer } from './types.js';
import type { UserInfo } from '../api/user.js';
import { type JsonObject, isObject } from '../json.js';

export interface RulesForUser {
  resourceRules: Array<Record<string, unknown>>;
  nonResourceRules: Array<Record<string, unknown>>;
  incomplete: boolean;
}

export interface ReviewContext {
  requester: UserInfo;
  authorizer: Authorizer;
  /** The namespace of the request path (LocalSubjectAccessReview). */
  namespace?: string;
  rulesFor?: (user: UserInfo, namespace: string) => RulesForUser;
  /** Authenticates a bearer token for TokenReview. */
  reviewToken?: (token: string, audiences: string[]) => Promise<{ user: UserInfo; audiences: string[] } | undefined>;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function attributesOf(user: UserInfo, spec: JsonObject, kind: string): Attributes {
  const ra = spec['resourceAttributes'];
  const nra = spec['nonResourceAttributes'];
  if (isObject(ra)) {
    const a: Attributes = { user, verb: str(ra['verb']) ?? '', resourceRequest: true, apiGroup: str(ra['group']) ?? '', resource: str(ra['resource']) ?? '' };
    if (str(ra['version'])) a.apiVersion = str(ra['version']);
    if (str(ra['subresource'])) a.subresource = str(ra['subresource']);
    if (str(ra['name'])) a.name = str(ra['name']);
    if (str(ra['namespace'])) a.namespace = str(ra['namespace']);
    return a;
  }
  if (isObject(nra)) return { user, verb: str(nra['verb']) ?? '', resourceRequest: false, path: str(nra['path']) ?? '' };
  throw invalid(kind, 'authorization.k8s.io', '', [fieldRequired('spec.resourceAttributes', 'exactly one of nonResourceAttributes or resourceAttributes must be specified')]);
}

function userOfSpec(spec: JsonObject): UserInfo {
  const user: UserInfo = { name: str(spec['user']) ?? '', groups: Array.isArray(spec['groups']) ? spec['groups'].map(String) : [] };
  if (str(spec['uid'])) user.uid = str(spec['uid']);
  if (isObject(spec['extra'])) user.extra = spec['extra'] as Record<string, string[]>;
  return user;
}

function accessStatus(authorizer: Authorizer, a: Attributes): JsonObject {
  const decision = authorizer.authorize(a);
  const status: JsonObject = { allowed: decision.allowed };
  if (decision.reason) status['reason'] = decision.reason;
  return status;
}

function specOf(body: JsonObject, kind: string, group: string): JsonObject {
  const spec = body['spec'];
  if (!isObject(spec)) throw invalid(kind, group, '', [fieldRequired('spec', '')]);
  return spec;
}

/** The status of a review object, or undefined when `kind` is not a review. */
export async function reviewStatus(group: string, resource: string, body: JsonObject, ctx: ReviewContext): Promise<JsonObject | undefined> {
  switch (`${group}/${resource}`) {
    case 'authorization.k8s.io/selfsubjectaccessreviews': {
      const spec = specOf(body, 'SelfSubjectAccessReview', 'authorization.k8s.io');
      return accessStatus(ctx.authorizer, attributesOf(ctx.requester, spec, 'SelfSubjectAccessReview'));
    }
    case 'authorization.k8s.io/subjectaccessreviews': {
      const spec = specOf(body, 'SubjectAccessReview', 'authorization.k8s.io');
      const user = userOfSpec(spec);
      if (!user.name && user.groups.length === 0) {
        throw invalid('SubjectAccessReview', 'authorization.k8s.io', '', [fieldRequired('spec.user', 'at least one of user or group must be specified')]);
      }
      return accessStatus(ctx.authorizer, attributesOf(user, spec, 'SubjectAccessReview'));
    }
    case 'authorization.k8s.io/localsubjectaccessreviews': {
      const spec = specOf(body, 'LocalSubjectAccessReview', 'authorization.k8s.io');
      const a = attributesOf(userOfSpec(spec), spec, 'LocalSubjectAccessReview');
      if (!a.resourceRequest || a.namespace !== ctx.namespace) {
        throw badRequest(`spec.resourceAttributes.namespace must match namespace: ${ctx.namespace}`);
      }
      return accessStatus(ctx.authorizer, a);
    }
    case 'authorization.k8s.io/selfsubjectrulesreviews': {
      const spec = specOf(body, 'SelfSubjectRulesReview', 'authorization.k8s.io');
      const namespace = str(spec['namespace']) ?? '';
      const rules = ctx.rulesFor?.(ctx.requester, namespace) ?? { resourceRules: [], nonResourceRules: [], incomplete: true };
      return { resourceRules: rules.resourceRules, nonResourceRules: rules.nonResourceRules, incomplete: rules.incomplete };
    }
    case 'authentication.k8s.io/tokenreviews': {
      const spec = specOf(body, 'TokenReview', 'authentication.k8s.io');
      const token = str(spec['token']) ?? '';
      const audiences = Array.isArray(spec['audiences']) ? spec['audiences'].map(String) : [];
      const result = token && ctx.reviewToken ? await ctx.reviewToken(token, audiences) : undefined;
      if (!result) return { user: {}, error: 'invalid bearer token' };
      const user: JsonObject = { username: result.user.name };
      if (result.user.uid) user['uid'] = result.user.uid;
      if (result.user.groups.length) user['groups'] = result.user.groups;
      if (result.user.extra) user['extra'] = result.user.extra;
      return { authenticated: true, user, audiences: result.audiences };
    }
    default:
      return undefined;
  }
}
