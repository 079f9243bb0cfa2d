// The security layer built from the options: TLS material (created on first start), the
// authenticators in the reference's order, the authorizer (RBAC or AlwaysAllow; system:masters is
// always allowed), RBAC's escalation check for the handlers, and the services the review and token
// APIs need of the registry (handed in by the server's wiring).
import type { IncomingMessage } from 'node:http';
import { authenticator, credentialsFromRequest, loadTokenFile } from '../auth/authenticators.js';
import type { RequestHeaderOptions } from '../auth/request-header.js';
import { alwaysAllow, Guard, withMasters } from '../auth/guard.js';
import { missingRights, RbacAuthorizer, type PolicyRule, type RbacSource, type Role, type RoleBinding } from '../auth/rbac.js';
import { StatusError } from '../errors.js';
import { TokenIssuer } from '../auth/tokens.js';
import type { Authorizer, RequestCredentials } from '../auth/types.js';
import type { UserInfo } from '../api/user.js';
import { LOOPBACK_ADMIN, type SecurityContext } from '../endpoints/resources.js';
import type { RegistryServices } from '../registry/services.js';
import type { Informer } from '../registry/informers.js';
import type { Registry } from '../registry/store.js';
import type { ServingMaterial } from './certs.js';

/** The default issuer, and so the default API audience (the reference's --api-audiences defaults to the issuer). */
export const API_AUDIENCE = 'https://kubernetes.default.svc.cluster.local';

export interface SecurityOptions {
  /** Plain HTTP for tests: a request without credentials acts as the loopback admin. */
  insecure: boolean;
  material?: ServingMaterial;
  tokenAuthFile?: string;
  anonymousAuth: boolean;
  authorizationMode: 'RBAC' | 'AlwaysAllow';
  /** The iss of the tokens issued, and the API audience; API_AUDIENCE when absent. */
  serviceAccountIssuer?: string;
  /** Front-proxy authentication (--requestheader-client-ca-file). */
  requestHeader?: RequestHeaderOptions;
}

export interface Security {
  guard: Guard;
  /** What the endpoint handlers need. */
  context: SecurityContext;
  /** What the registry's review and token resources need (Registry.provide). */
  services: RegistryServices;
  credentials(req: IncomingMessage): RequestCredentials;
}

/** RBAC objects straight from the informers; the version moves whenever any of them changes. */
function rbacSource(informers: { clusterRoles: Informer; roles: Informer; clusterRoleBindings: Informer; roleBindings: Informer }): RbacSource {
  const all = <T>(informer: Informer) => informer.list() as unknown as T[];
  const { clusterRoles, roles, clusterRoleBindings, roleBindings } = informers;
  return {
    version: () => clusterRoles.changeNumber() + roles.changeNumber() * 3 + clusterRoleBindings.changeNumber() * 7 + roleBindings.changeNumber() * 13,
    clusterRoles: () => all<Role>(clusterRoles),
    roles: () => all<Role>(roles),
    clusterRoleBindings: () => all<RoleBinding>(clusterRoleBindings),
    roleBindings: () => all<RoleBinding>(roleBindings),
  };
}

const GROUP = 'rbac.authorization.k8s.io';

/** The reference's compact form of a rule (its CompactString): the non-empty lists, each as Go's %q. */
function describeRule(r: PolicyRule): string {
  const list = (xs: string[]) => `[${xs.map((x) => JSON.stringify(x)).join(' ')}]`;
  const parts: string[] = [];
  if (r.apiGroups?.length) parts.push(`APIGroups:${list(r.apiGroups)}`);
  if (r.resources?.length) parts.push(`Resources:${list(r.resources)}`);
  if (r.nonResourceURLs?.length) parts.push(`NonResourceURLs:${list(r.nonResourceURLs)}`);
  if (r.resourceNames?.length) parts.push(`ResourceNames:${list(r.resourceNames)}`);
  if (r.verbs?.length) parts.push(`Verbs:${list(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}

/** The rules as a list of objects with string lists; anything else is left to validation (which runs after this check). */
function wellFormedRules(value: unknown): PolicyRule[] {
  if (!Array.isArray(value)) return [];
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined);
  return value
    .filter((r): r is Record<string, unknown> => typeof r === 'object' && r !== null && !Array.isArray(r))
    .map((r) => {
      const rule: PolicyRule = { verbs: strings(r['verbs']) ?? [] };
      for (const key of ['apiGroups', 'resources', 'resourceNames', 'nonResourceURLs'] as const) {
        const list = strings(r[key]);
        if (list) rule[key] = list;
      }
      return rule;
    });
}

/**
 * RBAC's privilege-escalation prevention: a Role or ClusterRole may only grant what its writer
 * holds (unless allowed to `escalate` it), and a binding may only bind a role whose permissions
 * its writer holds (unless allowed to `bind` it).
 */
function escalationCheck(rbac: RbacAuthorizer, authorizer: Authorizer) {
  return (user: UserInfo, info: { group: string; resource: string }, obj: Record<string, unknown>, namespace: string | undefined, pathName: string | undefined): void => {
    if (info.group !== GROUP) return;
    const meta = (obj['metadata'] ?? {}) as { name?: string };
    const name = meta.name ?? '';
    const allowedTo = (verb: string, resource: string, roleName: string, ns: string | undefined) =>
      authorizer.authorize({ user, verb, resourceRequest: true, apiGroup: GROUP, resource, name: roleName, ...(ns ? { namespace: ns } : {}) }).allowed;
    let rules: PolicyRule[];
    if (info.resource === 'roles' || info.resource === 'clusterroles') {
      // As the reference, `escalate` is asked about the request's name: none on a create.
      if (allowedTo('escalate', info.resource, pathName ?? '', namespace)) return;
      rules = wellFormedRules(obj['rules']);
    } else if (info.resource === 'rolebindings' || info.resource === 'clusterrolebindings') {
      const ref = (obj['roleRef'] ?? {}) as { kind?: string; name?: string };
      const refResource = ref.kind === 'Role' ? 'roles' : 'clusterroles';
      if (allowedTo('bind', refResource, ref.name ?? '', ref.kind === 'Role' ? namespace : namespace)) return;
      const source = ref.kind === 'Role' ? rbac.source.roles().filter((r) => r.metadata.namespace === namespace) : rbac.source.clusterRoles();
      const role = source.find((r) => r.metadata.name === ref.name);
      rules = wellFormedRules(role?.rules);
    } else {
      return;
    }
    const missing = missingRights(rbac, user, namespace, rules);
    if (missing.length === 0) return;
    // One line per missing right, sorted and without repeats, as the reference lists them.
    const lines = [...new Set(missing.map(describeRule))].sort();
    const groups = user.groups.map((g) => JSON.stringify(g)).join(' ');
    const message = `${info.resource}.${GROUP} "${name}" is forbidden: user "${user.name}" (groups=[${groups}]) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;
    throw new StatusError(403, 'Forbidden', message, { name, group: GROUP, kind: info.resource });
  };
}

