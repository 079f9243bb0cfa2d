// A request's options, decoded once from its query (and a delete's body) into the typed
// meta.k8s.io/v1 objects of api/options.ts, with the reference's validation and messages: a bad
// value is 422 Invalid naming the options kind (every error of one kind in one answer, in the
// reference's order), a malformed one 400.
import type {
  CreateOptions, DeleteOptions, FieldValidationDirective, GetOptions, ListOptions, PatchOptions, PropagationPolicy, UpdateOptions,
} from '../api/options.js';
import { queryFlag } from '../api/query-flags.js';
import { checkFieldSelector, parseFieldSelector, parseLabelSelector } from '../api/selectors.js';
import { decodePatch } from '../encoding/decode.js';
import { deleteOptionsTypeError } from '../encoding/delete-options.js';
import { parseGoInt } from '../encoding/go-scalars.js';
import { decodeProtobufObject, PROTOBUF_MEDIA_TYPE } from '../encoding/protobuf.js';
import {
  badRequest, fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, fieldTooLong, invalid, isGoPrintable, type FieldError,
} from '../errors.js';
import { isObject } from '../json.js';
import type { ResourceInfo } from '../registry/definitions.js';
import { decodeContinue } from '../registry/readoptions.js';

const META = 'meta.k8s.io';
const FIELD_VALIDATION: readonly string[] = ['', 'Ignore', 'Strict', 'Warn'];
const PROPAGATION_POLICIES: readonly string[] = ['Foreground', 'Background', 'Orphan'];
const MATCH_VALUES: readonly string[] = ['Exact', 'NotOlderThan', ''];
const MAX_FIELD_MANAGER_BYTES = 128;

/**
 * An integer query parameter as the reference converts it (strconv.ParseInt, base 10, 64 bits):
 * absent → undefined; present and not an integer (the empty value included) → 400 with Go's message.
 */
export function int64Parameter(query: URLSearchParams, name: string): number | undefined {
  const text = query.get(name);
  if (text === null) return undefined;
  const parsed = parseGoInt(text, 64, true);
  if ('error' in parsed) throw badRequest(parsed.error);
  return parsed.value;
}

function refuse(kind: string, errors: FieldError[]): void {
  if (errors.length) throw invalid(kind, META, '', errors);
}

/** dryRun: absent, or "All" (every stage but persistence). */
function dryRunErrors(values: readonly unknown[]): FieldError[] {
  const bad = values.find((v) => v !== 'All');
  return bad === undefined ? [] : [fieldNotSupported('dryRun', bad, ['All'])];
}

/** fieldManager: at most 128 bytes, printable characters only (each other one named by its byte position). */
function fieldManagerErrors(manager: string): FieldError[] {
  const errors: FieldError[] = [];
  if (Buffer.byteLength(manager) > MAX_FIELD_MANAGER_BYTES) errors.push(fieldTooLong('fieldManager', MAX_FIELD_MANAGER_BYTES));
  let position = 0;
  for (const ch of manager) {
    if (!isGoPrintable(ch)) {
      const code = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      errors.push(fieldInvalid('fieldManager', manager, `invalid character U+${code} (at position ${position})`));
    }
    position += Buffer.byteLength(ch);
  }
  return errors;
}

function fieldValidationErrors(value: string): FieldError[] {
  return FIELD_VALIDATION.includes(value) ? [] : [fieldNotSupported('fieldValidation', value, [...FIELD_VALIDATION])];
}

/** What CreateOptions, UpdateOptions and PatchOptions share, with their errors in the reference's order. */
function writeOptionsOf(query: URLSearchParams, kind: string, first: FieldError[] = []): { dryRun: boolean; fieldManager: string; fieldValidation: FieldValidationDirective } {
  const fieldManager = query.get('fieldManager') ?? '';
  const dryRun = query.getAll('dryRun');
  const fieldValidation = query.get('fieldValidation') ?? '';
  refuse(kind, [...first, ...fieldManagerErrors(fieldManager), ...dryRunErrors(dryRun), ...fieldValidationErrors(fieldValidation)]);
  return { dryRun: dryRun.length > 0, fieldManager, fieldValidation: fieldValidation as FieldValidationDirective };
}

export function decodeCreateOptions(query: URLSearchParams): CreateOptions {
  return { kind: 'CreateOptions', ...writeOptionsOf(query, 'CreateOptions') };
}

export function decodeUpdateOptions(query: URLSearchParams): UpdateOptions {
  return { kind: 'UpdateOptions', ...writeOptionsOf(query, 'UpdateOptions') };
}

