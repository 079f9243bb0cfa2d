// One request's audit event (audit.k8s.io/v1 Event) as it is filled in along the request, and
// written once per stage as the reference's JSON. The layers below the audit filter reach it by
// the response (`auditOf(res)`): the request's body, its answer, annotations. A request that is
// not audited has none, and every hook costs a WeakMap lookup.
import type { UserInfo } from '../api/user.js';
import type { JsonObject } from '../json.js';
import { atLeast, LEVELS, STAGES, type AuditConfig, type Level, type Stage } from './policy.js';

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

// On the response itself: a WeakMap of every response audited costs the garbage collector far more.
const RECORD = Symbol('audit record');

/** The audit event of the request `res` answers, when it is audited. */
export function auditOf(res: object): AuditRecord | undefined {
  return (res as { [RECORD]?: AuditRecord })[RECORD];
}

/** Microseconds since the epoch (the reference's MicroTime). */
export function nowMicros(): number {
  return Math.round((performance.timeOrigin + performance.now()) * 1000);
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

/**
 * The string made one piece in memory (V8 flattens a string built by concatenation when a
 * character is read, in place): each line copies it whole, instead of walking its pieces again.
 */
function flat(s: string): string {
  s.charCodeAt(0);
  return s;
}

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
  /** What stays the same at every stage, from "requestURI" to "userAgent" (the user who sent it never changes). */
  private readonly identity: string;
  /** The event's start up to its auditID, and what follows the stage, built at the first line. */
  private head: string | undefined;
  private body: string | undefined;
  private impersonatedUser: UserInfo | undefined;
  private responseStatus: ResponseStatus | undefined;
  private requestObject: string | undefined;
  private responseObject: string | undefined;
  /** requestReceivedTimestamp's text, the same on every line. */
  private received: string | undefined;

  constructor(readonly config: AuditConfig, readonly facts: RequestFacts) {
    this.level = config.level;
    if (facts.userAgent.length > MAX_USER_AGENT) facts.userAgent = `${facts.userAgent.slice(0, MAX_USER_AGENT)}...TRUNCATED`;
    let identity = `,"requestURI":${JSON.stringify(facts.requestURI)},"verb":${quoted(facts.verb)},"user":${userJson(facts.user)}`;
    const ips = facts.sourceIPs;
    if (ips.length === 1) identity += `,"sourceIPs":[${quoted(ips[0]!)}]`;
    else if (ips.length) identity += `,"sourceIPs":[${ips.map(quoted).join(',')}]`;
    if (facts.userAgent) identity += `,"userAgent":${quoted(facts.userAgent)}`;
    this.identity = identity;
  }

  /** Makes the record reachable from the response. */
  attachTo(res: object): void {
    (res as { [RECORD]?: AuditRecord })[RECORD] = this;
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
    this.body = undefined;
  }

  /** A decoded request body (create, update): completes the object reference; kept at Request and above. */
  logRequestObject(obj: JsonObject): void {
    const ref = (this.facts.objectRef ??= {});
    this.body = undefined;
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

  /** The event at `stage` as one JSON line (the reference's field order). */
  line(stage: Stage, stageMicros: number): string {
    const f = this.facts;
    // The parts that are the same at every stage are built once per record (most records write two lines).
    let s = (this.head ??= this.buildHead()) + STAGE_FIELD[stage] + (this.body ??= this.buildBody());
    if (stage !== 'RequestReceived') {
      if (this.responseStatus) s += `,"responseStatus":${statusJson(this.responseStatus)}`;
      if (this.requestObject !== undefined) s += `,"requestObject":${this.requestObject}`;
      if (this.responseObject !== undefined && stage === 'ResponseComplete') s += `,"responseObject":${this.responseObject}`;
    }
    s += `,"requestReceivedTimestamp":"${(this.received ??= microTime(f.receivedMicros))}","stageTimestamp":"${microTime(stageMicros)}"`;
    const annotations = this.annotationsJson();
    if (annotations) s += annotations;
    return `${s}}\n`;
  }

  /** From the start of the event to its auditID. */
  private buildHead(): string {
    return `${LEVEL_HEAD[this.level]}${JSON.stringify(this.facts.auditID)}`;
  }

  /** The fields after the stage that no stage changes: who sent the request, and what it is about. */
  private buildBody(): string {
    let s: string;
    if (this.impersonatedUser) {
      // The impersonated user goes between the user and the source IPs.
      const at = this.identity.indexOf(',"sourceIPs"');
      const cut = at < 0 ? this.identity.indexOf(',"userAgent"') : at;
      const impersonated = `,"impersonatedUser":${userJson(this.impersonatedUser)}`;
      s = cut < 0 ? this.identity + impersonated : this.identity.slice(0, cut) + impersonated + this.identity.slice(cut);
    } else {
      s = this.identity;
    }
    if (this.facts.objectRef) s += `,"objectRef":${objectRefJson(this.facts.objectRef)}`;
    return flat(s);
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
const userJsons = new Map<string, { uid: string | undefined; groups: readonly string[]; json: string }>();

function userJson(u: UserInfo): string {
  const known = userJsons.get(u.name);
  if (known !== undefined && known.uid === u.uid && sameStrings(known.groups, u.groups) && !hasExtra(u)) return known.json;
  const json = writeUser(u);
  // Extras (a service account's pod, a front proxy's) differ from request to request: not kept.
  if (!hasExtra(u)) {
    if (userJsons.size >= USER_LIMIT) userJsons.clear();
    userJsons.set(u.name, { uid: u.uid, groups: [...u.groups], json });
  }
  return json;
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

const OBJECT_REF_KEYS = ['resource', 'namespace', 'name', 'uid', 'apiGroup', 'apiVersion', 'resourceVersion', 'subresource'] as const;

function objectRefJson(ref: ObjectRef): string {
  let s = '';
  for (const key of OBJECT_REF_KEYS) {
    const v = ref[key];
    // Names, uids and versions differ from request to request: remembering them would only evict the others.
    if (v) s += `${s ? ',' : ''}"${key}":${key === 'name' || key === 'uid' || key === 'resourceVersion' ? JSON.stringify(v) : quoted(v)}`;
  }
  return `{${s}}`;
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
