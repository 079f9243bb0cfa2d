// What some resources need from the layers above the registry, as typed services: the review APIs
// ask the server's authorizer and authenticator, TokenRequest asks its token issuer. The server
// builds them (server/security.ts, from auth/) and hands them in when it is wired
// (Registry.provide); the registry never imports auth/.
import type { UserInfo } from '../api/user.js';

/** What is asked of the authorizer, as the reference's authorizer.Attributes (auth/ authorizes these). */
export interface AccessAttributes {
  user: UserInfo;
  /** get, list, watch, create, update, patch, delete, deletecollection; impersonate, bind, escalate, use, approve, sign…; for non-resource requests the lower-cased HTTP method (get, post, put, patch, delete, head, options). */
  verb: string;
  resourceRequest: boolean;
  apiGroup?: string;
  apiVersion?: string;
  resource?: string;
  subresource?: string;
  name?: string;
  namespace?: string;
  /** The URL path of a non-resource request (/healthz, /api, /openapi/v2, …). */
  path?: string;
}

export interface AccessDecision {
  allowed: boolean;
  /** Why (the reference's RBAC reason text, e.g. `RBAC: allowed by ClusterRoleBinding "x" of ClusterRole "y" to User "z"`), or "" when no opinion. */
  reason: string;
}

/** What a user may do in a namespace (SelfSubjectRulesReview's status). */
export interface RulesOfUser {
  resourceRules: readonly object[];
  nonResourceRules: readonly object[];
  /** Some rules could not be read (a missing role). */
  incomplete: boolean;
}

export interface ServiceAccountRef {
  namespace: string;
  name: string;
  uid: string;
}

/** The object a token is bound to: it is valid only while that object exists. */
export interface BoundObjectRef {
  kind: 'Pod' | 'Secret';
  apiVersion?: string;
  name: string;
  uid: string;
}

export interface TokenIssuing {
  /** The audiences a token is issued for when the request names none. */
  audiences: string[];
  issue(sa: ServiceAccountRef, audiences: string[], expirationSeconds: number, bound?: BoundObjectRef): Promise<{ token: string; expirationTimestamp: string }>;
}

/** One component's health, as a ComponentStatus's Healthy condition says it. */
export interface ComponentHealth {
  name: string;
  /** "True" healthy, "False" checked and failing, "Unknown" not checked (not run). */
  status: 'True' | 'False' | 'Unknown';
  message?: string;
  error?: string;
}

export interface RegistryServices {
  /** The request authorizer (SubjectAccessReview and its kin); without one, nothing is allowed. */
  authorizer?: { authorize(attributes: AccessAttributes): AccessDecision };
  /** The rules a user holds in a namespace (SelfSubjectRulesReview); without it, none and incomplete. */
  rulesFor?(user: UserInfo, namespace: string): RulesOfUser;
  /** Authenticates a bearer token (TokenReview); undefined when it is not valid. */
  reviewToken?(token: string, audiences: string[]): Promise<{ user: UserInfo; audiences: string[] } | undefined>;
  /** Signs service-account tokens (TokenRequest); absent when the server signs none. */
  tokens?: TokenIssuing;
  /** The control plane's components and their health (ComponentStatus); none when absent. */
  componentHealth?(): Promise<ComponentHealth[]>;
}
