// Authentication: who sent this request. The reference's order: client certificate, then a
// bearer token (--token-auth-file, then service-account JWTs), then anonymous.

import { readFileSync } from 'node:fs';
import type { X509Certificate } from 'node:crypto';
import { authenticateRequestHeader, type RequestHeaderOptions } from './request-header.js';
import type { AuthenticationResult, RequestCredentials } from './types.js';
import type { UserInfo } from '../api/user.js';
import {
  AUTHENTICATED_GROUP,
  type BoundObjectRef,
  type ServiceAccountRef,
  type TokenIssuer,
  type VerifiedToken,
} from './tokens.js';

export const ANONYMOUS_USER = 'system:anonymous';
export const UNAUTHENTICATED_GROUP = 'system:unauthenticated';

export const ANONYMOUS: UserInfo = Object.freeze({
  name: ANONYMOUS_USER,
  groups: Object.freeze([UNAUTHENTICATED_GROUP]) as unknown as string[],
}) as UserInfo;

/** The message the reference gives (TokenReview status.error) for a bearer token no authenticator accepts. */
export const INVALID_BEARER_TOKEN = 'invalid bearer token';

// ---------------------------------------------------------------------------------------
// --token-auth-file

/**
 * Parses CSV as Go's encoding/csv does by default: comma separated, fields optionally in
 * double quotes ("" inside for a quote; a quoted field may span lines), blank lines skipped,
 * no comment syntax, spaces kept, a bare quote inside an unquoted field is an error.
 */
