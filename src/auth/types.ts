// The shapes shared by authentication, authorization and the review APIs.
import type { X509Certificate } from 'node:crypto';
import type { UserInfo } from '../api/user.js';
import type { AccessAttributes, AccessDecision } from '../registry/services.js';

/** What is asked, as the reference's authorizer.Attributes; the registry's review APIs ask the same. */
export type Attributes = AccessAttributes;

export type Decision = AccessDecision;

export interface Authorizer {
  authorize(attributes: Attributes): Decision;
}

/** The parts of a request an authenticator reads. */
export interface RequestCredentials {
  headers: Record<string, string | string[] | undefined>;
  /** The verified client certificate chain's leaf, when the TLS client presented one the server verified. */
  clientCertificate?: { subject: { CN?: string; O?: string | string[] }; certificate?: X509Certificate };
}

/** undefined: no credential of this kind present; 'invalid': a credential was present and is bad (401). */
export type AuthenticationResult = UserInfo | undefined | 'invalid';
