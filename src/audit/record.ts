// One request's audit event (audit.k8s.io/v1 Event) as it is filled in along the request, and
// written once per stage as the reference's JSON. The layers below the audit filter reach it by
// the response (`auditOf(res)`): the request's body, its answer, annotations. A request that is
// not audited has none, and every hook costs a WeakMap lookup.
// performance from its module, not the global: the global is an accessor, called at each use.
import { performance } from 'node:perf_hooks';
import type { UserInfo } from '../api/user.js';
import type { JsonObject } from '../json.js';
import { atLeast, LEVELS, STAGES, type AuditConfig, type Level, type Stage } from './policy.js';
import { copyMadeId, type MadeAuditId } from './audit-id.js';

export interface ObjectRef {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion?: string;
  resourceVersion?: string;
  subresource?: string;
}

/** metav1.Status's fields an event keeps of an answer. */
export interface ResponseStatus {
  status?: string;
  message?: string;
  reason?: string;
  details?: unknown;
  code: number;
}

export interface RequestFacts {
  auditID: string;
  requestURI: string;
  verb: string;
  user: UserInfo;
  sourceIPs: string[];
  userAgent: string;
  objectRef?: ObjectRef;
  /** Microseconds since the epoch. */
  receivedMicros: number;
  /** The connection's cache of its last request's shared fields (HTTP/1.1: one per socket). */
  bodyCache?: BodyCache;
  /** The audit ID when it is the server's own (a UUID: its bytes are copied as they are); otherwise it is looked at when a line's template would take it. */
  madeID?: MadeAuditId;
}

/** Where lines are written as bytes (the log's queue): a line reserved, written in place, committed; or pushed as text. */
export interface LineSink {
  /** A buffer with `room` bytes free from `offset`, or undefined when the line is dropped. */
  reserve(room: number): Buffer | undefined;
  /** Where the line reserved starts. */
  readonly offset: number;
  /** The count of buffers handed back for reuse (writeLine's `epoch`). */
  readonly epoch: number;
  /** The line reserved ends at `end`; false when the writer is broken. */
  commit(end: number): boolean;
  /** A line as text; false when it was dropped or the writer is broken. */
  push(line: string): boolean;
}

// On the response itself: a WeakMap of every response audited costs the garbage collector far more.
// The server's responses (endpoints/response.ts AnswerResponse) have the slot from the start, so
// that attaching a record changes no response's shape (a new hidden class, a grown property store).
export const RECORD: unique symbol = Symbol('audit record');

/** The audit event of the request `res` answers, when it is audited. */
export function auditOf(res: object): AuditRecord | undefined {
  return (res as { [RECORD]?: AuditRecord })[RECORD];
}

/** When the process's clock started, in milliseconds since the epoch: fixed, and a call into Node's C++ each time it is read. */
const TIME_ORIGIN_MS = performance.timeOrigin;

/** Microseconds since the epoch (the reference's MicroTime). */
export function nowMicros(): number {
  return microsAt(performance.now());
}

/** A time read from performance.now() as microseconds since the epoch. */
export function microsAt(time: number): number {
  return Math.round((TIME_ORIGIN_MS + time) * 1000);
}

// The date and time to the second of the last time written: most events share it.
let cachedSecond = -1;
let cachedPrefix = '';

/** RFC 3339 with microseconds, in UTC, as metav1.MicroTime is written. */
export function microTime(micros: number): string {
  const second = Math.floor(micros / 1_000_000);
  if (second !== cachedSecond) {
    cachedSecond = second;
    cachedPrefix = new Date(second * 1000).toISOString().slice(0, 19); // 2026-11-26T14:00:00
  }
  const fraction = micros - second * 1_000_000;
  return `${cachedPrefix}.${fraction < 100_000 ? String(fraction + 1_000_000).slice(1) : fraction}Z`;
}

/** A JSON text on one line (embedded raw, as the reference embeds runtime.Unknown's bytes). */
function oneLine(json: string): string {
  return /[\n\r]/.test(json) ? JSON.stringify(JSON.parse(json)) : json;
}

const MAX_USER_AGENT = 1024;

const LEVEL_HEAD = Object.fromEntries(
  LEVELS.map((level) => [level, `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"${level}","auditID":`]),
) as Record<Level, string>;
const STAGE_FIELD = Object.fromEntries(STAGES.map((stage) => [stage, `,"stage":"${stage}"`])) as Record<Stage, string>;

export class AuditRecord {
  readonly level: Level;
  /** Annotations admission plugins add (made for a write's admission), read when the event is written. */
  private admission: Record<string, string> | undefined;
  /** Keys and values one after the other, in key order. */
  private readonly annotations: string[] = [];
  /**
   * Where the first line written as bytes (writeLine) keeps its parts that every stage shares:
   * the start up to the auditID and the fields after the stage, copied from there into the next
   * lines while `epoch` says the buffer still holds them.
   */
  private shared: Buffer | undefined;
  private sharedEpoch = 0;
  private headEnd = 0;
  private bodyStart = 0;
  private bodyEnd = 0;
  private headStart = 0;
  /** The shared fields' strings counted once (lineRoom). */
  private bodyChars: number | undefined;
  /** The user's JSON as kept for its name, looked up once. */
  private known: KnownUser | undefined;
  /** The connection cache's generation that held this record's shared fields when a line last found it so (-1: none yet). */
  private heldBody = -1;
  private impersonatedUser: UserInfo | undefined;
  private responseStatus: ResponseStatus | undefined;
  private requestObject: string | undefined;
  private responseObject: string | undefined;
  /** Whether the audit ID is written in JSON as it is (nothing escaped): asked once, when a template would take it. */
  private plainID: boolean | undefined;

  constructor(readonly config: AuditConfig, readonly facts: RequestFacts) {
    this.level = config.level;
    if (facts.userAgent.length > MAX_USER_AGENT) facts.userAgent = `${facts.userAgent.slice(0, MAX_USER_AGENT)}...TRUNCATED`;
  }

  /** Makes the record reachable from the response. */
  attachTo(res: object): void {
    (res as { [RECORD]?: AuditRecord })[RECORD] = this;
  }

  /** Makes it unreachable again: the request is no longer audited. */
  detachFrom(res: object): void {
    (res as { [RECORD]?: AuditRecord })[RECORD] = undefined;
  }

