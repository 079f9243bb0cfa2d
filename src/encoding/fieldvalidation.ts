// Server-side field validation of write bodies (fieldValidation=Ignore|Warn|Strict, Warn by
// default): what the reference's decoding of a body reports, and how each write path answers.
//
//   - Unknown fields (not in the kind's schema) and duplicate fields (a key twice in one
//     object) are dropped silently (Ignore), sent as one warning each (Warn), or refused all
//     together (Strict). Unknown fields are always dropped from what is stored.
//   - A value of the wrong type is an error whatever the level.
//   - POST/PUT answer 400 ("Deployment in version "v1" cannot be handled as a Deployment: …");
//     merge and JSON patches 422 on the patched document, strategic merge patches 422 on the
//     patch; server-side apply checks types itself (500) and reports duplicated keys as YAML.
import { badRequest, StatusError } from '../errors.js';
import { isKnownKind, schemaFor } from '../api/schema.js';
import type { GroupVersionKind } from '../api/schema.js';
import { goValue } from './go-format.js';
import { ANY, goTypeOf, sliceOf, STRING, structType, type GoType } from './go-types.js';
import { settleNulls } from './go-nulls.js';
import { strictDecode } from './strict-json.js';
import { unstructuredDecode } from './unstructured-decode.js';
import { yamlDuplicateKeys } from './yaml-duplicates.js';
import { type JsonObject } from '../json.js';

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

/** The request's level; no value (or an empty one) is Warn, the 1.25 default. */
export function fieldValidationOf(query: URLSearchParams): FieldValidation {
  const v = query.get('fieldValidation');
  return v === 'Ignore' || v === 'Strict' ? v : 'Warn';
}

/** The Go type a kind decodes into (interface{} for kinds without a built-in schema). */
export function targetOf(gvk: GroupVersionKind): GoType {
  return goTypeOf(schemaFor(gvk));
}

/** Removes the fields at `paths` (object keys and list indexes) from `obj`. */
function dropFields(obj: unknown, paths: Array<Array<string | number>>): void {
  for (const path of paths) {
    let at: unknown = obj;
    for (let i = 0; i < path.length - 1 && at !== null && typeof at === 'object'; i++) {
      at = (at as Record<string | number, unknown>)[path[i]!];
    }
    const last = path[path.length - 1]!;
    if (at !== null && typeof at === 'object' && !Array.isArray(at) && typeof last === 'string') delete (at as JsonObject)[last];
  }
}

function strictMessage(errors: string[]): string {
  return `strict decoding error: ${errors.join(', ')}`;
}

/** go-yaml's aggregate of its complaints, one error among the strict ones. */
function yamlErrors(lines: string[]): string {
  return `yaml: unmarshal errors:\n  ${lines.join('\n  ')}`;
}

export interface ObjectBody {
  /** The body as sent. */
  text: string;
  yaml: boolean;
  /** The decoded body (JSON.parse / YAML); unknown fields are removed from it. */
  object: JsonObject;
  /** The kind the endpoint serves (named in messages as what the body cannot be handled as). */
  endpoint: GroupVersionKind;
  /**
   * A kind decoded as unstructured (custom resources): no type is checked while decoding, and
   * this prunes the decoded object and answers the unknown fields' paths.
   */
  pruneUnknown?: UnknownFieldPruner;
}

/** Prunes a decoded unstructured object in place; answers the paths of the fields dropped. */
export type UnknownFieldPruner = (obj: JsonObject) => string[];

const unknownFieldErrors = (paths: string[]): string[] => paths.map((p) => `unknown field ${JSON.stringify(p)}`);

/**
 * POST/PUT: checks an object body as the reference's strict decoder does. Throws 400 for a
 * mistyped value (any level) or, under Strict, for unknown/duplicate fields; pushes one
 * warning each under Warn; drops unknown fields.
 */
export function checkObjectBody(body: ObjectBody, level: FieldValidation, warnings: string[]): void {
  const { object, endpoint } = body;
  const apiVersion = typeof object['apiVersion'] === 'string' ? object['apiVersion'] : undefined;
  const kind = typeof object['kind'] === 'string' ? object['kind'] : endpoint.kind;
  const version = apiVersion !== undefined ? apiVersion.slice(apiVersion.indexOf('/') + 1) : endpoint.version;
  // A body of another version of the kind decodes into that version's type.
  const own = { group: endpoint.group, version, kind };
  const target = body.pruneUnknown ? ANY : targetOf(isKnownKind(own) ? own : endpoint);
  const strict = level !== 'Ignore';
  const result = strictDecode(body.yaml ? JSON.stringify(object) : body.text, target, strict);
  const refuse = (why: string) => badRequest(`${kind} in version "${version}" cannot be handled as a ${endpoint.kind}: ${why}`);
  if (result.error !== undefined) throw refuse(result.error);
  dropFields(object, result.unknownPaths);
  if (!body.pruneUnknown && (body.yaml || body.text.includes('null'))) settleNulls(object, target);
  // An unstructured kind's unknown fields come after the decoder's own complaints (repeated keys).
  const strictErrors = body.pruneUnknown ? [...result.strict, ...unknownFieldErrors(body.pruneUnknown(object))] : result.strict;
  if (!strict) return;
  const duplicated = body.yaml ? yamlDuplicateKeys(body.text) : [];
  if (level === 'Warn') {
    warnings.push(...duplicated, ...strictErrors);
    return;
  }
  const errors = duplicated.length ? [yamlErrors(duplicated), ...strictErrors] : strictErrors;
  if (errors.length) throw refuse(strictMessage(errors));
}