export async function buildSecurity(registry: Registry, options: SecurityOptions): Promise<{ security: Security; rbac?: RbacAuthorizer; issuer?: TokenIssuer }> {
  const catalog = registry.definitions;
  const informerOf = (group: string, resource: string) => registry.informer(catalog.lookup(group, 'v1', resource)!);
  const apiAudience = options.serviceAccountIssuer ?? API_AUDIENCE;
  const issuer = options.material ? new TokenIssuer(options.material.serviceAccountKey, options.material.serviceAccountPublicKey, apiAudience) : undefined;
  const serviceAccounts = catalog.lookup('', 'v1', 'serviceaccounts')!;
  const accounts = await registry.informer(serviceAccounts);
  const exists = (ref: { namespace: string; name: string; uid: string }): boolean => {
    const sa = accounts.get(ref.namespace, ref.name);
    return sa !== undefined && (sa['metadata'] as { uid?: string }).uid === ref.uid;
  };
  const authenticate = authenticator({
    tokens: options.tokenAuthFile ? loadTokenFile(options.tokenAuthFile) : undefined,
    tokenIssuer: issuer,
    apiAudiences: [apiAudience],
    anonymous: options.anonymousAuth,
    serviceAccountExists: (ref) => exists(ref),
    ...(options.requestHeader ? { requestHeader: options.requestHeader } : {}),
  });
  let rbac: RbacAuthorizer | undefined;
  let authorizer: Authorizer = alwaysAllow;
  if (options.authorizationMode === 'RBAC') {
    const g = 'rbac.authorization.k8s.io';
    rbac = new RbacAuthorizer(rbacSource({
      clusterRoles: await informerOf(g, 'clusterroles'), roles: await informerOf(g, 'roles'),
      clusterRoleBindings: await informerOf(g, 'clusterrolebindings'), roleBindings: await informerOf(g, 'rolebindings'),
    }));
    authorizer = rbac;
  }
  authorizer = withMasters(authorizer);
  const guard = new Guard(async (req) => {
    // On the plain-HTTP test listener a request with no credential is the loopback admin.
    if (options.insecure && !req.headers['authorization'] && !req.clientCertificate) return { ...LOOPBACK_ADMIN, groups: [...LOOPBACK_ADMIN.groups] };
    return authenticate(req);
  }, authorizer);
  const context: SecurityContext = { escalationCheck: rbac ? escalationCheck(rbac, authorizer) : undefined };
  const services: RegistryServices = {
    authorizer,
    rulesFor: rbac ? (user, namespace) => rbac!.rulesFor(user, namespace) : undefined,
    reviewToken: async (token, audiences) => {
      const result = await authenticate({ headers: { authorization: `Bearer ${token}` } });
      if (!result || result === 'invalid' || result.name === 'system:anonymous') return undefined;
      return { user: result, audiences: audiences.length ? audiences : [apiAudience] };
    },
    tokens: issuer && { audiences: [apiAudience], issue: (sa, audiences, seconds, bound) => issuer.issue(sa, audiences, seconds, bound) },
  };
  const credentials = (req: IncomingMessage): RequestCredentials => credentialsFromRequest(req);
  return { security: { guard, context, services, credentials }, rbac, issuer };
}
