// What every verb's handler is given — one request, the resource version it addresses, and the
// server's parts it works through — and what they share: the writer of a write, the request body.
import type { FeatureGates } from '../../api/feature-gates.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AdmissionChain } from '../../admission/chain.js';
import { auditOf } from '../../audit/record.js';
import type { DeleteOptions as RequestDeleteOptions, WriteOptions } from '../../api/options.js';
import type { ResourceRequestInfo } from '../../api/request-info.js';
import type { UserInfo } from '../../api/user.js';
import type { Body } from '../../encoding/lists.js';
import type { ResourceInfo } from '../../registry/definitions.js';
import type { DeleteOptions, Registry, WriteContext } from '../../registry/store.js';
import type { JsonObject } from '../../json.js';
import type { WebhookLatencies } from '../../metrics/admission.js';
import type { ServerMetrics } from '../../metrics/server-metrics.js';
import type { Negotiated } from '../negotiation.js';
import { fieldManagerOf } from '../options.js';

/** What the handlers need of the security layer: RBAC's privilege-escalation prevention. */
export interface SecurityContext {
  /** Refuses (403) a write of a role or binding granting more than its writer holds; a no-op for other resources. */
  /** `pathName`: the name in the request's path (none for a create), which the `escalate` check asks about. */
  escalationCheck?: (user: UserInfo, info: ResourceInfo, obj: JsonObject, namespace: string | undefined, pathName: string | undefined) => void;
}

export interface Scope {
  req: IncomingMessage;
  res: ServerResponse;
  request: ResourceRequestInfo;
  info: ResourceInfo;
  query: URLSearchParams;
  negotiated: Negotiated;
  user: UserInfo;
  /** Warnings for the client, collected along the request. */
  warnings: string[];
  registry: Registry;
  /** The admission chain, handed into the registry with every write (none in some tests). */
  admission?: AdmissionChain;
  security: SecurityContext;
  /** The server's metrics (none when they are off). */
  metrics?: ServerMetrics;
  /** The request's time in webhook calls (a write's, when metrics are on). */
  webhookLatencies?: WebhookLatencies;
  /** The server's feature gates (--feature-gates). */
  features: FeatureGates;
  /** --min-request-timeout (s): a watch without timeoutSeconds ends between this and twice this. */
  minRequestTimeoutSeconds: number;
}

/** A handler's answer; undefined when it answered itself (a watch, a log). */
export type Answer = { status: number; body: Body } | undefined;

export type VerbHandler = (scope: Scope) => Promise<Answer>;

/** The writer of a write: its field manager, options, user, admission and the escalation check. */
export function writerOf(scope: Scope, options: WriteOptions): WriteContext {
  const { user, warnings, info, request } = scope;
  const ctx: WriteContext = {
    manager: fieldManagerOf(options, scope.req.headers['user-agent']),
    dryRun: options.dryRun, user, warnings, options,
    admission: scope.admission?.for(user, warnings, scope.webhookLatencies, auditOf(scope.res)?.admissionAnnotations),
  };
  const check = scope.security.escalationCheck;
  if (check) ctx.admit = (obj, namespace) => check(user, info, obj, namespace, request.name);
  return ctx;
}

/** A delete by the request's user: its options, warnings and admission. */
export function deleterOf(scope: Scope, options: RequestDeleteOptions): DeleteOptions {
  const { user, warnings } = scope;
  return { ...options, user, warnings, admission: scope.admission?.for(user, warnings, scope.webhookLatencies, auditOf(scope.res)?.admissionAnnotations) };
}