  get auditID(): string {
    return this.facts.auditID;
  }

  /** Where admission plugins put their annotations. */
  get admissionAnnotations(): Record<string, string> {
    return (this.admission ??= {});
  }

  /** The first value of a key stays (the reference warns and keeps it). Kept in key order, as Go writes a map. */
  annotate(key: string, value: string): void {
    const a = this.annotations;
    let at = a.length;
    for (let i = 0; i < a.length; i += 2) {
      const k = a[i]!;
      if (k === key) return;
      if (k > key) {
        at = i;
        break;
      }
    }
    if (at === a.length) a.push(key, value);
    else a.splice(at, 0, key, value);
  }

  logImpersonatedUser(user: UserInfo): void {
    this.impersonatedUser = user;
    this.sharedFieldsChanged();
  }

  /** What was kept of the shared fields' bytes or length is stale. */
  private sharedFieldsChanged(): void {
    this.shared = undefined;
    this.bodyChars = undefined;
    this.heldBody = -1;
  }

  /** The request's user as knownUser() keeps it. */
  private get user(): KnownUser {
    return (this.known ??= knownUser(this.facts.user));
  }

  /** A decoded request body (create, update): completes the object reference; kept at Request and above. */
  logRequestObject(obj: JsonObject): void {
    const ref = (this.facts.objectRef ??= {});
    this.sharedFieldsChanged();
    const meta = (obj['metadata'] ?? {}) as JsonObject;
    if (!ref.namespace && typeof meta['namespace'] === 'string' && meta['namespace']) ref.namespace = meta['namespace'];
    if (!ref.name && typeof meta['name'] === 'string' && meta['name']) ref.name = meta['name'];
    if (!ref.uid && typeof meta['uid'] === 'string' && meta['uid']) ref.uid = meta['uid'];
    if (!ref.resourceVersion && typeof meta['resourceVersion'] === 'string' && meta['resourceVersion']) ref.resourceVersion = meta['resourceVersion'];
    if (!atLeast(this.level, 'Request')) return;
    this.requestObject = JSON.stringify(this.config.omitManagedFields ? withoutManagedFields(obj) : obj);
  }

  /** A patch's body, kept as it came at Request and above. */
  logRequestPatch(raw: Buffer): void {
    if (!atLeast(this.level, 'Request')) return;
    const text = raw.toString('utf8');
    try {
      this.requestObject = JSON.stringify(JSON.parse(text));
    } catch {
      // An apply patch in YAML: kept as its text.
      this.requestObject = JSON.stringify(text);
    }
  }

  /** An answer's JSON: a Status gives the response status; the object is kept at RequestResponse. */
  logResponseJson(json: Buffer | Buffer[]): void {
    const first = Array.isArray(json) ? json[0] : json;
    const isStatus = first !== undefined && startsWithStatus(first);
    const wantsObject = this.level === 'RequestResponse';
    if (!isStatus && !wantsObject) return;
    const text = Array.isArray(json) ? Buffer.concat(json).toString('utf8') : json.toString('utf8');
    if (isStatus) {
      const s = JSON.parse(text) as JsonObject;
      const status: ResponseStatus = { code: typeof s['code'] === 'number' ? s['code'] : 0 };
      if (typeof s['status'] === 'string' && s['status']) status.status = s['status'];
      if (typeof s['message'] === 'string' && s['message']) status.message = s['message'];
      if (typeof s['reason'] === 'string' && s['reason']) status.reason = s['reason'];
      if (s['details'] !== undefined) status.details = s['details'];
      this.responseStatus = status;
    }
    if (!wantsObject) return;
    this.responseObject = this.config.omitManagedFields ? JSON.stringify(withoutManagedFields(JSON.parse(text) as JsonObject)) : oneLine(text);
  }

  /** The status of a request that panicked (an error that was no Status). */
  panicked(message: string): void {
    this.responseStatus = { status: 'Failure', message: `APIServer panic'd: ${message}`, reason: 'InternalError', code: 500 };
  }

  /** No answer was written: the reference's stand-in status. */
  closedEarly(): void {
    this.responseStatus = { status: 'Success', message: 'Connection closed early', code: 200 };
  }

  /** The answer's HTTP code (the status line wins over a Status body's code, as the reference's). */
  responded(code: number): void {
    if (this.responseStatus) this.responseStatus.code = code;
    else this.responseStatus = { code };
  }

  get hasResponseStatus(): boolean {
    return this.responseStatus !== undefined;
  }

  /** The event at `stage` as one JSON line (the reference's field order): writeLine's bytes, as text. */
  line(stage: Stage, stageMicros: number): string {
    const buf = Buffer.allocUnsafe(this.lineRoom(stage));
    return buf.toString('utf8', 0, this.writeLine(stage, stageMicros, buf, 0, NOT_SHARED));
  }

  /** `,"annotations":{…}` sorted by key as Go writes a map, or "" without any. */
  private annotationsJson(): string {
    const own = this.annotations;
    let text = '';
    if (this.admission === undefined) {
      for (let i = 0; i < own.length; i += 2) text += `${i ? ',' : ''}${quoted(own[i]!)}:${quoted(own[i + 1]!)}`;
    } else {
      const all: Array<[string, string]> = [];
      for (let i = 0; i < own.length; i += 2) all.push([own[i]!, own[i + 1]!]);
      for (const key in this.admission) if (!all.some(([k]) => k === key)) all.push([key, this.admission[key]!]);
      all.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      for (const [k, v] of all) text += `${text ? ',' : ''}${quoted(k)}:${quoted(v)}`;
    }
    return text ? `,"annotations":{${text}}` : '';
  }