export function parseCsv(text: string): { line: number; fields: string[] }[] {
  const records: { line: number; fields: string[] }[] = [];
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  const n = text.length;
  while (i < n) {
    // Skip blank lines.
    if (text[i] === '\n') {
      i++;
      line++;
      continue;
    }
    if (text[i] === '\r' && text[i + 1] === '\n') {
      i += 2;
      line++;
      continue;
    }
    const startLine = line;
    const fields: string[] = [];
    for (;;) {
      let field = '';
      if (text[i] === '"') {
        i++;
        for (;;) {
          if (i >= n) throw new Error(`line ${startLine}: extraneous or missing " in quoted-field`);
          const c = text[i]!;
          if (c === '"') {
            if (text[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (c === '\r' && text[i + 1] === '\n') {
            field += '\n';
            i += 2;
            line++;
            continue;
          }
          if (c === '\n') line++;
          field += c;
          i++;
        }
        if (i < n && text[i] !== ',' && text[i] !== '\n' && !(text[i] === '\r' && text[i + 1] === '\n') && text[i] !== '\r') {
          throw new Error(`line ${line}: extraneous or missing " in quoted-field`);
        }
      } else {
        const start = i;
        while (i < n && text[i] !== ',' && text[i] !== '\n' && !(text[i] === '\r' && (text[i + 1] === '\n' || i + 1 === n))) i++;
        field = text.slice(start, i);
        if (field.includes('"')) throw new Error(`line ${line}: bare " in non-quoted-field`);
      }
      fields.push(field);
      if (i < n && text[i] === ',') {
        i++;
        continue;
      }
      // End of record.
      if (text[i] === '\r') i++;
      if (text[i] === '\n') {
        i++;
        line++;
      }
      break;
    }
    records.push({ line: startLine, fields });
  }
  return records;
}

/**
 * Reads a --token-auth-file: CSV records `token,user,uid[,"group1,group2"]`; further
 * columns are ignored. Fewer than three columns is an error (the server does not start);
 * a record with an empty token is skipped; a repeated token takes the later record.
 */
export function loadTokenFile(path: string): Map<string, UserInfo> {
  return parseTokenFile(readFileSync(path, 'utf8'), path);
}

/** loadTokenFile on text already read. */
export function parseTokenFile(text: string, path = 'token file'): Map<string, UserInfo> {
  const tokens = new Map<string, UserInfo>();
  let records: { line: number; fields: string[] }[];
  try {
    records = parseCsv(text);
  } catch (err) {
    throw new Error(`token file '${path}': ${(err as Error).message}`);
  }
  for (const { fields } of records) {
    if (fields.length < 3) {
      throw new Error(`token file '${path}' must have at least 3 columns (token, user name, user uid), found ${fields.length}`);
    }
    const [token, name, uid, groups] = fields as [string, string, string, string | undefined];
    if (token === '') continue;
    const user: UserInfo = { name, uid, groups: groups === undefined ? [] : groups.split(',') };
    tokens.set(token, user);
  }
  return tokens;
}

// ---------------------------------------------------------------------------------------
// The authenticator.

export interface AuthenticatorOptions {
  tokens?: Map<string, UserInfo>;
  tokenIssuer?: TokenIssuer;
  /** --api-audiences (defaults, in the reference, to the service-account issuer). */
  apiAudiences: string[];
  anonymous: boolean;
  /** Whether the service account (and the bound pod/secret, or the legacy token's secret) still exist with the token's uids. */
  serviceAccountExists?: (ref: ServiceAccountRef, bound?: BoundObjectRef, secretName?: string) => boolean;
  /** Front-proxy (request-header) authentication, when --requestheader-client-ca-file is given. */
  requestHeader?: RequestHeaderOptions;
}

/**
 * RequestCredentials as the listener can fill them: `clientCertificateRejected` says a
 * client certificate was presented that did not verify against the client CA (the
 * reference then fails the request with 401 unless a bearer token authenticates it).
 */
export interface PeerCredentials extends RequestCredentials {
  clientCertificateRejected?: boolean;
}

/** The TLS side of a request, as node's TLSSocket (or an HTTP/2 session socket proxy) exposes it. */
interface PeerSocket {
  authorized?: boolean;
  getPeerX509Certificate?: () => X509Certificate | undefined;
  getPeerCertificate?: (detailed?: boolean) => { subject?: Record<string, string | string[] | undefined> } | null | undefined;
}

/**
 * Reads the credentials of an http/https/http2 request. The listener must request client
 * certificates (requestCert: true, rejectUnauthorized: false, ca: the client CA): a verified
 * certificate's subject is passed on; a presented but unverified one is marked rejected.
 */
export function credentialsFromRequest(req: { headers: RequestCredentials['headers']; socket?: unknown }): PeerCredentials {
  const socket = req.socket as PeerSocket | undefined;
  if (!socket || typeof socket.getPeerCertificate !== 'function') return { headers: req.headers };
  let peer = peers.get(socket);
  if (!peer) peers.set(socket, (peer = peerOf(socket)));
  return { headers: req.headers, ...peer };
}

/**
 * What a connection's client certificate says, read once per connection: the certificate is fixed
 * by the handshake, and reading it (Node builds an object of the whole certificate) costs more
 * than the rest of authentication.
 */
const peers = new WeakMap<PeerSocket, Omit<PeerCredentials, 'headers'>>();

function peerOf(socket: PeerSocket): Omit<PeerCredentials, 'headers'> {
  const peer = socket.getPeerCertificate!(false);
  if (!peer || !peer.subject || Object.keys(peer).length === 0) return {};
  if (socket.authorized !== true) return { clientCertificateRejected: true };
  const { CN, O } = peer.subject;
  const certificate = socket.getPeerX509Certificate?.();
  return { clientCertificate: { subject: { CN: Array.isArray(CN) ? CN[0] : CN, O }, ...(certificate ? { certificate } : {}) } };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The bearer token of an `Authorization: Bearer <token>` header (scheme case-insensitive), or undefined. */
export function bearerToken(headers: RequestCredentials['headers']): string | undefined {
  const auth = headerValue(headers['authorization'] ?? headers['Authorization'])?.trim();
  if (!auth) return undefined;
  // As the reference: split on single spaces; the token is the second part and must be non-empty.
  const parts = auth.split(' ');
  if (parts.length < 2 || parts[0]!.toLowerCase() !== 'bearer') return undefined;
  const token = parts[1]!;
  return token.length > 0 ? token : undefined;
}

/** Adds system:authenticated unless the user already is in it or in system:unauthenticated. */
function withAuthenticatedGroup(user: UserInfo): UserInfo {
  const groups = [...user.groups];
  if (!groups.includes(AUTHENTICATED_GROUP) && !groups.includes(UNAUTHENTICATED_GROUP)) groups.push(AUTHENTICATED_GROUP);
  const out: UserInfo = { name: user.name, groups };
  if (user.uid !== undefined) out.uid = user.uid;
  if (user.extra !== undefined) out.extra = Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]]));
  return out;
}

