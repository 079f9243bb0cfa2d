// One request's audit event (audit.k8s.io/v1 Event) as it is filled in along the request, and
// written once per stage as the reference's JSON. The layers below the audit filter reach it by
// the response (`auditOf(res)`): the request's body, its answer, annotations. A request that is
// not audited has none, and every hook costs a WeakMap lookup.
import type { UserInfo } from '../api/user.js';
import type { JsonObject } from '../json.js';
import { atLeast, type AuditConfig, type Level, type Stage } from './policy.js';

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
}

const records = new WeakMap<object, AuditRecord>();

/** The audit event of the request `res` answers, when it is audited. */
export function auditOf(res: object): AuditRecord | undefined {
  return records.get(res);
}

/** Microseconds since the epoch (the reference's MicroTime). */
export function nowMicros(): number {
  return Math.round((performance.timeOrigin + performance.now()) * 1000);
}

/** RFC 3339 with microseconds, in UTC, as metav1.MicroTime is written. */
export function microTime(micros: number): string {
  const ms = Math.floor(micros / 1000);
  const iso = new Date(ms).toISOString(); // 2026-11-26T14:00:00.123Z
  return `${iso.slice(0, 19)}.${String(micros % 1_000_000).padStart(6, '0')}Z`;
}

/** A JSON text on one line (embedded raw, as the reference embeds runtime.Unknown's bytes). */
function oneLine(json: string): string {
  return /[\n\r]/.test(json) ? JSON.stringify(JSON.parse(json)) : json;
}

const MAX_USER_AGENT = 1024;

export class AuditRecord {
  readonly level: Level;
  /** Annotations admission plugins add, read when the event is written. */
  readonly admissionAnnotations: Record<string, string> = {};
  private readonly annotations = new Map<string, string>();
  private impersonatedUser: UserInfo | undefined;
  private responseStatus: ResponseStatus | undefined;
  private requestObject: string | undefined;
  private responseObject: string | undefined;

  constructor(readonly config: AuditConfig, readonly facts: RequestFacts) {
    this.level = config.level;
    if (facts.userAgent.length > MAX_USER_AGENT) facts.userAgent = `${facts.userAgent.slice(0, MAX_USER_AGENT)}...TRUNCATED`;
  }

  /** Makes the record reachable from the response. */
  attachTo(res: object): void {
    records.set(res, this);
  }

  get auditID(): string {
    return this.facts.auditID;
  }

  /** The first value of a key stays (the reference warns and keeps it). */
  annotate(key: string, value: string): void {
    if (!this.annotations.has(key)) this.annotations.set(key, value);
  }

  logImpersonatedUser(user: UserInfo): void {
    this.impersonatedUser = user;
  }

  /** A decoded request body (create, update): completes the object reference; kept at Request and above. */
  logRequestObject(obj: JsonObject): void {
    const ref = (this.facts.objectRef ??= {});
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
    const isStatus = first !== undefined && first.subarray(0, 24).toString('latin1').startsWith('{"kind":"Status"');
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

  /** The answer's HTTP code (the status line wins over a Status body's code, as the reference's). */
  responded(code: number): void {
    if (this.responseStatus) this.responseStatus.code = code;
    else this.responseStatus = { code };
  }

  get hasResponseStatus(): boolean {
    return this.responseStatus !== undefined;
  }

  /** The event at `stage` as one JSON line (the reference's field order). */
  line(stage: Stage, stageMicros: number): string {
    const f = this.facts;
    let s = `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"${this.level}","auditID":${JSON.stringify(f.auditID)},"stage":"${stage}"`;
    s += `,"requestURI":${JSON.stringify(f.requestURI)},"verb":${JSON.stringify(f.verb)},"user":${userJson(f.user)}`;
    if (this.impersonatedUser) s += `,"impersonatedUser":${userJson(this.impersonatedUser)}`;
    if (f.sourceIPs.length) s += `,"sourceIPs":${JSON.stringify(f.sourceIPs)}`;
    if (f.userAgent) s += `,"userAgent":${JSON.stringify(f.userAgent)}`;
    if (f.objectRef) s += `,"objectRef":${objectRefJson(f.objectRef)}`;
    if (this.responseStatus && stage !== 'RequestReceived') s += `,"responseStatus":${statusJson(this.responseStatus)}`;
    if (this.requestObject !== undefined && stage !== 'RequestReceived') s += `,"requestObject":${this.requestObject}`;
    if (this.responseObject !== undefined && stage === 'ResponseComplete') s += `,"responseObject":${this.responseObject}`;
    s += `,"requestReceivedTimestamp":"${microTime(f.receivedMicros)}","stageTimestamp":"${microTime(stageMicros)}"`;
    const annotations = this.allAnnotations();
    if (annotations.length) s += `,"annotations":{${annotations.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`;
    return `${s}}\n`;
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

  /** Annotations sorted by key, as Go writes a map. */
  private allAnnotations(): Array<[string, string]> {
    const all = new Map(this.annotations);
    for (const [k, v] of Object.entries(this.admissionAnnotations)) if (!all.has(k)) all.set(k, v);
    return [...all].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }
}

function userJson(u: UserInfo): string {
  const parts: string[] = [];
  if (u.name) parts.push(`"username":${JSON.stringify(u.name)}`);
  if (u.uid) parts.push(`"uid":${JSON.stringify(u.uid)}`);
  if (u.groups.length) parts.push(`"groups":${JSON.stringify(u.groups)}`);
  const extra = Object.keys(u.extra ?? {}).sort();
  if (extra.length) parts.push(`"extra":{${extra.map((k) => `${JSON.stringify(k)}:${JSON.stringify(u.extra![k])}`).join(',')}}`);
  return `{${parts.join(',')}}`;
}

const OBJECT_REF_KEYS = ['resource', 'namespace', 'name', 'uid', 'apiGroup', 'apiVersion', 'resourceVersion', 'subresource'] as const;

function objectRefJson(ref: ObjectRef): string {
  const parts: string[] = [];
  for (const key of OBJECT_REF_KEYS) if (ref[key]) parts.push(`"${key}":${JSON.stringify(ref[key])}`);
  return `{${parts.join(',')}}`;
}

function statusJson(st: ResponseStatus): string {
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