  /** At most how many bytes writeLine writes for `stage`. */
  lineRoom(stage: Stage): number {
    // Each UTF-16 unit of a string takes at most 6 bytes written as JSON (\u001f; a character
    // outside ASCII 3, a pair of surrogates 4); the names and punctuation take under 1 KB.
    let chars = (this.bodyChars ??= this.countBodyChars());
    const status = this.responseStatus;
    if (status !== undefined && stage !== 'RequestReceived') {
      chars += (status.status?.length ?? 0) + (status.message?.length ?? 0) + (status.reason?.length ?? 0) + 16;
      if (status.details !== undefined) chars += JSON.stringify(status.details).length;
    }
    const own = this.annotations;
    for (let i = 0; i < own.length; i++) chars += own[i]!.length + 4;
    if (this.admission !== undefined) for (const key in this.admission) chars += key.length + this.admission[key]!.length + 8;
    // The objects are JSON already, copied as they are.
    let objects = 0;
    if (stage !== 'RequestReceived') {
      if (this.requestObject !== undefined) objects += Buffer.byteLength(this.requestObject) + 20;
      if (this.responseObject !== undefined && stage === 'ResponseComplete') objects += Buffer.byteLength(this.responseObject) + 20;
    }
    return 6 * chars + 1024 + objects;
  }

  /** The strings of the fields every stage shares, counted in UTF-16 units (for lineRoom). */
  private countBodyChars(): number {
    const f = this.facts;
    let chars = f.auditID.length + f.requestURI.length + f.verb.length + f.userAgent.length + this.user.json.length;
    if (this.impersonatedUser) chars += userJson(this.impersonatedUser).length;
    for (const ip of f.sourceIPs) chars += ip.length + 3;
    const ref = f.objectRef;
    if (ref) {
      chars += (ref.resource?.length ?? 0) + (ref.namespace?.length ?? 0) + (ref.name?.length ?? 0) + (ref.uid?.length ?? 0) + (ref.apiGroup?.length ?? 0)
        + (ref.apiVersion?.length ?? 0) + (ref.resourceVersion?.length ?? 0) + (ref.subresource?.length ?? 0) + 32;
    }
    return chars;
  }

  /**
   * The line at `stage` written into `sink`: the connection's last line at this stage with this
   * one's ID and timestamps when it can be (its length is the room it takes: lineRoom() is not
   * counted), else as writeLine() writes it, or made as text when it would take more than
   * `maxRoom`. False when the sink dropped it or its writer is broken.
   */
  writeTo(sink: LineSink, stage: Stage, stageMicros: number, maxRoom: number): boolean {
    const f = this.facts;
    const template = this.candidate(stage, sink.epoch);
    if (template !== undefined && this.fits(template, stage)) {
      const buf = sink.reserve(template.length);
      if (buf === undefined) return false;
      const end = template.writeInto(buf, sink.offset, f.auditID, f.madeID, f.receivedMicros, stageMicros);
      if (end >= 0) return sink.commit(this.wroteTemplate(stage, end));
      // A timestamp in another second than the template's (once a second): written whole, below
      // (writeLine tries the template again and keeps this line as the next one's).
    }
    const room = this.lineRoom(stage);
    if (room > maxRoom) return sink.push(this.line(stage, stageMicros));
    const buf = sink.reserve(room);
    if (buf === undefined) return false;
    return sink.commit(this.writeLine(stage, stageMicros, buf, sink.offset, sink.epoch));
  }

  /**
   * The connection's template for the line at `stage` when this line could be one (templateFor):
   * a buffer the line is kept in (not NOT_SHARED), and a status of a code alone.
   */
  private candidate(stage: Stage, epoch: number): LineTemplate | undefined {
    const cache = this.facts.bodyCache;
    if (cache === undefined || epoch === NOT_SHARED || this.templateCode(stage) === NO_TEMPLATE) return undefined;
    return this.templateFor(stage, cache);
  }

  /** Whether the line at `stage` can be its candidate `template` with its own ID written in: the same makings, and an ID of the same length written as it is. */
  private fits(template: LineTemplate, stage: Stage): boolean {
    const f = this.facts;
    const cache = f.bodyCache!;
    return template.fits(this.level, cache, this.annotationsKey(cache), this.templateCode(stage), f.auditID.length)
      && (this.plainID ??= f.madeID !== undefined || PLAIN_JSON_TEXT.test(f.auditID));
  }

  /** A line written from its template, ending at `end`. */
  private wroteTemplate(stage: Stage, end: number): number {
    if (stage !== 'RequestReceived') this.shared = undefined;
    return end;
  }

