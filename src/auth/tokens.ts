// Service-account tokens: the bound JWTs TokenRequest issues (and projected volumes carry)
// and the legacy secret-based JWTs, signed with the --service-account-key-file key pair.

import { createHash, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import type { JWTPayload } from 'jose';
import { rfc3339 } from '../json.js';
import type { BoundObjectRef, ServiceAccountRef } from '../registry/services.js';

// The service account a token is for, and the object it is bound to (as TokenRequest asks for them).
export type { BoundObjectRef, ServiceAccountRef };

export interface VerifiedToken {
  user: { name: string; uid: string; groups: string[]; extra?: Record<string, string[]> };
  serviceAccount: ServiceAccountRef;
  bound?: BoundObjectRef;
  secretName?: string;
  legacy: boolean;
  /** The audiences the token was accepted for: the requested ones it carries (TokenReview's status.audiences). */
  audiences: string[];
  /** When a bound token stops being valid; absent for legacy tokens. */
  expiresAt?: Date;
}

/** The issuer of legacy secret-based tokens. */
export const LEGACY_ISSUER = 'kubernetes/serviceaccount';
/** The reference's default --service-account-issuer in the clusters the fixtures were recorded on. */
export const DEFAULT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

export const SERVICE_ACCOUNT_USER_PREFIX = 'system:serviceaccount:';
export const ALL_SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';
export const AUTHENTICATED_GROUP = 'system:authenticated';
export const POD_NAME_EXTRA = 'authentication.kubernetes.io/pod-name';
export const POD_UID_EXTRA = 'authentication.kubernetes.io/pod-uid';

const LEGACY_NAMESPACE = 'kubernetes.io/serviceaccount/namespace';
const LEGACY_SECRET_NAME = 'kubernetes.io/serviceaccount/secret.name';
const LEGACY_SA_NAME = 'kubernetes.io/serviceaccount/service-account.name';
const LEGACY_SA_UID = 'kubernetes.io/serviceaccount/service-account.uid';

/** How far exp/nbf may be off, as the reference's JWT validation allows (one minute). */
const LEEWAY_SECONDS = 60;

type Jose = typeof import('jose');
let jose: Jose | undefined;
let joseLoading: Promise<Jose> | undefined;

/** jose, loaded when the first token is issued or verified: a server that sees none never needs it. */
function loadJose(): Promise<Jose> {
  return (joseLoading ??= import('jose').then((mod) => (jose = mod)));
}

/** The user a service account authenticates as (groups include system:authenticated). */
export function serviceAccountUser(sa: ServiceAccountRef, pod?: { name: string; uid: string }): VerifiedToken['user'] {
  const user: VerifiedToken['user'] = {
    name: `${SERVICE_ACCOUNT_USER_PREFIX}${sa.namespace}:${sa.name}`,
    uid: sa.uid,
    groups: [ALL_SERVICE_ACCOUNTS_GROUP, `${ALL_SERVICE_ACCOUNTS_GROUP}:${sa.namespace}`, AUTHENTICATED_GROUP],
  };
  if (pod) user.extra = { [POD_NAME_EXTRA]: [pod.name], [POD_UID_EXTRA]: [pod.uid] };
  return user;
}

/** Splits "system:serviceaccount:<ns>:<name>" into its parts; undefined for any other user name. */
export function parseServiceAccountUsername(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SERVICE_ACCOUNT_USER_PREFIX)) return undefined;
  const parts = username.slice(SERVICE_ACCOUNT_USER_PREFIX.length).split(':');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return undefined;
  return { namespace: parts[0], name: parts[1] };
}

function algorithmFor(key: KeyObject): string {
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return 'RS256';
    case 'ec': {
      const curve = key.asymmetricKeyDetails?.namedCurve;
      if (curve === 'prime256v1') return 'ES256';
      if (curve === 'secp384r1') return 'ES384';
      if (curve === 'secp521r1') return 'ES512';
      throw new Error(`unsupported service-account key curve ${curve ?? 'unknown'}`);
    }
    default:
      throw new Error(`unsupported service-account key type ${key.asymmetricKeyType ?? 'unknown'}`);
  }
}