/** strconv.Quote, as %q prints a string in a field error. */
function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (c >= 0x20 && c < 0x7f) out += ch;
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x09) out += '\\t';
    else if (c === 0x0d) out += '\\r';
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else if (c === 0x2028 || c === 0x2029) out += `\\u${c.toString(16)}`;
    else out += ch;
  }
  return `${out}"`;
}

/** 422 on the patch, as the reference words it (a field error on "patch" of an unnamed kind). */
function invalidPatch(value: string, why: string): StatusError {
  const detail = `Invalid value: ${goQuote(value)}: ${why}`;
  return new StatusError(422, 'Invalid', ` "" is invalid: patch: ${detail}`, { causes: [{ reason: 'FieldValueInvalid', message: detail, field: 'patch' }] });
}

/** json.Marshal of a patched document: keys sorted (maps), HTML characters escaped. */
function goJson(v: unknown): string {
  const sorted = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(sorted);
    if (x !== null && typeof x === 'object') {
      const o = x as JsonObject;
      const out: JsonObject = {};
      for (const k of Object.keys(o).sort()) if (o[k] !== undefined) out[k] = sorted(o[k]);
      return out;
    }
    return x;
  };
  return JSON.stringify(sorted(v)).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A JSON patch as the reference decodes it strictly: a list of {op, path, from, value}. */
const JSON_PATCH: GoType = sliceOf(structType('handlers.jsonPatchOp', { op: STRING, path: STRING, from: STRING, value: ANY }));
/** Merge and strategic merge patches: any JSON object. */
const PATCH_MAP: GoType = { kind: 'map', name: 'map[string]interface {}', field: () => undefined, elem: () => ANY };

export type PatchType = 'merge' | 'strategic' | 'json';

/**
 * PATCH (merge, strategic merge, JSON patch): checks the patch document and then the patched
 * object. `patched` runs the patch inside the registry's retry loop (as the reference does,
 * so that a missing object is a 404 before any complaint about the patch).
 */
export class PatchFieldCheck {
  private patchStrict?: string[];
  private readonly target: GoType;

  constructor(
    private readonly type: PatchType,
    private readonly text: string,
    private readonly patch: unknown,
    gvk: GroupVersionKind,
    private readonly level: FieldValidation,
    private readonly warnings: string[],
    /** An unstructured kind's pruning (see ObjectBody.pruneUnknown). */
    private readonly pruneUnknown?: UnknownFieldPruner,
  ) {
    this.target = pruneUnknown ? ANY : targetOf(gvk);
  }

  /** Strict errors of the patch document itself (duplicate keys; unknown keys of JSON patch operations). */
  private checkPatch(): string[] {
    if (this.patchStrict) return this.patchStrict;
    if (this.level === 'Ignore') return (this.patchStrict = []);
    const result = strictDecode(this.text, this.type === 'json' ? JSON_PATCH : PATCH_MAP);
    if (result.error !== undefined) throw badRequest(this.type === 'strategic' ? result.error : `error decoding patch: ${result.error}`);
    this.patchStrict = this.type === 'json' ? result.strict.map((e) => `json patch ${e}`) : result.strict;
    return this.patchStrict;
  }

  /** Applies the patch (`run`), then checks the result; unknown fields are dropped from it. */
  patched(run: () => unknown): unknown {
    const patchStrict = this.checkPatch();
    const result = run();
    if (result === null || typeof result !== 'object' || Array.isArray(result)) return result;
    const strict = this.level !== 'Ignore';
    let errors: string[];
    let shown: () => string;
    if (this.type === 'strategic') {
      // The patched map is converted field by field; a failure shows the patch itself.
      const r = unstructuredDecode(result, this.target);
      shown = () => goValue(this.patch, true);
      if (r.error !== undefined) throw invalidPatch(shown(), r.error);
      dropFields(result, r.unknownPaths);
      if (!this.pruneUnknown) settleNulls(result, this.target);
      errors = strict ? [...patchStrict, ...r.unknown] : [];
    } else {
      // The patched document is encoded and decoded again; a failure shows that document.
      const text = goJson(result);
      shown = () => text;
      const r = strictDecode(text, this.target, strict);
      if (r.error !== undefined) throw invalidPatch(text, r.error);
      dropFields(result, r.unknownPaths);
      if (!this.pruneUnknown && text.includes('null')) settleNulls(result, this.target);
      const unknown = this.pruneUnknown ? unknownFieldErrors(this.pruneUnknown(result as JsonObject)) : [];
      errors = strict ? [...patchStrict, ...r.strict, ...unknown] : [];
    }
    if (this.level === 'Warn') this.warnings.push(...errors);
    else if (this.level === 'Strict' && errors.length) throw invalidPatch(shown(), strictMessage(errors));
    return result;
  }
}

/**
 * Server-side apply: keys repeated in the applied YAML. Under Warn they become warnings;
 * under Strict the returned 400 refuses the request (once the apply itself would succeed).
 */
export function applyDuplicates(text: string, level: FieldValidation, warnings: string[]): StatusError | undefined {
  if (level === 'Ignore') return undefined;
  const duplicated = yamlDuplicateKeys(text);
  if (!duplicated.length) return undefined;
  if (level === 'Warn') {
    warnings.push(...duplicated);
    return undefined;
  }
  return badRequest(`error strict decoding YAML: error converting YAML to JSON: ${yamlErrors(duplicated)}`);
}