  /**
   * The line at `stage` (byte for byte what line() gives, in UTF-8) written into `buf` from `at`,
   * lineRoom(stage) bytes at most; returns its end. `epoch` is the buffer's owner's count of
   * buffers handed back for reuse: while it is the same, what an earlier line of this record wrote
   * is still there, and the parts every stage shares are copied from it instead of encoded again
   * (NOT_SHARED: a buffer of the caller's, neither copied from nor kept).
   */
  writeLine(stage: Stage, stageMicros: number, buf: Buffer, at: number, epoch: number): number {
    const f = this.facts;
    // The connection's last line at this stage, when this one differs from it only in its ID and
    // the microseconds of its timestamps: copied whole, those written into it.
    const template = this.candidate(stage, epoch);
    if (template !== undefined && this.fits(template, stage)) {
      const end = template.writeInto(buf, at, f.auditID, f.madeID, f.receivedMicros, stageMicros);
      if (end >= 0) return this.wroteTemplate(stage, end);
    }
    let o = at;
    const shared = this.shared;
    if (shared !== undefined && epoch !== NOT_SHARED && this.sharedEpoch === epoch) {
      o = copyBytes(shared, this.headStart, this.headEnd, buf, o);
      o = put(buf, o, stageBytes(stage));
      o = copyBytes(shared, this.bodyStart, this.bodyEnd, buf, o);
    } else {
      o = put(buf, o, levelHead(this.level));
      o = f.madeID === undefined ? putJsonString(buf, o, f.auditID) : putMadeId(buf, o, f.madeID);
      const headEnd = o;
      o = put(buf, o, stageBytes(stage));
      const bodyStart = o;
      const user = this.user;
      const cache = f.bodyCache;
      if (cache === undefined || this.impersonatedUser !== undefined || !user.kept) o = this.writeBody(buf, o, user);
      else if (cache.holds(f, user)) o = cache.copyTo(buf, o);
      else cache.keep(f, user, buf, bodyStart, (o = this.writeBody(buf, o, user)));
      if (epoch !== NOT_SHARED) {
        this.shared = buf;
        this.sharedEpoch = epoch;
        this.headStart = at;
        this.headEnd = headEnd;
        this.bodyStart = bodyStart;
        this.bodyEnd = o;
      }
    }
    // Let go of the buffer once a line after the first is written: a watch would otherwise hold
    // on to it for as long as it runs (its last line, rare, is encoded again).
    if (stage !== 'RequestReceived') this.shared = undefined;
    if (stage !== 'RequestReceived') {
      if (this.responseStatus) {
        o = put(buf, o, RESPONSE_STATUS_KEY);
        o = putStatus(buf, o, this.responseStatus);
      }
      if (this.requestObject !== undefined) {
        o = put(buf, o, REQUEST_OBJECT_KEY);
        o += buf.write(this.requestObject, o, 'utf8');
      }
      if (this.responseObject !== undefined && stage === 'ResponseComplete') {
        o = put(buf, o, RESPONSE_OBJECT_KEY);
        o += buf.write(this.responseObject, o, 'utf8');
      }
    }
    o = put(buf, o, RECEIVED_KEY);
    const receivedAt = o;
    o = putMicroTime(buf, o, f.receivedMicros);
    o = put(buf, o, STAGE_TIMESTAMP_KEY);
    const stageAt = o;
    o = putMicroTime(buf, o, stageMicros);
    buf[o++] = QUOTE;
    if (this.admission === undefined) {
      const own = this.annotations;
      if (own.length) {
        // The connection's last annotations when they are the same (the authorizer's, mostly).
        const cache = f.bodyCache;
        if (cache !== undefined && cache.holdsAnnotations(own)) {
          o = cache.copyAnnotationsTo(buf, o);
        } else {
          const start = o;
          o = put(buf, o, ANNOTATIONS_KEY);
          for (let i = 0; i < own.length; i += 2) {
            if (i) buf[o++] = COMMA;
            o = putJsonString(buf, o, own[i]!);
            buf[o++] = COLON;
            o = putJsonString(buf, o, own[i + 1]!);
          }
          buf[o++] = CLOSE_BRACE;
          cache?.keepAnnotations(own, buf, start, o);
        }
      }
    } else {
      const annotations = this.annotationsJson();
      if (annotations) o += buf.write(annotations, o, 'utf8');
    }
    buf[o++] = CLOSE_BRACE;
    buf[o++] = NEWLINE;
    // Kept as the connection's template for this stage when its shared fields were the cache's
    // (a repeat): a connection whose requests differ each time pays no copy for it.
    if (template !== undefined) {
      const cache = f.bodyCache!;
      const annotations = this.annotationsKey(cache);
      if (annotations !== NO_TEMPLATE) {
        template.keep(buf, at, o, this.level, cache, annotations, this.templateCode(stage), f.auditID, receivedAt - at, f.receivedMicros, stageAt - at, stageMicros);
      }
    }
    return o;
  }

  /**
   * The connection's template for the line at `stage`, when this record's line can be one: the
   * first and last stages of a request without request or response objects, impersonation or
   * admission's annotations (and, as the caller checks, whose status is a code alone), whose shared fields
   * are the ones the connection's cache holds (so that they are the template's too).
   */
  private templateFor(stage: Stage, cache: BodyCache): LineTemplate | undefined {
    if (this.admission !== undefined || this.impersonatedUser !== undefined || this.requestObject !== undefined || this.responseObject !== undefined) return undefined;
    let template: LineTemplate;
    if (stage === 'RequestReceived') template = cache.receivedLine;
    else if (stage === 'ResponseComplete') template = cache.completeLine;
    else return undefined;
    // Asked once a request: a later stage's line finds the cache as the first left it, unless
    // another request of the connection (pipelined) changed it since.
    if (this.heldBody === cache.bodyGeneration) return template;
    const user = this.user;
    if (!user.kept || !cache.holds(this.facts, user)) return undefined;
    this.heldBody = cache.bodyGeneration;
    return template;
  }

  /** The status code a template of the line at `stage` is made for: none at RequestReceived; NO_TEMPLATE when the status is more than a code. */
  private templateCode(stage: Stage): number {
    if (stage === 'RequestReceived') return NO_CODE;
    const st = this.responseStatus;
    if (st === undefined || st.status !== undefined || st.message !== undefined || st.reason !== undefined || st.details !== undefined) return NO_TEMPLATE;
    return st.code;
  }

  /** Which annotations the line has, as its template knows them: none, the connection's cache's (their generation), or NO_TEMPLATE. */
  private annotationsKey(cache: BodyCache): number {
    const own = this.annotations;
    if (own.length === 0) return NO_ANNOTATIONS;
    return cache.holdsAnnotations(own) ? cache.annotationGeneration : NO_TEMPLATE;
  }

  /** What follows the stage and no stage changes, as buildBody() makes it. */
  private writeBody(buf: Buffer, at: number, user: KnownUser): number {
    const f = this.facts;
    let o = put(buf, at, REQUEST_URI_KEY);
    o = putJsonString(buf, o, f.requestURI);
    o = put(buf, o, VERB_KEY);
    o = putJsonString(buf, o, f.verb);
    o = put(buf, o, USER_KEY);
    o = put(buf, o, (user.bytes ??= Buffer.from(user.json, 'utf8')));
    if (this.impersonatedUser) {
      o = put(buf, o, IMPERSONATED_USER_KEY);
      o = putUser(buf, o, this.impersonatedUser);
    }
    const ips = f.sourceIPs;
    if (ips.length) {
      o = put(buf, o, SOURCE_IPS_KEY);
      for (let i = 0; i < ips.length; i++) {
        if (i) buf[o++] = COMMA;
        o = putJsonString(buf, o, ips[i]!);
      }
      buf[o++] = CLOSE_BRACKET;
    }
    if (f.userAgent) {
      o = put(buf, o, USER_AGENT_KEY);
      o = putJsonString(buf, o, f.userAgent);
    }
    const ref = f.objectRef;
    if (ref) {
      // Field by field: a loop over the names makes every read a keyed lookup.
      const open = (o = put(buf, o, OBJECT_REF_KEY));
      o = putField(buf, o, open, REF_RESOURCE, ref.resource);
      o = putField(buf, o, open, REF_NAMESPACE, ref.namespace);
      o = putField(buf, o, open, REF_NAME, ref.name);
      o = putField(buf, o, open, REF_UID, ref.uid);
      o = putField(buf, o, open, REF_API_GROUP, ref.apiGroup);
      o = putField(buf, o, open, REF_API_VERSION, ref.apiVersion);
      o = putField(buf, o, open, REF_RESOURCE_VERSION, ref.resourceVersion);
      o = putField(buf, o, open, REF_SUBRESOURCE, ref.subresource);
      buf[o++] = CLOSE_BRACE;
    }
    return o;
  }