/** The key id the reference puts in the JWT header: base64url(SHA-256(DER SubjectPublicKeyInfo)). */
export function keyIdFor(publicKey: KeyObject): string {
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('base64url');
}

function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

interface BoundClaims {
  namespace?: unknown;
  serviceaccount?: { name?: unknown; uid?: unknown };
  pod?: { name?: unknown; uid?: unknown };
  secret?: { name?: unknown; uid?: unknown };
}

export class TokenIssuer {
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;
  private readonly alg: string;
  private readonly kid: string;
  /** Tokens are issued with the first; all are accepted (as repeated --service-account-issuer). */
  readonly issuers: string[];

  constructor(privateKeyPem: string, publicKeyPem: string, issuer: string | string[] = DEFAULT_ISSUER) {
    this.privateKey = createPrivateKey(privateKeyPem);
    this.publicKey = createPublicKey(publicKeyPem || privateKeyPem);
    if (!createPublicKey(this.privateKey).equals(this.publicKey)) {
      throw new Error('service-account public key does not match the private key');
    }
    this.alg = algorithmFor(this.privateKey);
    this.kid = keyIdFor(this.publicKey);
    this.issuers = (Array.isArray(issuer) ? issuer : [issuer]).filter((i) => i.length > 0);
    if (this.issuers.length === 0) throw new Error('a service-account issuer is required');
  }

  /** The issuer written into new bound tokens. */
  get issuer(): string {
    return this.issuers[0]!;
  }

  /** The signing algorithm (RS256, ES256, …) and key id, as served in /openid/v1/jwks. */
  get keyInfo(): { alg: string; kid: string; publicKey: KeyObject } {
    return { alg: this.alg, kid: this.kid, publicKey: this.publicKey };
  }

  /**
   * A bound token as TokenRequest issues: claims aud, exp, iat, iss, kubernetes.io
   * {namespace, pod|secret {name, uid}, serviceaccount {name, uid}}, nbf, sub.
   */
  async issue(
    sa: ServiceAccountRef,
    audiences: string[],
    expirationSeconds: number,
    bound?: BoundObjectRef,
    now: Date = new Date(),
  ): Promise<{ token: string; expirationTimestamp: string }> {
    const iat = Math.floor(now.getTime() / 1000);
    const exp = iat + Math.floor(expirationSeconds);
    const k8s: Record<string, unknown> = { namespace: sa.namespace };
    if (bound?.kind === 'Pod') k8s.pod = { name: bound.name, uid: bound.uid };
    if (bound?.kind === 'Secret') k8s.secret = { name: bound.name, uid: bound.uid };
    k8s.serviceaccount = { name: sa.name, uid: sa.uid };
    const payload: JWTPayload = {
      aud: [...audiences],
      exp,
      iat,
      iss: this.issuer,
      'kubernetes.io': k8s,
      nbf: iat,
      sub: `${SERVICE_ACCOUNT_USER_PREFIX}${sa.namespace}:${sa.name}`,
    };
    const { SignJWT } = jose ?? (await loadJose());
    const token = await new SignJWT(payload).setProtectedHeader({ alg: this.alg, kid: this.kid }).sign(this.privateKey);
    return { token, expirationTimestamp: rfc3339((exp) * 1000) };
  }

  /** A legacy secret-based token: iss "kubernetes/serviceaccount", the four kubernetes.io/serviceaccount/… claims and sub; no expiry. */
  async issueLegacy(sa: ServiceAccountRef, secretName: string): Promise<string> {
    const payload: JWTPayload = {
      iss: LEGACY_ISSUER,
      [LEGACY_NAMESPACE]: sa.namespace,
      [LEGACY_SECRET_NAME]: secretName,
      [LEGACY_SA_NAME]: sa.name,
      [LEGACY_SA_UID]: sa.uid,
      sub: `${SERVICE_ACCOUNT_USER_PREFIX}${sa.namespace}:${sa.name}`,
    };
    const { SignJWT } = jose ?? (await loadJose());
    return new SignJWT(payload).setProtectedHeader({ alg: this.alg, kid: this.kid }).sign(this.privateKey);
  }

