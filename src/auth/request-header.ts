// Request-header authentication (the reference's front-proxy authenticator): a client certificate
// signed by --requestheader-client-ca-file, with a common name among --requestheader-allowed-names
// (any, when none are given), may say who the user is in request headers. Also what the
// aggregator's proxy writes when it calls an extension server: the same header names, one model.
import type { X509Certificate } from 'node:crypto';
import type { UserInfo } from '../api/user.js';

export interface RequestHeaderNames {
  readonly usernameHeaders: readonly string[];
  readonly groupHeaders: readonly string[];
  readonly extraHeadersPrefixes: readonly string[];
}

export interface RequestHeaderOptions extends RequestHeaderNames {
  /** The front-proxy CA certificates. */
  readonly cas: readonly X509Certificate[];
  /** The CAs of ordinary client certificates: a front proxy's signed by none of them is nobody's own. */
  readonly clientCas: readonly X509Certificate[];
  readonly allowedNames: readonly string[];
}

type Headers = Record<string, string | string[] | undefined>;

/** Whether `cert` is signed by one of `cas`. */
export function signedByAny(cert: X509Certificate, cas: readonly X509Certificate[]): boolean {
  return cas.some((ca) => cert.checkIssued(ca) && cert.verify(ca.publicKey));
}

/** The user the headers name (the first username header set wins); undefined when none names one. */
export function userFromHeaders(headers: Headers, names: RequestHeaderNames): UserInfo | undefined {
  const values = (name: string): string[] => {
    const v = headers[name.toLowerCase()];
    return v === undefined ? [] : Array.isArray(v) ? v : v.split(',').map((s) => s.trim()).filter(Boolean);
  };
  const first = (name: string): string | undefined => {
    const v = headers[name.toLowerCase()];
    return Array.isArray(v) ? v[0] : v;
  };
  const name = names.usernameHeaders.map(first).find((v) => v !== undefined && v !== '');
  if (name === undefined) return undefined;
  const groups = names.groupHeaders.flatMap(values);
  const extra: Record<string, string[]> = {};
  for (const prefix of names.extraHeadersPrefixes) {
    const lowerPrefix = prefix.toLowerCase();
    for (const [header, value] of Object.entries(headers)) {
      if (!header.startsWith(lowerPrefix) || value === undefined) continue;
      let key: string;
      try {
        key = decodeURIComponent(header.slice(lowerPrefix.length)).toLowerCase();
      } catch {
        continue;
      }
      extra[key] = [...(extra[key] ?? []), ...(Array.isArray(value) ? value : value.split(',').map((s) => s.trim()))];
    }
  }
  return { name, groups, ...(Object.keys(extra).length > 0 ? { extra } : {}) };
}

/** Whether a header is one of the front proxy's (`names`' username or group headers, or an extra prefix). */
export function isRequestHeader(name: string, names: RequestHeaderNames): boolean {
  const lower = name.toLowerCase();
  return names.usernameHeaders.some((h) => h.toLowerCase() === lower)
    || names.groupHeaders.some((h) => h.toLowerCase() === lower)
    || names.extraHeadersPrefixes.some((p) => lower.startsWith(p.toLowerCase()));
}

/**
 * The user of a front-proxy request; undefined when the certificate is not a front proxy's (other
 * authenticators have their turn); 'not-a-user' when it is one that names nobody and is no
 * ordinary client certificate either (the request fails as the reference's x509 check would).
 */
export function authenticateRequestHeader(cert: X509Certificate | undefined, commonName: string | undefined, headers: Headers, options: RequestHeaderOptions): UserInfo | 'not-a-user' | undefined {
  if (!cert || !signedByAny(cert, options.cas)) return undefined;
  const allowed = options.allowedNames.length === 0 || (commonName !== undefined && options.allowedNames.includes(commonName));
  const user = allowed ? userFromHeaders(headers, options) : undefined;
  if (user) return user;
  return signedByAny(cert, options.clientCas) ? undefined : 'not-a-user';
}