  /** The event at `stage` in the reference's legacy one-line text format. */
  legacyLine(stage: Stage): string {
    const f = this.facts;
    const q = (v: string): string => JSON.stringify(v);
    const quotedList = (l: string[]): string => l.map(q).join(',');
    const groups = f.user.name && f.user.groups.length ? quotedList(f.user.groups) : '<none>';
    const as = this.impersonatedUser;
    const namespace = f.objectRef?.namespace || '<none>';
    const response = this.responseStatus && stage !== 'RequestReceived' ? String(this.responseStatus.code) : '<deferred>';
    const received = microTime(f.receivedMicros).replace(/\.?0+Z$/, 'Z');
    return `${received} AUDIT: id=${q(f.auditID)} stage=${q(stage)} ip=${q(f.sourceIPs[0] ?? '<unknown>')} method=${q(f.verb)} user=${q(f.user.name || '<none>')} groups=${q(groups)} as=${q(as ? as.name : '<self>')} asgroups=${q(as ? quotedList(as.groups) : '<lookup>')} user-agent=${q(f.userAgent)} namespace=${q(namespace)} uri=${q(f.requestURI)} response="${response}"\n`;
  }

}

const STATUS_START = Buffer.from('{"kind":"Status"', 'latin1');

/** Whether the JSON starts as a Status does (compared byte by byte: no string made per answer). */
function startsWithStatus(b: Buffer): boolean {
  if (b.length <= STATUS_START.length) return false;
  for (let i = STATUS_START.length - 1; i >= 0; i--) if (b[i] !== STATUS_START[i]) return false;
  return true;
}

// Annotation keys and values repeat from request to request ("authorization.k8s.io/decision": "allow").
const QUOTED_LIMIT = 1024;
const quotedCache = new Map<string, string>();

/** JSON.stringify of a string, remembered for short ones. */
function quoted(text: string): string {
  let json = quotedCache.get(text);
  if (json === undefined) {
    json = JSON.stringify(text);
    if (text.length <= 256) {
      if (quotedCache.size >= QUOTED_LIMIT) quotedCache.clear();
      quotedCache.set(text, json);
    }
  }
  return json;
}

// Every request has a user object of its own (each authenticator hands out a fresh one), but the
// users are few: each one's JSON kept by name, and used while the groups and uid are the same.
// (Keyed by the object, a WeakMap missed every time, and its entries cost the garbage collector.)
const USER_LIMIT = 1024;
interface KnownUser {
  uid: string | undefined;
  groups: readonly string[];
  json: string;
  /** The JSON in UTF-8, made the first time a line is written as bytes. */
  bytes?: Buffer;
  /** Whether it is the one kept for its name (a user with extras is made afresh each time). */
  kept: boolean;
}
const userJsons = new Map<string, KnownUser>();

/** The user's JSON as text, and kept for the next requests when it can be (see below). */
function knownUser(u: UserInfo): KnownUser {
  const known = userJsons.get(u.name);
  if (known !== undefined && known.uid === u.uid && sameStrings(known.groups, u.groups) && !hasExtra(u)) return known;
  const entry: KnownUser = { uid: u.uid, groups: [...u.groups], json: writeUser(u), kept: !hasExtra(u) };
  // Extras (a service account's pod, a front proxy's) differ from request to request: not kept.
  if (entry.kept) {
    if (userJsons.size >= USER_LIMIT) userJsons.clear();
    userJsons.set(u.name, entry);
  }
  return entry;
}

function userJson(u: UserInfo): string {
  return knownUser(u).json;
}

/** The user's JSON written at `at`; returns its end. */
function putUser(buf: Buffer, at: number, u: UserInfo): number {
  const known = knownUser(u);
  return put(buf, at, (known.bytes ??= Buffer.from(known.json, 'utf8')));
}

