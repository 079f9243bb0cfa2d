// Audit (the reference's WithAuditID and WithAudit): every answer carries an Audit-Id (the
// request's own Audit-ID header, or a new UUID). With an audit policy and a backend, once
// authentication has said who sent the request, the policy's level for it decides its event:
// RequestReceived, then ResponseStarted for long-running requests (watches, exec, attach, log,
// port-forward, proxy), then ResponseComplete — or Panic when the request failed with an error
// that was no Status. Without a policy only the header is set.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { isLongRunningRequest } from '../../api/long-running.js';
import type { UserInfo } from '../../api/user.js';
import { requestAttributes } from '../../auth/attributes.js';
import { newAuditId, newMadeAuditId } from '../../audit/audit-id.js';
import { type Auditor } from '../../audit/auditor.js';
import { auditOf, AuditRecord, BodyCache, microsAt, type ObjectRef } from '../../audit/record.js';
import { sendStatusError } from '../../endpoints/request.js';
import { addAnswerHeader } from '../../endpoints/response.js';
import { internalError, StatusError } from '../../errors.js';
import type { Filter, RequestContext } from './context.js';

/**
 * The request's audit ID (its Audit-ID header's, or a new UUID), kept on its context and answered
 * in Audit-Id; a new one made with its bytes when the server audits (`audited`).
 */
function setAuditId(ctx: RequestContext, audited: boolean): string {
  const given = single(ctx.req.headers['audit-id']);
  let id = given;
  if (!given && audited) {
    const made = newMadeAuditId();
    ctx.auditIDMade = made;
    id = made.text;
  } else if (!given) {
    id = newAuditId();
  }
  ctx.auditID = id;
  addAnswerHeader(ctx.res, 'Audit-Id', id);
  return id;
}

/**
 * Before authentication (the reference's WithAuditID): every answer carries an Audit-Id. With an
 * auditor, this is also where a request's event is completed once the rest of the chain settles
 * (the audit filter, after authentication, only starts it: one promise step per request instead
 * of one here and one there), and where a request refused 401 is audited as the reference's
 * WithFailedAuthenticationAudit does it — matched with no user, one ResponseStarted event.
 */
export function auditId(auditor?: Auditor): Filter {
  if (!auditor) {
    return (ctx, next) => {
      setAuditId(ctx, false);
      return next();
    };
  }
  // Not an async function: its frame and its await cost every request more than the promise step.
  return (ctx, next) => {
    setAuditId(ctx, true);
    let handled: Promise<void>;
    try {
      handled = next();
    } catch (err) {
      handled = Promise.reject(err);
    }
    return handled.then(() => settled(auditor, ctx), (err: unknown) => settledWithError(auditor, ctx, err));
  };
}

/** The chain after the audit ID settled: the request's event, when it has one, is completed. */
function settled(auditor: Auditor, ctx: RequestContext): void | Promise<void> {
  const record = auditOf(ctx.res);
  if (record) return completed(auditor, ctx, record);
}

/** The chain after the audit ID failed: the request's event sees the answer, or a 401 before any user is audited. */
function settledWithError(auditor: Auditor, ctx: RequestContext, err: unknown): void | Promise<void> {
  const record = auditOf(ctx.res);
  if (record) return failed(auditor, ctx, record, err);
  failedAuthentication(auditor, ctx, err);
}

/** A request refused 401 before its user was known: audited as the reference's WithFailedAuthenticationAudit. */
function failedAuthentication(auditor: Auditor, ctx: RequestContext, err: unknown): void {
  if (!(err instanceof StatusError) || err.code !== 401 || ctx.known.user) throw err;
  const record = newRecord(auditor, ctx, undefined);
  if (!record) throw err;
  sendStatusError(ctx.res, err, ctx.out);
  record.responded(ctx.res.statusCode);
  auditor.emit(record, 'ResponseStarted');
}

/**
 * After authentication: the request's event, as the policy's level for it says, started here
 * (RequestReceived, and ResponseStarted announced for a long-running request); auditId(), around
 * authentication, completes it once the chain settles.
 */
export function audit(auditor?: Auditor): Filter {
  if (!auditor) return (_ctx, next) => next();
  return (ctx, next) => {
    const record = newRecord(auditor, ctx, ctx.user);
    if (!record) return next();
    if (!auditor.emit(record, 'RequestReceived') && auditor.strict) {
      // Refused, and no more of its event written.
      record.detachFrom(ctx.res);
      sendStatusError(ctx.res, internalError('failed to store audit event'), ctx.out);
      return Promise.resolve();
    }
    if (isLongRunningRequest(ctx.info)) announceResponseStart(ctx.res, auditor, record);
    return next();
  };
}

/** The handler failed: a Status is answered here (rather than by the recover filter, so that the event sees the answer); anything else is a panic. */
function failed(auditor: Auditor, ctx: RequestContext, record: AuditRecord, err: unknown): void | Promise<void> {
  if (!(err instanceof StatusError)) {
    record.panicked(err instanceof Error ? err.message : String(err));
    auditor.emit(record, 'Panic');
    throw err;
  }
  sendStatusError(ctx.res, err, ctx.out);
  return completed(auditor, ctx, record);
}

// The functions a request passes through every time make no closure that captures their own
// variables: one that did (even left unmade) cost each call a context allocated on entry.

