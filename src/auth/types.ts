// The shapes shared by authentication, authorization and the review APIs.
import type { UserInfo } from '../api/user.js';


/** What is asked, as the reference's authorizer.Attributes. */
export interface Attributes {
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

export interface Decision {
  allowed: boolean;
  /** Why (the reference's RBAC reason text, e.g. `RBAC: allowed by ClusterRoleBinding "x" of ClusterRole "y" to User "z"`), or "" when no opinion. */
  reason: string;
}

export interface Authorizer {
  authorize(attributes: Attributes): Decision;
}

/** The parts of a request an authenticator reads. */
export interface RequestCredentials {
  headers: Record<string, string | string[] | undefined>;
  /** The verified client certificate chain's leaf, when the TLS client presented one the server verified. */
  clientCertificate?: { subject: { CN?: string; O?: string | string[] } };
}

/** undefined: no credential of this kind present; 'invalid': a credential was present and is bad (401). */
export type AuthenticationResult = UserInfo | undefined | 'invalid';