function hasExtra(u: UserInfo): boolean {
  if (u.extra === undefined) return false;
  for (const _ in u.extra) return true;
  return false;
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function writeUser(u: UserInfo): string {
  const parts: string[] = [];
  if (u.name) parts.push(`"username":${JSON.stringify(u.name)}`);
  if (u.uid) parts.push(`"uid":${JSON.stringify(u.uid)}`);
  if (u.groups.length) parts.push(`"groups":${JSON.stringify(u.groups)}`);
  const extra = Object.keys(u.extra ?? {}).sort();
  if (extra.length) parts.push(`"extra":{${extra.map((k) => `${JSON.stringify(k)}:${JSON.stringify(u.extra![k])}`).join(',')}}`);
  return `{${parts.join(',')}}`;
}

// A status of a code alone (most answers'): its text by code.
const CODE_ONLY = new Map<number, string>();

function statusJson(st: ResponseStatus): string {
  if (st.status === undefined && st.message === undefined && st.reason === undefined && st.details === undefined) {
    let json = CODE_ONLY.get(st.code);
    if (json === undefined) {
      json = `{"metadata":{},"code":${st.code}}`;
      if (CODE_ONLY.size < 1000) CODE_ONLY.set(st.code, json);
    }
    return json;
  }
  let s = '{"metadata":{}';
  if (st.status) s += `,"status":${JSON.stringify(st.status)}`;
  if (st.message) s += `,"message":${JSON.stringify(st.message)}`;
  if (st.reason) s += `,"reason":${JSON.stringify(st.reason)}`;
  if (st.details !== undefined) s += `,"details":${JSON.stringify(st.details)}`;
  return `${s},"code":${st.code}}`;
}

/** A copy without metadata.managedFields (of the object, of a list's items, of a Table's rows' objects). */
function withoutManagedFields(obj: JsonObject): JsonObject {
  const strip = (o: unknown): unknown => {
    if (!o || typeof o !== 'object' || Array.isArray(o)) return o;
    const meta = (o as JsonObject)['metadata'];
    if (!meta || typeof meta !== 'object' || !('managedFields' in (meta as JsonObject))) return o;
    const { managedFields: _dropped, ...rest } = meta as JsonObject;
    return { ...(o as JsonObject), metadata: rest };
  };
  let copy = strip(obj) as JsonObject;
  if (Array.isArray(copy['items'])) copy = { ...copy, items: (copy['items'] as unknown[]).map(strip) };
  if (copy['kind'] === 'Table' && Array.isArray(copy['rows'])) {
    copy = { ...copy, rows: (copy['rows'] as JsonObject[]).map((r) => (r && typeof r === 'object' ? { ...r, object: strip(r['object']) } : r)) };
  }
  return copy;
}

// Writing a line as bytes (AuditRecord.writeLine): the names and punctuation encoded once.
const ascii = (text: string): Buffer => Buffer.from(text, 'latin1');
const LEVEL_HEAD_BYTES = Object.fromEntries(LEVELS.map((level) => [level, ascii(LEVEL_HEAD[level])])) as Record<Level, Buffer>;
const STAGE_BYTES = Object.fromEntries(STAGES.map((stage) => [stage, ascii(STAGE_FIELD[stage])])) as Record<Stage, Buffer>;
const REQUEST_URI_KEY = ascii(',"requestURI":');
const VERB_KEY = ascii(',"verb":');
const USER_KEY = ascii(',"user":');
const IMPERSONATED_USER_KEY = ascii(',"impersonatedUser":');
const SOURCE_IPS_KEY = ascii(',"sourceIPs":[');
const USER_AGENT_KEY = ascii(',"userAgent":');
const OBJECT_REF_KEY = ascii(',"objectRef":{');
const REF_RESOURCE = ascii('"resource":');
const REF_NAMESPACE = ascii('"namespace":');
const REF_NAME = ascii('"name":');
const REF_UID = ascii('"uid":');
const REF_API_GROUP = ascii('"apiGroup":');
const REF_API_VERSION = ascii('"apiVersion":');
const REF_RESOURCE_VERSION = ascii('"resourceVersion":');
const REF_SUBRESOURCE = ascii('"subresource":');
const RESPONSE_STATUS_KEY = ascii(',"responseStatus":');
const REQUEST_OBJECT_KEY = ascii(',"requestObject":');
const RESPONSE_OBJECT_KEY = ascii(',"responseObject":');
/** writeLine's epoch for a buffer that is only the caller's (line()). */
const NOT_SHARED = -1;
const RECEIVED_KEY = ascii(',"requestReceivedTimestamp":"');
const STAGE_TIMESTAMP_KEY = ascii('","stageTimestamp":"');
const ANNOTATIONS_KEY = ascii(',"annotations":{');
const COMMA = 0x2c;
const COLON = 0x3a;
const QUOTE = 0x22;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const NEWLINE = 0x0a;

/**
 * `bytes` at `at`; returns the end. Only the shortest runs copied by hand: a byte stored from
 * JavaScript costs ~2-3 ns, a set() ~15-25 ns whatever its length up to a few hundred bytes.
 */
function put(buf: Buffer, at: number, bytes: Uint8Array): number {
  const n = bytes.length;
  if (n > 8) {
    buf.set(bytes, at);
    return at + n;
  }
  for (let i = 0; i < n; i++) buf[at + i] = bytes[i]!;
  return at + n;
}

/** Bytes `from`..`to` of `src` at `at` of `dst`; returns the end. */
function copyBytes(src: Buffer, from: number, to: number, dst: Buffer, at: number): number {
  if (src === dst) dst.copyWithin(at, from, to);
  else dst.set(src.subarray(from, to), at);
  return at + (to - from);
}

/**
 * JSON.stringify(text) in UTF-8 at `at`; returns the end. Printable ASCII without quotes or
 * backslashes (nearly every name, path and ID) is copied as it is; anything else is JSON.stringify's.
 */
function putJsonString(buf: Buffer, at: number, text: string): number {
  const n = text.length;
  buf[at] = QUOTE;
  let o = at + 1;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === QUOTE || c === 0x5c || c > 0x7f) return at + buf.write(JSON.stringify(text), at, 'utf8');
    buf[o++] = c;
  }
  buf[o++] = QUOTE;
  return o;
}

/** An ID the server made, quoted, at `at`; returns the end. */
function putMadeId(buf: Buffer, at: number, made: MadeAuditId): number {
  buf[at] = QUOTE;
  copyMadeId(made, viewOf(buf), at + 1);
  const end = at + 1 + made.text.length;
  buf[end] = QUOTE;
  return end + 1;
}

// The last buffer written to by words (ID, digits) and its view: the queue's chunk, for hundreds of lines.
let viewed: Buffer | undefined;
let view: DataView = new DataView(new ArrayBuffer(0));

/** A DataView of the whole of `buf`. */
function viewOf(buf: Buffer): DataView {
  if (buf !== viewed) {
    viewed = buf;
    view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }
  return view;
}

// The status of a code alone, as bytes by code.
const CODE_ONLY_BYTES = new Map<number, Buffer>();

function putStatus(buf: Buffer, at: number, st: ResponseStatus): number {
  if (st.status === undefined && st.message === undefined && st.reason === undefined && st.details === undefined) {
    let bytes = CODE_ONLY_BYTES.get(st.code);
    if (bytes === undefined) {
      bytes = ascii(statusJson(st));
      if (CODE_ONLY_BYTES.size < 1000) CODE_ONLY_BYTES.set(st.code, bytes);
    }
    return put(buf, at, bytes);
  }
  return at + buf.write(statusJson(st), at, 'utf8');
}

// The date and time to the second of the last timestamp written as bytes.
let bytesSecond = -1;
let bytesPrefix: Buffer = Buffer.alloc(0);

/** microTime(micros) in ASCII at `at`; returns the end. */
function putMicroTime(buf: Buffer, at: number, micros: number): number {
  const second = Math.floor(micros / 1_000_000);
  if (second !== bytesSecond) {
    bytesSecond = second;
    bytesPrefix = ascii(new Date(second * 1000).toISOString().slice(0, 19));
  }
  let o = put(buf, at, bytesPrefix);
  buf[o++] = 0x2e; // .
  putMicros(buf, o, micros, second);
  o += 6;
  buf[o++] = 0x5a; // Z
  return o;
}