/** `apply`: a server-side apply patch, which needs a fieldManager and alone may force. */
export function decodePatchOptions(query: URLSearchParams, apply: boolean): PatchOptions {
  const first: FieldError[] = [];
  if (!apply && query.has('force')) first.push(fieldForbidden('force', 'may not be specified for non-apply patch'));
  if (apply && !query.get('fieldManager')) first.push(fieldRequired('fieldManager', 'is required for apply patch'));
  return { kind: 'PatchOptions', ...writeOptionsOf(query, 'PatchOptions', first), force: queryFlag(query, 'force') };
}

/**
 * The field manager a write is recorded under: the fieldManager parameter, else the User-Agent up
 * to its first "/" (as the reference derives it: "kubectl", "recorder"), at most 128 characters.
 */
export function fieldManagerOf(options: { fieldManager: string }, userAgent: string | undefined): string {
  return options.fieldManager || (userAgent ?? '').split('/')[0]!.slice(0, MAX_FIELD_MANAGER_BYTES);
}

/**
 * How strictly a body's unknown and repeated fields are refused (Warn unless asked otherwise);
 * with ServerSideFieldValidation off (`serverSide` false), always Ignore, as the reference.
 */
export function fieldValidationLevel(options: { fieldValidation: FieldValidationDirective }, serverSide = true): 'Ignore' | 'Warn' | 'Strict' {
  if (!serverSide) return 'Ignore';
  return options.fieldValidation === 'Ignore' || options.fieldValidation === 'Strict' ? options.fieldValidation : 'Warn';
}

/** A DeleteOptions body in its JSON form: Protobuf (client-go's and controller-runtime's) or JSON. */
function deleteOptionsBody(body: Buffer, mediaType: string): unknown {
  return mediaType === PROTOBUF_MEDIA_TYPE ? decodeProtobufObject(body, 'DeleteOptions').object : decodePatch(body.toString('utf8'));
}

/**
 * DeleteOptions from the body (optional; `mediaType` is its Content-Type's) and the query (which
 * wins): preconditions, gracePeriodSeconds, propagationPolicy or the deprecated orphanDependents
 * (turned into the policy it names), dryRun.
 */
export function decodeDeleteOptions(query: URLSearchParams, body: Buffer, mediaType = 'application/json'): DeleteOptions {
  const options: DeleteOptions = {};
  let policy: string | undefined;
  const dryRun: unknown[] = query.getAll('dryRun');
  if (body.length > 0) {
    const parsed = deleteOptionsBody(body, mediaType);
    if (!isObject(parsed)) throw badRequest('DeleteOptions must be a JSON object');
    // A value of the wrong type fails the decode (the reference's 500, a 400 here): nothing is
    // deleted. (A Protobuf body's types are its message's.)
    const wrongType = mediaType === PROTOBUF_MEDIA_TYPE ? undefined : deleteOptionsTypeError(body.toString('utf8'));
    if (wrongType !== undefined) throw badRequest(wrongType);
    if (isObject(parsed['preconditions'])) {
      const p = parsed['preconditions'];
      options.preconditions = {
        uid: typeof p['uid'] === 'string' ? p['uid'] : undefined,
        resourceVersion: typeof p['resourceVersion'] === 'string' ? p['resourceVersion'] : undefined,
      };
    }
    if (typeof parsed['gracePeriodSeconds'] === 'number') options.gracePeriodSeconds = parsed['gracePeriodSeconds'];
    if (typeof parsed['propagationPolicy'] === 'string') policy = parsed['propagationPolicy'];
    if (typeof parsed['orphanDependents'] === 'boolean') options.orphanDependents = parsed['orphanDependents'];
    if (Array.isArray(parsed['dryRun'])) dryRun.push(...parsed['dryRun']);
  }
  const grace = int64Parameter(query, 'gracePeriodSeconds');
  if (grace !== undefined) options.gracePeriodSeconds = grace;
  policy = query.get('propagationPolicy') ?? policy;
  if (query.has('orphanDependents')) options.orphanDependents = queryFlag(query, 'orphanDependents');
  const errors: FieldError[] = [];
  if (options.orphanDependents !== undefined && policy !== undefined) {
    errors.push(fieldInvalid('propagationPolicy', policy, 'orphanDependents and deletionPropagation cannot be both set'));
  }
  if (policy !== undefined && !PROPAGATION_POLICIES.includes(policy)) {
    errors.push(fieldNotSupported('propagationPolicy', policy, [...PROPAGATION_POLICIES, 'nil']));
  }
  refuse('DeleteOptions', [...errors, ...dryRunErrors(dryRun)]);
  if (policy !== undefined) options.propagationPolicy = policy as PropagationPolicy;
  if (dryRun.length > 0) options.dryRun = true;
  // The deprecated orphanDependents names a policy.
  if (options.orphanDependents !== undefined) options.propagationPolicy = options.orphanDependents ? 'Orphan' : 'Background';
  return options;
}

