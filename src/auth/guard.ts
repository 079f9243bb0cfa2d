// What the security filters ask, in the reference's order: authenticate → impersonate → authorize.
// A bad credential is 401; a refused request 403 with the reference's message.
import { StatusError } from '../errors.js';
import type { RequestInfo } from '../api/request-info.js';
import { forbiddenMessage, requestAttributes } from './attributes.js';
import type { Attributes, Authorizer, AuthenticationResult, Decision, RequestCredentials } from './types.js';
import type { UserInfo } from '../api/user.js';
import { isDNS1123Label, isDNS1123Subdomain } from '../api/names.js';

export type Authenticate = (req: RequestCredentials) => Promise<AuthenticationResult>;

export const UNAUTHORIZED = (): StatusError => new StatusError(401, 'Unauthorized', 'Unauthorized');

/** Lets everything through (`--authorization-mode=AlwaysAllow`). */
export const alwaysAllow: Authorizer = { authorize: () => ({ allowed: true, reason: '' }) };

/** system:masters may do anything, whatever the other authorizers say (as the reference's privileged group). */
export function withMasters(inner: Authorizer): Authorizer {
  return {
    authorize: (a) => (a.user.groups.includes('system:masters') ? { allowed: true, reason: '' } : inner.authorize(a)),
  };
}

/** 403 Forbidden for refused attributes, shaped as the reference's. */
export function forbidden(a: Attributes, reason = ''): StatusError {
  const message = forbiddenMessage(a) + (reason ? `: ${reason}` : '');
  // No resource and no group (a path such as /api/v1//x): the reference names neither, nor the name.
  if (!a.resourceRequest || (!a.resource && !a.apiGroup)) return new StatusError(403, 'Forbidden', `forbidden: ${message}`, {});
  const qualified = a.apiGroup ? `${a.resource}.${a.apiGroup}` : a.resource!;
  const subject = a.name ? `${qualified} "${a.name}"` : qualified;
  return new StatusError(403, 'Forbidden', `${subject} is forbidden: ${message}`, {
    name: a.name, group: a.apiGroup || undefined, kind: a.resource,
  });
}

const IMPERSONATE_USER = 'impersonate-user';
const IMPERSONATE_GROUP = 'impersonate-group';
const IMPERSONATE_UID = 'impersonate-uid';
const IMPERSONATE_EXTRA = 'impersonate-extra-';
/** What every impersonation header's name starts with. */
const IMPERSONATE = 'impersonate-';

/** Whether any header asks for impersonation: one look at the names, nothing made (most requests ask for none). */
function namesImpersonation(headers: RequestCredentials['headers']): boolean {
  for (const name in headers) if (name.startsWith(IMPERSONATE)) return true;
  return false;
}