  /**
   * Verifies a token. undefined: not a JWT, or not issued by one of our issuers (another
   * authenticator may know it). 'invalid': ours but the signature, expiry, audience or
   * claims are bad. Otherwise the claims found; the caller still checks that the service
   * account (and the bound pod/secret, or the legacy token's secret) exist with those uids.
   *
   * `audiences` are the audiences asked for (the API audiences for a request, a
   * TokenReview's spec.audiences). A token without aud (legacy) is taken to carry
   * `implicitAudiences` (the API audiences; defaults to `audiences`). The token must share
   * at least one with the asked ones, unless no implicit audiences are configured at all.
   */
  async verify(token: string, audiences: string[], implicitAudiences: string[] = audiences): Promise<VerifiedToken | undefined | 'invalid'> {
    const { decodeJwt, jwtVerify, errors: joseErrors } = jose ?? (await loadJose());
    let unverified: JWTPayload;
    try {
      unverified = decodeJwt(token);
    } catch {
      return undefined;
    }
    const legacy = unverified.iss === LEGACY_ISSUER;
    if (!legacy && !(typeof unverified.iss === 'string' && this.issuers.includes(unverified.iss))) return undefined;

    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.publicKey, { algorithms: [this.alg], clockTolerance: LEEWAY_SECONDS }));
    } catch (err) {
      if (err instanceof joseErrors.JOSEError || err instanceof TypeError) return 'invalid';
      throw err;
    }

    // Audiences.
    const tokenAudiences = payload.aud === undefined ? implicitAudiences : Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    const requested = audiences.length > 0 ? audiences : implicitAudiences;
    const accepted = requested.filter((a) => tokenAudiences.includes(a));
    if (accepted.length === 0 && implicitAudiences.length > 0) return 'invalid';

    if (legacy) {
      const namespace = payload[LEGACY_NAMESPACE];
      const secretName = payload[LEGACY_SECRET_NAME];
      const name = payload[LEGACY_SA_NAME];
      const uid = payload[LEGACY_SA_UID];
      if (!nonEmptyString(namespace) || !nonEmptyString(secretName) || !nonEmptyString(name) || !nonEmptyString(uid)) return 'invalid';
      const serviceAccount = { namespace, name, uid };
      return { user: serviceAccountUser(serviceAccount), serviceAccount, secretName, legacy: true, audiences: accepted };
    }

    const k8s = payload['kubernetes.io'] as BoundClaims | undefined;
    if (typeof k8s !== 'object' || k8s === null) return 'invalid';
    const { namespace, serviceaccount } = k8s;
    if (!nonEmptyString(namespace) || typeof serviceaccount !== 'object' || serviceaccount === null) return 'invalid';
    if (!nonEmptyString(serviceaccount.name) || !nonEmptyString(serviceaccount.uid)) return 'invalid';
    const serviceAccount = { namespace, name: serviceaccount.name, uid: serviceaccount.uid };
    let bound: BoundObjectRef | undefined;
    for (const [claim, kind] of [['pod', 'Pod'], ['secret', 'Secret']] as const) {
      const ref = k8s[claim];
      if (ref === undefined || ref === null) continue;
      if (typeof ref !== 'object' || !nonEmptyString(ref.name) || !nonEmptyString(ref.uid)) return 'invalid';
      if (bound) return 'invalid';
      bound = { kind, apiVersion: 'v1', name: ref.name, uid: ref.uid };
    }
    const result: VerifiedToken = {
      user: serviceAccountUser(serviceAccount, bound?.kind === 'Pod' ? bound : undefined),
      serviceAccount,
      legacy: false,
      audiences: accepted,
    };
    if (bound) result.bound = bound;
    if (typeof payload.exp === 'number') result.expiresAt = new Date(payload.exp * 1000);
    return result;
  }
}