/** resourceVersion as a number; "" → undefined. The reference fails "abc" with a strconv message. */
export function parseResourceVersion(text: string | null): number | undefined {
  if (text === null || text === '') return undefined;
  if (!/^\d+$/.test(text)) {
    throw badRequest(`resourceVersion: Invalid value: "${text}": strconv.ParseUint: parsing "${text}": invalid syntax`);
  }
  return Number(text);
}

export function decodeGetOptions(query: URLSearchParams): GetOptions {
  const resourceVersion = parseResourceVersion(query.get('resourceVersion'));
  return resourceVersion === undefined ? {} : { resourceVersion };
}

/**
 * ListOptions of a list, watch or deletecollection of `info`: the selectors (the field selector
 * checked against what the resource's version can select), then resourceVersion and
 * resourceVersionMatch, limit and continue, and a watch's own parameters. With APIListChunking off
 * (`paging` false) limit and continue are read and left out, as the reference's storage ignores them.
 */
export function decodeListOptions(query: URLSearchParams, info: ResourceInfo, watch: boolean, paging = true): ListOptions {
  // The integers first, in ListOptions' field order: the reference converts the query before it
  // parses selectors, and the first bad value fails it.
  const timeout = int64Parameter(query, 'timeoutSeconds');
  const limit = int64Parameter(query, 'limit');
  const options: ListOptions = {};
  const labelText = query.get('labelSelector');
  const fieldText = query.get('fieldSelector');
  const labels = labelText ? parseLabelSelector(labelText) : undefined;
  const fields = fieldText ? parseFieldSelector(fieldText) : undefined;
  if (fields) checkFieldSelector(fields, info.definition.hooks.selectableFields);
  if (labels && !labels.empty) options.labelSelector = labels;
  if (fields && !fields.empty) options.fieldSelector = fields;

  const rvText = query.get('resourceVersion') ?? '';
  const match = query.get('resourceVersionMatch') ?? '';
  const continueText = query.get('continue') ?? '';
  if (match !== '') {
    const errors: FieldError[] = [];
    if (watch) errors.push(fieldForbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch'));
    if (rvText === '') errors.push(fieldForbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    if (continueText !== '') errors.push(fieldForbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    if (!MATCH_VALUES.includes(match)) errors.push(fieldNotSupported('resourceVersionMatch', match, [...MATCH_VALUES]));
    else if (match === 'Exact' && rvText === '0') errors.push(fieldForbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    refuse('ListOptions', errors);
    options.resourceVersionMatch = match as 'Exact' | 'NotOlderThan';
  }
  const rv = parseResourceVersion(rvText);
  if (rv !== undefined) options.resourceVersion = rv;
  if (paging && limit !== undefined && limit > 0) options.limit = limit;
  if (paging && continueText !== '') {
    if (rv !== undefined && rv !== 0) throw badRequest('specifying resource version is not allowed when using continue');
    options.continue = decodeContinue(continueText);
  }
  if (watch) options.watch = true;
  if (queryFlag(query, 'allowWatchBookmarks')) options.allowWatchBookmarks = true;
  if (timeout !== undefined && timeout > 0) options.timeoutSeconds = timeout;
  return options;
}

/**
 * The integers of a pod connect request's options, checked as the reference converts them before
 * it looks at the pod: PodLogOptions' sinceSeconds, tailLines and limitBytes (strconv.ParseInt),
 * PodPortForwardOptions' ports (comma-separated, strconv.ParseUint of 16 bits). 400 on a bad one.
 */
export function checkPodConnectOptions(subresource: string, query: URLSearchParams): void {
  if (subresource === 'log') {
    for (const name of ['sinceSeconds', 'tailLines', 'limitBytes']) int64Parameter(query, name);
  } else if (subresource === 'portforward') {
    for (const value of query.getAll('ports')) {
      for (const port of value.split(',')) {
        const parsed = parseGoInt(port, 16, false);
        if ('error' in parsed) throw badRequest(`cannot convert to []int32: ${parsed.error}`);
      }
    }
  }
}