function headerValues(headers: RequestCredentials['headers'], name: string): string[] {
  const v = headers[name];
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

/** An extra's key as its header spells it, %-escapes decoded (kept as it is when they are malformed). */
function unescapeExtraKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

/** Go's %v of the reference's ObjectReference: {Kind Namespace Name UID APIVersion ResourceVersion FieldPath}. */
function reference(kind: string, name: string, apiVersion = '', fieldPath = ''): string {
  return `{${[kind, '', name, '', apiVersion, '', fieldPath].join(' ')}}`;
}

/** 400 for impersonation headers without Impersonate-User, listing what they asked for as the reference does. */
function withoutUser(groups: string[], extra: Record<string, string[]>, uid: string | undefined): StatusError {
  const asked = [
    ...groups.map((g) => reference('Group', g)),
    ...Object.entries(extra).flatMap(([key, values]) => values.map((v) => reference('UserExtra', v, 'authentication.k8s.io/v1', key))),
    ...(uid !== undefined ? [reference('UID', uid, 'authentication.k8s.io/v1')] : []),
  ];
  return new StatusError(400, 'BadRequest', `requested [${asked.join(' ')}] without impersonating a user`);
}

const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

/** The service account a user name names, as the reference splits it: exactly `<namespace>:<name>` after the prefix, each a valid name; anything else is a plain user. */
function serviceAccountOf(userName: string): { namespace: string; name: string } | undefined {
  if (!userName.startsWith(SERVICE_ACCOUNT_PREFIX)) return undefined;
  const parts = userName.slice(SERVICE_ACCOUNT_PREFIX.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace, name] = parts as [string, string];
  if (isDNS1123Label(namespace).length || isDNS1123Subdomain(name).length) return undefined;
  return { namespace, name };
}

/**
 * The impersonated user's groups, as the reference builds them: the Impersonate-Group values when
 * there are any (a service account's own groups only when none are named), then
 * system:authenticated unless it or system:unauthenticated is among them — or, for
 * system:anonymous, system:unauthenticated.
 */
function impersonatedGroups(userName: string, serviceAccount: { namespace: string } | undefined, named: string[]): string[] {
  const groups = named.length === 0 && serviceAccount ? ['system:serviceaccounts', `system:serviceaccounts:${serviceAccount.namespace}`] : [...named];
  if (userName !== 'system:anonymous') {
    if (!groups.includes('system:authenticated') && !groups.includes('system:unauthenticated')) groups.push('system:authenticated');
  } else if (!groups.includes('system:unauthenticated')) groups.push('system:unauthenticated');
  return groups;
}

export class Guard {
  constructor(
    private readonly authenticate: Authenticate,
    readonly authorizer: Authorizer,
  ) {}

  /** Who sent the request; throws 401 for a bad credential or none (anonymous requests turned off). */
  async authenticatedUser(req: RequestCredentials): Promise<UserInfo> {
    const result = await this.authenticate(req);
    if (result === undefined || result === 'invalid') throw UNAUTHORIZED();
    return result;
  }

  /** Who sent the request; `invalid` for a credential refused, undefined for none that says who (anonymous requests off). */
  identify(req: RequestCredentials): Promise<UserInfo | 'invalid' | undefined> {
    return this.authenticate(req);
  }

  /** The user the request acts as: `user`, or whom its impersonation headers name, each checked against the `impersonate` verb. */
  impersonate(user: UserInfo, headers: RequestCredentials['headers']): UserInfo {
    if (!namesImpersonation(headers)) return user;
    const asUser = headerValues(headers, IMPERSONATE_USER)[0];
    const groups = headerValues(headers, IMPERSONATE_GROUP).flatMap((g) => g.split(',').map((s) => s.trim())).filter(Boolean);
    const uid = headerValues(headers, IMPERSONATE_UID)[0];
    const extra: Record<string, string[]> = {};
    for (const key of Object.keys(headers)) {
      if (key.startsWith(IMPERSONATE_EXTRA)) extra[unescapeExtraKey(key.slice(IMPERSONATE_EXTRA.length))] = headerValues(headers, key);
    }
    if (asUser === undefined) {
      if (groups.length || uid !== undefined || Object.keys(extra).length) throw withoutUser(groups, extra, uid);
      return user;
    }
    const check = (a: Omit<Attributes, 'user' | 'verb' | 'resourceRequest'>) => {
      const attributes: Attributes = { user, verb: 'impersonate', resourceRequest: true, ...a };
      const decision = this.authorizer.authorize(attributes);
      if (!decision.allowed) throw forbidden(attributes, decision.reason);
    };
    const serviceAccount = serviceAccountOf(asUser);
    if (serviceAccount) check({ apiGroup: '', resource: 'serviceaccounts', namespace: serviceAccount.namespace, name: serviceAccount.name });
    else check({ apiGroup: '', resource: 'users', name: asUser });
    for (const g of groups) check({ apiGroup: '', resource: 'groups', name: g });
    if (uid !== undefined) check({ apiGroup: 'authentication.k8s.io', resource: 'uids', name: uid });
    for (const [key, values] of Object.entries(extra)) for (const v of values) check({ apiGroup: 'authentication.k8s.io', resource: 'userextras', subresource: key, name: v });
    const impersonated: UserInfo = { name: asUser, groups: impersonatedGroups(asUser, serviceAccount, groups) };
    if (uid !== undefined) impersonated.uid = uid;
    if (Object.keys(extra).length) impersonated.extra = extra;
    return impersonated;
  }

  /** Authorizes `user`'s request; returns its attributes; throws 403. `decided` hears the decision, with `about` (for the audit annotations). */
  authorize<T>(user: UserInfo, info: RequestInfo, decided?: (decision: Decision, about: T) => void, about?: T): Attributes {
    const attributes = requestAttributes(user, info);
    const decision = this.authorizer.authorize(attributes);
    if (decided !== undefined) decided(decision, about as T);
    if (!decision.allowed) throw forbidden(attributes, decision.reason);
    return attributes;
  }
}