function userFromVerified(verified: VerifiedToken): UserInfo {
  const user: UserInfo = { name: verified.user.name, uid: verified.user.uid, groups: [...verified.user.groups] };
  if (verified.user.extra) user.extra = verified.user.extra;
  return user;
}

/** The outcome of authenticating one token, with the reason when it fails (TokenReview's status.error). */
export type TokenReviewResult =
  | { authenticated: true; user: UserInfo; audiences: string[] }
  | { authenticated: false; error: string };

/**
 * Authenticates a bearer token on its own (token file, then service-account JWTs), as the
 * TokenReview API does. `audiences` defaults to the API audiences.
 */
export function tokenAuthenticator(options: AuthenticatorOptions): (token: string, audiences?: string[]) => Promise<TokenReviewResult> {
  return async (token, audiences) => {
    const requested = audiences && audiences.length > 0 ? audiences : options.apiAudiences;
    const fromFile = options.tokens?.get(token);
    if (fromFile) {
      // Static tokens carry no audience; like the reference they are good for the API audiences only.
      const accepted = requested.filter((a) => options.apiAudiences.includes(a));
      if (options.apiAudiences.length === 0 || accepted.length > 0) {
        return { authenticated: true, user: withAuthenticatedGroup(fromFile), audiences: accepted };
      }
      return { authenticated: false, error: INVALID_BEARER_TOKEN };
    }
    if (options.tokenIssuer) {
      const verified = await options.tokenIssuer.verify(token, requested, options.apiAudiences);
      if (verified !== undefined && verified !== 'invalid') {
        const exists =
          !options.serviceAccountExists ||
          options.serviceAccountExists(verified.serviceAccount, verified.bound, verified.secretName);
        if (exists) return { authenticated: true, user: withAuthenticatedGroup(userFromVerified(verified)), audiences: verified.audiences };
      }
    }
    return { authenticated: false, error: INVALID_BEARER_TOKEN };
  };
}

/**
 * Authenticates in the reference's order: client certificate (CN user, O groups), bearer
 * token (token file, then service-account JWT), then anonymous. Authenticated users get
 * system:authenticated; anonymous is system:anonymous in system:unauthenticated. 'invalid'
 * when a credential was presented and none authenticated (401, even with anonymous on);
 * undefined only when nothing was presented and anonymous is off.
 */
export function authenticator(options: AuthenticatorOptions): (req: RequestCredentials) => Promise<AuthenticationResult> {
  const authenticateToken = tokenAuthenticator(options);
  return async (req) => {
    let failed = (req as PeerCredentials).clientCertificateRejected === true;

    const cert = req.clientCertificate;
    // A front proxy's certificate: the user is the one its headers name.
    if (cert && options.requestHeader) {
      const proxied = authenticateRequestHeader(cert.certificate, cert.subject.CN, req.headers, options.requestHeader);
      if (proxied === 'not-a-user') failed = true;
      else if (proxied) return withAuthenticatedGroup(proxied);
    }
    if (cert && cert.subject.CN && !failed) {
      const o = cert.subject.O;
      const groups = o === undefined ? [] : Array.isArray(o) ? [...o] : [o];
      return withAuthenticatedGroup({ name: cert.subject.CN, groups });
    }

    const token = bearerToken(req.headers);
    if (token !== undefined) {
      const result = await authenticateToken(token);
      if (result.authenticated) return result.user;
      failed = true;
    }

    if (failed) return 'invalid';
    if (options.anonymous) return { name: ANONYMOUS.name, groups: [...ANONYMOUS.groups] };
    return undefined;
  };
}