/** The ASCII of 00..99, two digits to a 16-bit word as setUint16(…, true) writes it (the tens first). */
const DIGIT_PAIRS = Uint16Array.from({ length: 100 }, (_, n) => (0x30 + Math.floor(n / 10)) | ((0x30 + (n % 10)) << 8));

/** The six digits of the microseconds of `micros` past `second`, at `at`: three pairs. */
function putMicros(buf: Buffer, at: number, micros: number, second: number): void {
  // In 32-bit integers: on doubles, % and Math.floor cost more than the whole line's copies.
  const fraction = (micros - second * 1_000_000) | 0;
  const high = (fraction / 10_000) | 0;
  const rest = fraction - high * 10_000;
  const middle = (rest / 100) | 0;
  const v = viewOf(buf);
  v.setUint16(at, DIGIT_PAIRS[high]!, true);
  v.setUint16(at + 2, DIGIT_PAIRS[middle]!, true);
  v.setUint16(at + 4, DIGIT_PAIRS[rest - middle * 100]!, true);
}

/** `"key":"value"` after a comma unless first in its object (at `open`), or nothing for an empty value. */
function putField(buf: Buffer, at: number, open: number, key: Buffer, value: string | undefined): number {
  if (!value) return at;
  let o = at;
  if (o !== open) buf[o++] = COMMA;
  return putJsonString(buf, put(buf, o, key), value);
}

function levelHead(level: Level): Buffer {
  switch (level) {
    case 'Metadata': return LEVEL_HEAD_BYTES.Metadata;
    case 'Request': return LEVEL_HEAD_BYTES.Request;
    case 'RequestResponse': return LEVEL_HEAD_BYTES.RequestResponse;
    default: return LEVEL_HEAD_BYTES[level];
  }
}

function stageBytes(stage: Stage): Buffer {
  switch (stage) {
    case 'RequestReceived': return STAGE_BYTES.RequestReceived;
    case 'ResponseComplete': return STAGE_BYTES.ResponseComplete;
    default: return STAGE_BYTES[stage];
  }
}

/**
 * The shared fields' bytes (writeBody's: URI, verb, user, source IPs, user agent, object
 * reference) of a connection's last audited request, copied into its next request's first line
 * when every one of those fields is the same: a client asks for the same URI again and again (a
 * poll, a lease, a status), and one copy costs less than encoding them field by field. One per
 * connection, reused: a request that differs pays the comparisons and a copy into it, no hashing
 * and no allocation (a per-URI map cost a new URI ~1.3 µs).
 */
export class BodyCache {
  private readonly body = new KeptBytes(512);
  private requestURI = '';
  private verb = '';
  private user: KnownUser | undefined = undefined;
  private sourceIPs: readonly string[] = [];
  private userAgent = '';
  private resource: string | undefined = undefined;
  private namespace: string | undefined = undefined;
  private name: string | undefined = undefined;
  private uid: string | undefined = undefined;
  private apiGroup: string | undefined = undefined;
  private apiVersion: string | undefined = undefined;
  private resourceVersion: string | undefined = undefined;
  private subresource: string | undefined = undefined;
  private hasRef = false;
  /** The annotations last written (keys and values one after the other) and their bytes. */
  private readonly annotations: string[] = [];
  private readonly annotationBytes = new KeptBytes(256);
  /** Counts of the shared fields' and the annotations' bytes kept so far: a template names those it was made with. */
  bodyGeneration = 0;
  annotationGeneration = 1;
  /** The connection's last lines at RequestReceived and ResponseComplete, as templates. */
  readonly receivedLine = new LineTemplate();
  readonly completeLine = new LineTemplate();

  /** Whether the bytes kept are writeBody's for these facts and user. */
  holds(f: RequestFacts, user: KnownUser): boolean {
    if (this.user !== user || this.body.empty || f.requestURI !== this.requestURI || f.verb !== this.verb || f.userAgent !== this.userAgent) return false;
    if (f.sourceIPs !== this.sourceIPs && !sameStrings(f.sourceIPs, this.sourceIPs)) return false;
    const ref = f.objectRef;
    if (ref === undefined) return !this.hasRef;
    return this.hasRef && ref.resource === this.resource && ref.namespace === this.namespace && ref.name === this.name && ref.uid === this.uid
      && ref.apiGroup === this.apiGroup && ref.apiVersion === this.apiVersion && ref.resourceVersion === this.resourceVersion && ref.subresource === this.subresource;
  }

  /** The bytes kept, at `at`; returns the end. */
  copyTo(buf: Buffer, at: number): number {
    return this.body.copyTo(buf, at);
  }

  /** Whether the annotations' bytes kept are those of `own` (keys and values one after the other). */
  holdsAnnotations(own: readonly string[]): boolean {
    const kept = this.annotations;
    if (kept.length !== own.length || this.annotationBytes.empty) return false;
    for (let i = 0; i < own.length; i++) if (own[i] !== kept[i]) return false;
    return true;
  }

  /** The annotations' bytes kept, at `at`; returns the end. */
  copyAnnotationsTo(buf: Buffer, at: number): number {
    return this.annotationBytes.copyTo(buf, at);
  }

  /** Keeps `from`..`to` of `buf` as the annotations' bytes of `own`. */
  keepAnnotations(own: readonly string[], buf: Buffer, from: number, to: number): void {
    const kept = this.annotations;
    kept.length = 0;
    this.annotationGeneration++;
    if (!this.annotationBytes.keep(buf, from, to)) return;
    for (let i = 0; i < own.length; i++) kept.push(own[i]!);
  }

  /** Keeps `from`..`to` of `buf` as writeBody's bytes for these facts and user. */
  keep(f: RequestFacts, user: KnownUser, buf: Buffer, from: number, to: number): void {
    this.bodyGeneration++;
    if (!this.body.keep(buf, from, to)) return;
    this.requestURI = f.requestURI;
    this.verb = f.verb;
    this.user = user;
    this.sourceIPs = f.sourceIPs;
    this.userAgent = f.userAgent;
    const ref = f.objectRef;
    this.hasRef = ref !== undefined;
    this.resource = ref?.resource;
    this.namespace = ref?.namespace;
    this.name = ref?.name;
    this.uid = ref?.uid;
    this.apiGroup = ref?.apiGroup;
    this.apiVersion = ref?.apiVersion;
    this.resourceVersion = ref?.resourceVersion;
    this.subresource = ref?.subresource;
  }
}

