// StatusError: every failure a handler reports, shaped as kube-apiserver's metav1.Status.

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface StatusBody {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, unknown>;
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

export class StatusError extends Error {
  readonly code: number;
  readonly reason: string | undefined;
  readonly details: StatusDetails | undefined;
  /** Extra response headers, e.g. Retry-After. */
  readonly headers: Record<string, string>;
  /** The Status's ListMeta (a 410 for an expired continue token carries a fresh token here). */
  metadata: Record<string, unknown> = {};

  constructor(code: number, reason: string | undefined, message: string, details?: StatusDetails, headers: Record<string, string> = {}) {
    super(message);
    this.code = code;
    this.reason = reason;
    this.details = details;
    this.headers = headers;
  }

  toStatus(): StatusBody {
    const body: StatusBody = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: this.message, code: this.code };
    // Key order as the reference serves it: message, reason, details, code.
    const ordered: StatusBody = { kind: body.kind, apiVersion: body.apiVersion, metadata: this.metadata, status: body.status, message: this.message } as StatusBody;
    if (this.reason !== undefined) ordered.reason = this.reason;
    if (this.details !== undefined) ordered.details = this.details;
    ordered.code = this.code;
    return ordered;
  }
}

/** The qualified resource as the reference names it in messages: "configmaps" or "deployments.apps". */
export interface QualifiedResource {
  group: string;
  resource: string;
}

function qualified(qr: QualifiedResource): string {
  return qr.group ? `${qr.resource}.${qr.group}` : qr.resource;
}

export function notFound(qr: QualifiedResource, name: string): StatusError {
  return new StatusError(404, 'NotFound', `${qualified(qr)} "${name}" not found`, { name, group: qr.group || undefined, kind: qr.resource });
}

export function alreadyExists(qr: QualifiedResource, name: string): StatusError {
  return new StatusError(409, 'AlreadyExists', `${qualified(qr)} "${name}" already exists`, { name, group: qr.group || undefined, kind: qr.resource });
}

export function conflict(qr: QualifiedResource, name: string, why: string): StatusError {
  return new StatusError(409, 'Conflict', `Operation cannot be fulfilled on ${qualified(qr)} "${name}": ${why}`, { name, group: qr.group || undefined, kind: qr.resource });
}

export const OPTIMISTIC_LOCK_MESSAGE = 'the object has been modified; please apply your changes to the latest version and try again';

export function badRequest(message: string): StatusError {
  return new StatusError(400, 'BadRequest', message);
}

export function methodNotAllowed(): StatusError {
  return new StatusError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
}

/** The reference's MethodNotSupported: a verb a resource has but will not do (message given, or its own). */
export function methodNotSupported(qr: QualifiedResource, verb: string, message = `${verb} is not supported on resources of kind "${qualified(qr)}"`): StatusError {
  return new StatusError(405, 'MethodNotAllowed', message, { group: qr.group || undefined, kind: qr.resource });
}

export function resourceNotFound(): StatusError {
  return new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
}

export function notAcceptable(message: string): StatusError {
  return new StatusError(406, 'NotAcceptable', message, {});
}

/** 415 for a request body in a format the server does not read (`accepted`: what it reads there). */
export function unsupportedMediaType(accepted: readonly string[] = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf']): StatusError {
  return new StatusError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`);
}

export function requestEntityTooLarge(message = 'the server has rejected the request because it is too large'): StatusError {
  return new StatusError(413, 'RequestEntityTooLarge', message);
}

export function internalError(message: string): StatusError {
  return new StatusError(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] });
}

/** A field error in the reference's format: `metadata.name: Invalid value: "X": why`. */
export interface FieldError {
  type:
    | 'FieldValueInvalid'
    | 'FieldValueRequired'
    | 'FieldValueDuplicate'
    | 'FieldValueForbidden'
    | 'FieldValueNotSupported'
    | 'FieldValueNotFound'
    | 'FieldValueTooLong'
    | 'FieldValueTooMany'
    | 'FieldValueTypeInvalid';
  field: string;
  /** Text after the field path, e.g. `Invalid value: "X": must be …` or `Required value`. */
  detail: string;
}

export function fieldInvalid(field: string, value: unknown, why: string): FieldError {
  return { type: 'FieldValueInvalid', field, detail: `Invalid value: ${formatValue(value)}: ${why}` };
}

export function fieldRequired(field: string, why = ''): FieldError {
  return { type: 'FieldValueRequired', field, detail: why ? `Required value: ${why}` : 'Required value' };
}

export function fieldForbidden(field: string, why: string): FieldError {
  return { type: 'FieldValueForbidden', field, detail: `Forbidden: ${why}` };
}

export function fieldNotSupported(field: string, value: unknown, supported: string[]): FieldError {
  const detail = `Unsupported value: ${formatValue(value)}`;
  if (supported.length === 0) return { type: 'FieldValueNotSupported', field, detail };
  return { type: 'FieldValueNotSupported', field, detail: `${detail}: supported values: ${supported.map(goQuote).join(', ')}` };
}

export function fieldDuplicate(field: string, value: unknown): FieldError {
  return { type: 'FieldValueDuplicate', field, detail: `Duplicate value: ${formatValue(value)}` };
}

export function fieldNotFound(field: string, value: unknown): FieldError {
  return { type: 'FieldValueNotFound', field, detail: `Not found: ${formatValue(value)}` };
}

export function fieldTooMany(field: string, actual: number, max: number): FieldError {
  return { type: 'FieldValueTooMany', field, detail: `Too many: ${actual}: must have at most ${max} items` };
}

export function fieldTooLong(field: string, max: number): FieldError {
  return { type: 'FieldValueTooLong', field, detail: `Too long: must have at most ${max} bytes` };
}

/** unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
export const isGoPrintable = (ch: string): boolean => ch === ' ' || /[\p{L}\p{M}\p{N}\p{P}\p{S}]/u.test(ch);
const QUOTE_ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v' };

/** Go's strconv.Quote (%q): printable characters as they are, others escaped. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (QUOTE_ESCAPES[ch]) out += QUOTE_ESCAPES[ch];
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else if (!isGoPrintable(ch)) out += c < 0x10000 ? `\\u${c.toString(16).padStart(4, '0')}` : `\\U${c.toString(16).padStart(8, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** Go's %#v-ish rendering of a value in field errors: strings quoted, numbers bare. */
export function formatValue(value: unknown): string {
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null || value === undefined) return 'null';
  return JSON.stringify(value);
}

/** 422 Invalid, as the reference aggregates field errors: the message lists each distinct error once, the causes all. */
export function invalid(kind: string, group: string, name: string, errors: FieldError[]): StatusError {
  const list = [...new Set(errors.map((e) => `${e.field}: ${e.detail}`))];
  const summary = list.length === 1 ? list[0] : `[${list.join(', ')}]`;
  const qualifiedKind = group ? `${kind}.${group}` : kind;
  return new StatusError(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${summary}`, {
    name: name || undefined,
    group: group || undefined,
    kind,
    causes: errors.map((e) => ({ reason: e.type, message: e.detail, field: e.field })),
  });
}
