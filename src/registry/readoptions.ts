// How a list is read (see SPEC "Resource version semantics"): its decoded ListOptions turned into a
// plan for the watch cache, what its selectors select, the continue token's format, and the
// answers for versions too new or too old.
import { objectFields } from '../api/selectors.js';
import type { SelectableFieldSpec } from '../api/selectable-fields.js';
import { readOnce } from '../encoding/derived.js';
import type { ContinueToken, ListOptions } from '../api/options.js';
import { badRequest, StatusError } from '../errors.js';
import { isObject, type JsonObject } from '../json.js';
import type { ResourceInfo } from './definitions.js';
import { metadataOf } from './objects.js';

export type ReadPlan =
  /**
   * The current state, at least as new as `notOlderThan` (wait for it when the store is behind);
   * `consistent` (no resourceVersion asked for): as new as every write made before the read, on
   * any server sharing the store.
   */
  | { kind: 'current'; notOlderThan?: number; limit?: number; afterKey?: string; consistent?: true }
  /** Exactly the state at `revision` (410 when it is no longer retained). */
  | { kind: 'exact'; revision: number; limit?: number; afterKey?: string /* continue: start key, inclusive */ };

export type { ContinueToken };

/** The first error Go's encoding/json reports for a text, for continue-token messages. */
function goJsonFirstError(text: string): string {
  const t = text.trimStart();
  const c = t[0];
  if (c === undefined) return 'unexpected end of JSON input';
  const literal = (word: string): string | undefined => {
    for (let i = 1; i < word.length; i++) {
      if (t[i] === undefined) return 'unexpected end of JSON input';
      if (t[i] !== word[i]) return `invalid character '${t[i]}' in literal ${word} (expecting '${word[i]}')`;
    }
    return undefined;
  };
  if (c === 'n') return literal('null') ?? 'json: cannot unmarshal null';
  if (c === 't') return literal('true') ?? 'json: cannot unmarshal bool';
  if (c === 'f') return literal('false') ?? 'json: cannot unmarshal bool';
  if (!'{["-0123456789'.includes(c)) {
    const shown = c.charCodeAt(0) < 0x20 || c.charCodeAt(0) > 0x7e ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c;
    return `invalid character '${shown}' looking for beginning of value`;
  }
  return 'continue key is not valid';
}

export function decodeContinue(token: string): ContinueToken {
  const bytes = Buffer.from(token, 'base64');
  // Decoded as Latin-1 so that a stray byte is quoted as the reference quotes it.
  const text = bytes.toString('latin1');
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw badRequest(`invalid continue token: continue key is not valid: ${goJsonFirstError(text)}`);
  }
  if (!isObject(parsed) || parsed['v'] !== 'meta.k8s.io/v1' || typeof parsed['rv'] !== 'number' || !Number.isInteger(parsed['rv']) || parsed['rv'] < -1 || typeof parsed['start'] !== 'string') {
    throw badRequest('invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
  if (parsed['rv'] === 0) throw badRequest('invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  return { revision: parsed['rv'], start: parsed['start'] };
}

export function encodeContinue(revision: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: revision, start })).toString('base64');
}

/** How to serve a list with these options from the watch cache. */
export function readPlan(options: ListOptions): ReadPlan {
  const { resourceVersion: rv, resourceVersionMatch: match, limit, continue: token } = options;
  if (token) {
    // rv -1: the token a 410 hands out to carry on inconsistently, from the latest state.
    if (token.revision === -1) return { kind: 'current', limit, afterKey: token.start };
    return { kind: 'exact', revision: token.revision, limit, afterKey: token.start };
  }
  if (rv === undefined) return { kind: 'current', limit, consistent: true };
  // "0": any version — from the cache, whole (the reference's cache does not page).
  if (rv === 0) return { kind: 'current' };
  if (match === 'Exact') return { kind: 'exact', revision: rv, limit };
  if (match === 'NotOlderThan' || limit === undefined) return { kind: 'current', notOlderThan: rv, limit };
  return { kind: 'exact', revision: rv, limit };
}

/** What the options' label and field selectors select; undefined when they select everything. */
export function selectionOf(info: ResourceInfo, options: Pick<ListOptions, 'labelSelector' | 'fieldSelector'>): ((obj: JsonObject) => boolean) | undefined {
  const { labelSelector: labels, fieldSelector: fields } = options;
  if (!labels && !fields) return undefined;
  const selectable = info.definition.hooks.selectableFields;
  return (obj) => {
    if (labels && !labels.matches(metadataOf(obj)['labels'] as Record<string, string> | undefined)) return false;
    if (fields && !fields.matches(objectFields(selectable, obj))) return false;
    return true;
  };
}

interface SelectorInputs {
  labels: Record<string, string> | undefined;
  fields: Record<string, string>;
}

/** One reader per resource's selectable fields, so that what it read stays valid for every version. */
const inputReaders = new Map<SelectableFieldSpec | undefined, (obj: JsonObject) => SelectorInputs>();

function inputReader(spec: SelectableFieldSpec | undefined): (obj: JsonObject) => SelectorInputs {
  let read = inputReaders.get(spec);
  if (!read) {
    read = (obj) => ({ labels: (isObject(obj['metadata']) ? obj['metadata']['labels'] : undefined) as Record<string, string> | undefined, fields: objectFields(spec, obj) });
    inputReaders.set(spec, read);
  }
  return read;
}

/**
 * The same selection on stored bytes: what the selectors read of each version is read once and
 * kept with it (derived.ts), so that lists selecting by label or field (pods by node) parse no
 * object they have seen before.
 */
export function storedSelectionOf(info: ResourceInfo, options: Pick<ListOptions, 'labelSelector' | 'fieldSelector'>): ((value: Buffer) => boolean) | undefined {
  const { labelSelector: labels, fieldSelector: fields } = options;
  if (!labels && !fields) return undefined;
  const read = inputReader(info.definition.hooks.selectableFields);
  return (value) => {
    const inputs = readOnce(value, read);
    if (labels && !labels.matches(inputs.labels)) return false;
    if (fields && !fields.matches(inputs.fields)) return false;
    return true;
  };
}

/** An index the watch cache can answer a selection from: a field it indexes, selected as `field=value`. */
export interface IndexedSelection {
  field: string;
  value: string;
  /** What the index files each stored version under. */
  of: (value: Buffer) => string;
}

export function indexedSelectionOf(info: ResourceInfo, options: Pick<ListOptions, 'fieldSelector'>): IndexedSelection | undefined {
  const indexed = info.definition.hooks.indexedFields;
  if (!indexed || !options.fieldSelector) return undefined;
  const term = options.fieldSelector.requirements.find((r) => r.op === '=' && indexed.includes(r.field));
  if (!term) return undefined;
  const read = inputReader(info.definition.hooks.selectableFields);
  // A field an object lacks compares as the empty string, as the selector's match does.
  return { field: term.field, value: term.value, of: (value) => readOnce(value, read).fields[term.field] ?? '' };
}

export const TOO_LARGE_WAIT_MS = 3000;

export function tooLargeResourceVersion(requested: number, current: number): StatusError {
  return new StatusError(504, 'Timeout', `Timeout: Too large resource version: ${requested}, current: ${current}`, {
    causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
    retryAfterSeconds: 1,
  }, { 'Retry-After': '1' });
}

export function tooOldResourceVersion(requested: number, oldest: number): StatusError {
  return new StatusError(410, 'Expired', `too old resource version: ${requested} (${oldest})`);
}

export const CONTINUE_EXPIRED_MESSAGE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';