/** The handler is done: ResponseComplete once the answer is written (most are by now: no promise to wait on). */
function completed(auditor: Auditor, ctx: RequestContext, record: AuditRecord): void | Promise<void> {
  if (!ctx.res.writableEnded && !ctx.res.destroyed) return completeWhenAnswered(auditor, ctx, record);
  complete(auditor, ctx, record);
}

function completeWhenAnswered(auditor: Auditor, ctx: RequestContext, record: AuditRecord): Promise<void> {
  return answered(ctx.res).then(() => complete(auditor, ctx, record));
}

function complete(auditor: Auditor, ctx: RequestContext, record: AuditRecord): void {
  if (ctx.res.headersSent) {
    record.responded(ctx.res.statusCode);
  } else if (!record.hasResponseStatus) {
    // Nothing was answered: the reference records a success, "Connection closed early" (and,
    // for a long-running request, the start it never had).
    record.closedEarly();
    if (isLongRunningRequest(ctx.info)) auditor.emit(record, 'ResponseStarted');
  }
  auditor.emit(record, 'ResponseComplete');
}

/** The request's event, attached to its response, unless the policy's level for it is None. */
function newRecord(auditor: Auditor, ctx: RequestContext, user: UserInfo | undefined): AuditRecord | undefined {
  // When the request arrived, as the reference's requestReceivedTimestamp (taken by its outermost filters): no second reading of the clock.
  const receivedMicros = microsAt(ctx.received);
  // Set by auditId(), earlier in the chain.
  const auditID = ctx.auditID ?? setAuditId(ctx, true);
  // Made for this event alone: a resource request's attributes are its object reference too (the
  // event writes the reference's fields by name, and completes them from a request's body).
  const attributes = requestAttributes(user ?? NO_USER, ctx.info);
  const config = auditor.policy.evaluate(user ? attributes : { ...attributes, user: undefined });
  if (config.level === 'None') return undefined;
  const objectRef: ObjectRef | undefined = attributes.resourceRequest ? attributes : undefined;
  const record = new AuditRecord(config, {
    auditID, requestURI: ctx.req.url ?? '/', verb: attributes.verb, user: user ?? NO_USER, sourceIPs: sourceIPs(ctx.req),
    userAgent: single(ctx.req.headers['user-agent']), objectRef, receivedMicros, bodyCache: bodyCacheOf(ctx.req),
    madeID: ctx.auditIDMade,
  });
  record.attachTo(ctx.res);
  return record;
}

const NO_USER: UserInfo = { name: '', groups: [] };

/** Once the answer is written (or the connection gone): a watch's handler may return before its stream ends. */
function answered(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    res.once('close', resolve);
    res.once('finish', resolve);
  });
}

/** ResponseStarted when the status line goes out. */
function announceResponseStart(res: ServerResponse, auditor: Auditor, record: AuditRecord): void {
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse['writeHead']>) {
    res.writeHead = writeHead;
    record.responded(args[0]);
    auditor.emit(record, 'ResponseStarted');
    return writeHead.apply(this, args);
  } as ServerResponse['writeHead'];
}

/**
 * A header's value as read by name at each place (one property read there, where a function
 * given the name made every read a keyed lookup): its first when repeated, '' when absent.
 */
function single(v: string | string[] | undefined): string {
  return typeof v === 'string' ? v : (v?.[0] ?? '');
}

/** An IPv4 address mapped into IPv6 is written as IPv4, as Go writes it. */
const plainIp = (ip: string): string => (ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip);

const looksLikeIp = (s: string): boolean => /^[0-9a-fA-F:.]+$/.test(s) && (s.includes('.') || s.includes(':'));

/** A connection's peer address as its events list it, kept on its socket (HTTP/1.1: the socket is the connection's own). */
const PEER_IPS = Symbol('audit source IPs');

/** A connection's cache of its last request's shared bytes (record.ts BodyCache), kept on its socket. */
const BODY_CACHE = Symbol('audit body cache');

function bodyCacheOf(req: IncomingMessage): BodyCache | undefined {
  // HTTP/2's streams share their session's socket (and reach it through a proxy): none.
  if (req.httpVersionMajor !== 1) return undefined;
  const socket = req.socket as Socket & { [BODY_CACHE]?: BodyCache };
  return (socket[BODY_CACHE] ??= new BodyCache());
}

/** The reference's source IPs: X-Forwarded-For's, X-Real-Ip's when new, then the peer's unless it is the last. */
function sourceIPs(req: IncomingMessage): string[] {
  const headers = req.headers;
  const forwarded = single(headers['x-forwarded-for']);
  const real = single(headers['x-real-ip']);
  if (!forwarded && !real && req.httpVersionMajor === 1) {
    // Only the peer: one list per connection, which every event of its requests shares (and none changes).
    const socket = req.socket as Socket & { [PEER_IPS]?: string[] };
    const known = socket[PEER_IPS];
    if (known) return known;
    const remote = socket.remoteAddress;
    if (!remote) return [];
    return (socket[PEER_IPS] = [plainIp(remote)]);
  }
  const ips: string[] = [];
  if (forwarded) for (const part of forwarded.split(',')) if (looksLikeIp(part.trim())) ips.push(plainIp(part.trim()));
  if (real && looksLikeIp(real) && !ips.includes(plainIp(real))) ips.push(plainIp(real));
  const remote = req.socket.remoteAddress;
  if (remote && ips[ips.length - 1] !== plainIp(remote)) ips.push(plainIp(remote));
  return ips;
}

export type { RequestContext };
