// What every filter of the chain sees (the request, the answer, and what earlier filters worked
// out), and how the ordered list of filters becomes one handler.
// performance from its module, not the global: the global is an accessor, called at each use.
import { performance } from 'node:perf_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestInfo } from '../../api/request-info.js';
import type { UserInfo } from '../../api/user.js';
import type { MadeAuditId } from '../../audit/audit-id.js';
import type { Output } from '../../endpoints/request.js';

export class RequestContext {
  /** How answers are written: JSON, indented when the request asks for it (known once its request info is). */
  readonly out: Output = { format: 'json', pretty: false };
  /** When the request arrived (performance.now()): its latency is measured from here, as the reference's received timestamp. */
  readonly received = performance.now();
  private infoValue: RequestInfo | undefined;
  private queryValue: URLSearchParams | undefined;
  private userValue: UserInfo | undefined;
  /** The request's audit ID (the Audit-Id of its answer): set by the audit ID filter. */
  auditID: string | undefined = undefined;
  /** The audit ID when it is the server's own (the request gave none). */
  auditIDMade: MadeAuditId | undefined = undefined;

  constructor(readonly req: IncomingMessage, readonly res: ServerResponse) {}

  // Each value is set by one filter; reading it earlier is a mistake in the chain's order, and fails loudly.

  /** Set by the request-info filter. */
  get info(): RequestInfo {
    return this.infoValue ?? unset('request info');
  }

  set info(value: RequestInfo) {
    this.infoValue = value;
  }

  /** The query parameters; set by the request-info filter. */
  get query(): URLSearchParams {
    return this.queryValue ?? unset('query');
  }

  set query(value: URLSearchParams) {
    this.queryValue = value;
  }

  /** Who the request acts as: set by authentication, replaced by impersonation. */
  get user(): UserInfo {
    return this.userValue ?? unset('user');
  }

  set user(value: UserInfo) {
    this.userValue = value;
  }

  /** What is known of the request so far, for the request log (which sees requests that failed early too). */
  get known(): { info?: RequestInfo; user?: UserInfo } {
    return { info: this.infoValue, user: this.userValue };
  }
}

function unset(what: string): never {
  throw new Error(`the ${what} of a request was read before the filter that sets it ran`);
}

/** One step of the chain: does its part, then calls `next` (or answers, and does not). */
export type Filter = (ctx: RequestContext, next: () => Promise<void>) => Promise<void>;

/** The filters, outermost first, around `handler`, as one function. */
export function filterChain(filters: readonly Filter[], handler: (ctx: RequestContext) => Promise<void>): (ctx: RequestContext) => Promise<void> {
  return filters.reduceRight<(ctx: RequestContext) => Promise<void>>((next, filter) => (ctx) => filter(ctx, () => next(ctx)), handler);
}