/** A run of bytes kept in a buffer of its own, reused (grown when a longer run comes). */
class KeptBytes {
  private bytes: Buffer = Buffer.alloc(0);
  /** The bytes kept: a view of `bytes` (a whole array's set() makes no view of its own per copy). */
  private kept: Uint8Array = this.bytes;

  /** @param initial the size of the buffer first made */
  constructor(private readonly initial: number) {}

  get empty(): boolean {
    return this.kept.length === 0;
  }

  get length(): number {
    return this.kept.length;
  }

  /** Keeps `from`..`to` of `buf`; a run too long to be worth keeping leaves nothing kept (false). */
  keep(buf: Buffer, from: number, to: number): boolean {
    const length = to - from;
    // A very long URI, agent or annotation is not worth keeping.
    if (length > MAX_CACHED_BODY) {
      this.kept = this.bytes.subarray(0, 0);
      return false;
    }
    if (this.bytes.length < length) this.bytes = Buffer.allocUnsafeSlow(Math.max(this.initial, length));
    buf.copy(this.bytes, 0, from, to);
    this.kept = this.bytes.subarray(0, length);
    return true;
  }

  /** The bytes kept, at `at`; returns the end. */
  copyTo(buf: Buffer, at: number): number {
    const kept = this.kept;
    buf.set(kept, at);
    return at + kept.length;
  }
}

const MAX_CACHED_BODY = 4096;

/** templateCode's "no status code" (RequestReceived) and "no template" (a status of more than a code; annotations other than the cache's). */
const NO_CODE = -1;
const NO_TEMPLATE = -2;
/** annotationsKey of a line without annotations. */
const NO_ANNOTATIONS = 0;
/** Where a timestamp's microseconds start: after `2026-11-27T18:11:42.`. */
const MICROS_AT = 20;

/**
 * A connection's last line at one stage, kept whole with what it was made of (level, the cache's
 * shared fields and annotations by generation, the status code, the ID's length, each
 * timestamp's second): a line of the same makings is that line with its own ID and microseconds
 * written in (one copy instead of a dozen pieces put together). A poll, a lease renewal, a
 * benchmark repeat such requests over one connection.
 */
class LineTemplate {
  private readonly line = new KeptBytes(1024);
  private level: Level | undefined = undefined;
  private body = -1;
  private annotations = NO_TEMPLATE;
  private code = NO_TEMPLATE;
  private idAt = 0;
  private idLength = -1;
  private receivedAt = 0;
  private receivedSecond = -1;
  private stageAt = 0;
  private stageSecond = -1;

  /** Whether a line of this level, annotations and code over `cache`'s shared fields, with an ID of `idLength`, is this template's (but for the ID and timestamps). */
  fits(level: Level, cache: BodyCache, annotations: number, code: number, idLength: number): boolean {
    return !this.line.empty && this.level === level && this.body === cache.bodyGeneration && this.annotations === annotations && annotations !== NO_TEMPLATE
      && this.code === code && this.idLength === idLength;
  }

  /** The line's length (a line of the same makings has it too). */
  get length(): number {
    return this.line.length;
  }

  /**
   * The line with `auditID` (plain: written as it is, PLAIN_JSON_TEXT; `made`, its bytes, when the
   * server made it) and the timestamps' microseconds written in, at `at`; returns its end, or -1
   * when the ID's length or a timestamp's second differs (the caller writes the line itself, over
   * whatever this wrote).
   */
  writeInto(buf: Buffer, at: number, auditID: string, made: MadeAuditId | undefined, receivedMicros: number, stageMicros: number): number {
    const n = auditID.length;
    if (n !== this.idLength) return -1;
    const receivedSecond = Math.floor(receivedMicros / 1_000_000);
    const stageSecond = Math.floor(stageMicros / 1_000_000);
    if (receivedSecond !== this.receivedSecond || stageSecond !== this.stageSecond) return -1;
    const end = this.line.copyTo(buf, at);
    // An ID of the client's copied by Node at once: read character by character, a string sliced
    // from another costs ~60 instructions each.
    if (made === undefined) buf.write(auditID, at + this.idAt, n, 'latin1');
    else copyMadeId(made, viewOf(buf), at + this.idAt);
    putMicros(buf, at + this.receivedAt + MICROS_AT, receivedMicros, receivedSecond);
    putMicros(buf, at + this.stageAt + MICROS_AT, stageMicros, stageSecond);
    return end;
  }

  /** Keeps `from`..`to` of `buf`, a line of these makings, as the template (`receivedAt`, `stageAt`: where its timestamps start in it). */
  keep(buf: Buffer, from: number, to: number, level: Level, cache: BodyCache, annotations: number, code: number, auditID: string,
    receivedAt: number, receivedMicros: number, stageAt: number, stageMicros: number): void {
    // The ID follows the level's head and its opening quote; one written escaped (longer than
    // its characters) makes no template.
    const idAt = LEVEL_HEAD_BYTES[level].length + 1;
    if (!plainAt(buf, from + idAt, auditID) || !this.line.keep(buf, from, to)) {
      this.level = undefined;
      return;
    }
    this.idAt = idAt;
    this.level = level;
    this.body = cache.bodyGeneration;
    this.annotations = annotations;
    this.code = code;
    this.idLength = auditID.length;
    this.receivedAt = receivedAt;
    this.receivedSecond = Math.floor(receivedMicros / 1_000_000);
    this.stageAt = stageAt;
    this.stageSecond = Math.floor(stageMicros / 1_000_000);
  }
}

/** Text JSON writes as it is: printable ASCII (and DEL) but the quote and the backslash. */
const PLAIN_JSON_TEXT = /^[\x20\x21\x23-\x5b\x5d-\x7f]*$/;

/** Whether `text` is at `at` as it is (plain, nothing escaped) between its quotes. */
function plainAt(buf: Buffer, at: number, text: string): boolean {
  const end = at + text.length;
  return buf[at - 1] === QUOTE && buf[end] === QUOTE && PLAIN_JSON_TEXT.test(text) && buf.toString('latin1', at, end) === text;
}
