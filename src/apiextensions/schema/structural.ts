// Structural schemas (the reference's pkg/apiserver/schema): conversion of a JSONSchemaProps to
// a structural node tree, and the rules that make a schema structural — a type on every node
// (but under x-kubernetes-int-or-string or -preserve-unknown-fields), nothing but value checks
// inside allOf/anyOf/oneOf/not, metadata at the root limited to name and generateName, embedded
// resources typed object with properties, and every property named in a junctor also declared.
import { type FieldError, fieldForbidden, fieldInvalid, fieldRequired } from '../../errors.js';
import { isObject } from '../../json.js';
import { childPath, invalidValue, keyPath, indexPath } from './render.js';
import type { JSONSchemaProps, Structural } from './types.js';

/**
 * How deep schemas may nest (properties, items, additionalProperties and junctors each count a
 * level). Every walk over a schema or over a value follows the schema, so this bounds their
 * recursion; real CRDs stay far below (the Prometheus operator's deepest is about 30).
 */
export const MAX_SCHEMA_DEPTH = 128;

/** Fields NewStructural refuses, with its messages (it stops at the first). */
const UNSUPPORTED: Array<[keyof JSONSchemaProps, string]> = [
  ['id', 'id'], ['$schema', 'schema'], ['$ref', '$ref'], ['patternProperties', 'patternProperties'],
  ['dependencies', 'dependencies'], ['additionalItems', 'additionalItems'], ['definitions', 'definitions'],
];

/** Set in the Go sense: a non-empty string, true, a non-empty list or map, any number. */
export function isSet(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (isObject(v)) return Object.keys(v).length > 0;
  return true;
}

function unsupportedField(s: JSONSchemaProps): string | undefined {
  for (const [key, name] of UNSUPPORTED) {
    const v = s[key];
    if (key === 'additionalItems' ? v !== undefined && v !== null : isSet(v)) return `OpenAPIV3Schema '${name}' is not supported`;
  }
  if (Array.isArray(s.items)) return "OpenAPIV3Schema 'items' must be a schema, but is an array";
  if (s['x-kubernetes-preserve-unknown-fields'] === false) return "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined";
  return undefined;
}

/** The first field NewStructural refuses anywhere in the schema (junctors included). */
function firstUnsupported(s: JSONSchemaProps, depth: number): string | undefined {
  if (depth > MAX_SCHEMA_DEPTH) return `OpenAPIV3Schema must not be nested deeper than ${MAX_SCHEMA_DEPTH} levels`;
  const own = unsupportedField(s);
  if (own) return own;
  for (const sub of subschemas(s)) {
    const err = firstUnsupported(sub, depth + 1);
    if (err) return err;
  }
  return undefined;
}

/** The direct subschemas of a schema (properties, items, additionalProperties, junctors). */
export function subschemas(s: JSONSchemaProps): JSONSchemaProps[] {
  const out: JSONSchemaProps[] = [];
  if (isObject(s.items)) out.push(s.items as JSONSchemaProps);
  if (Array.isArray(s.items)) out.push(...s.items.filter(isObject));
  if (isObject(s.properties)) out.push(...Object.values(s.properties).filter(isObject));
  if (isObject(s.additionalProperties)) out.push(s.additionalProperties as JSONSchemaProps);
  for (const list of [s.allOf, s.anyOf, s.oneOf]) if (Array.isArray(list)) out.push(...list.filter(isObject));
  if (isObject(s.not)) out.push(s.not as JSONSchemaProps);
  return out;
}

/**
 * The nesting depth of a schema, measured without recursion (so that a hostile schema is refused
 * before anything recursive looks at it). Stops counting past `limit`.
 */
export function schemaDepth(root: JSONSchemaProps, limit = MAX_SCHEMA_DEPTH): number {
  let deepest = 0;
  const stack: Array<[JSONSchemaProps, number]> = [[root, 1]];
  while (stack.length) {
    const [s, d] = stack.pop()!;
    if (d > deepest) deepest = d;
    if (deepest > limit) return deepest;
    for (const sub of subschemas(s)) stack.push([sub, d + 1]);
  }
  return deepest;
}

function buildNode(s: JSONSchemaProps): Structural {
  const node: Structural = {
    type: typeof s.type === 'string' ? s.type : '',
    format: typeof s.format === 'string' ? s.format : '',
    description: typeof s.description === 'string' ? s.description : '',
    title: typeof s.title === 'string' ? s.title : '',
    nullable: s.nullable === true,
    default: s.default === null ? undefined : s.default,
    preserveUnknownFields: s['x-kubernetes-preserve-unknown-fields'] === true,
    embeddedResource: s['x-kubernetes-embedded-resource'] === true,
    intOrString: s['x-kubernetes-int-or-string'] === true,
    source: s,
  };
  if (typeof s['x-kubernetes-list-type'] === 'string') node.listType = s['x-kubernetes-list-type'];
  if (Array.isArray(s['x-kubernetes-list-map-keys']) && s['x-kubernetes-list-map-keys'].length) node.listMapKeys = s['x-kubernetes-list-map-keys'];
  if (typeof s['x-kubernetes-map-type'] === 'string') node.mapType = s['x-kubernetes-map-type'];
  if (isObject(s.items)) node.items = buildNode(s.items as JSONSchemaProps);
  if (isObject(s.properties) && Object.keys(s.properties).length) {
    node.properties = new Map(Object.entries(s.properties).map(([k, v]) => [k, buildNode(isObject(v) ? v : {})]));
  }
  if (s.additionalProperties !== undefined && s.additionalProperties !== null) {
    node.additionalProperties = isObject(s.additionalProperties)
      ? { allows: true, schema: buildNode(s.additionalProperties as JSONSchemaProps) }
      : { allows: s.additionalProperties === true };
  }
  return node;
}

/**
 * NewStructural: the structural form of a schema, or the reference's error when the schema uses
 * what structural schemas cannot hold ($ref, definitions, items as an array, …).
 */
export function toStructural(schema: JSONSchemaProps): { structural: Structural } | { error: string } {
  const error = firstUnsupported(schema, 1);
  return error ? { error } : { structural: buildNode(schema) };
}

type Level = 'root' | 'item' | 'field';

const TYPE_REQUIRED: Record<Level, string> = {
  root: 'must not be empty at the root',
  item: 'must not be empty for specified array items',
  field: 'must not be empty for specified object fields',
};

/** A junctor branch that holds only `type: <t>` (the int-or-string patterns). */
function onlyType(s: JSONSchemaProps | undefined, t: string): boolean {
  if (!isObject(s) || s.type !== t) return false;
  return Object.entries(s).every(([k, v]) => k === 'type' || !isSet(v));
}

/** anyOf: [{type: integer}, {type: string}], exactly. */
function isIntOrStringAnyOf(anyOf: JSONSchemaProps[] | undefined): boolean {
  return Array.isArray(anyOf) && anyOf.length === 2 && onlyType(anyOf[0], 'integer') && onlyType(anyOf[1], 'string');
}

const list = <T>(v: T[] | undefined): T[] => (Array.isArray(v) ? v : []);

/** The value validations of a node (and of junctor branches): the junctors and the pattern. */
function valueValidationErrors(v: JSONSchemaProps, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!skipAnyOf) list(v.anyOf).forEach((x, i) => errs.push(...nestedErrors(x, false, indexPath(childPath(path, 'anyOf'), i))));
  list(v.allOf).forEach((x, i) => errs.push(...nestedErrors(x, skipFirstAllOfAnyOf && i === 0, indexPath(childPath(path, 'allOf'), i))));
  list(v.oneOf).forEach((x, i) => errs.push(...nestedErrors(x, false, indexPath(childPath(path, 'oneOf'), i))));
  if (isObject(v.not)) errs.push(...nestedErrors(v.not as JSONSchemaProps, false, childPath(path, 'not')));
  if (typeof v.pattern === 'string' && v.pattern !== '') {
    const err = patternError(v.pattern);
    if (err) errs.push(fieldInvalid(childPath(path, 'pattern'), v.pattern, `must be a valid regular expression, but isn't: ${err}`));
  }
  return errs;
}

/** Why a pattern does not compile (as a JavaScript regular expression; RE2's wording differs). */
export function patternError(pattern: string): string | undefined {
  try {
    new RegExp(pattern, 'u');
    return undefined;
  } catch (e) {
    try {
      new RegExp(pattern);
      return undefined;
    } catch {
      return `error parsing regexp: ${(e as Error).message}`;
    }
  }
}

/** What a schema inside allOf/anyOf/oneOf/not may not say, with the reference's messages. */
const FORBIDDEN_IN_JUNCTORS: Array<[keyof JSONSchemaProps, string]> = [
  ['type', 'must be empty to be structural'],
  ['additionalProperties', 'must be undefined to be structural'],
  ['default', 'must be undefined to be structural'],
  ['title', 'must be empty to be structural'],
  ['description', 'must be empty to be structural'],
  ['nullable', 'must be false to be structural'],
  ['x-kubernetes-preserve-unknown-fields', 'must be false to be structural'],
  ['x-kubernetes-embedded-resource', 'must be false to be structural'],
  ['x-kubernetes-int-or-string', 'must be false to be structural'],
  ['x-kubernetes-list-map-keys', 'must be empty to be structural'],
  ['x-kubernetes-list-type', 'must be undefined to be structural'],
  ['x-kubernetes-map-type', 'must be undefined to be structural'],
  ['x-kubernetes-validations', 'must be empty to be structural'],
];

function forbiddenInJunctor(s: JSONSchemaProps, key: keyof JSONSchemaProps): boolean {
  const v = s[key];
  // Pointers and non-empty values count; `x-kubernetes-preserve-unknown-fields: false` never gets here.
  if (key === 'additionalProperties' || key === 'x-kubernetes-list-type' || key === 'x-kubernetes-map-type') return v !== undefined && v !== null;
  if (key === 'default') return v !== undefined && v !== null;
  return isSet(v);
}

function nestedErrors(s: JSONSchemaProps, skipAnyOf: boolean, path: string): FieldError[] {
  if (!isObject(s)) return [];
  const errs = valueValidationErrors(s, skipAnyOf, false, path);
  if (isObject(s.items)) errs.push(...nestedErrors(s.items as JSONSchemaProps, false, childPath(path, 'items')));
  for (const [k, p] of Object.entries((isObject(s.properties) ? s.properties : {}) as Record<string, JSONSchemaProps>)) {
    errs.push(...nestedErrors(p, false, keyPath(childPath(path, 'properties'), k)));
  }
  for (const [key, why] of FORBIDDEN_IN_JUNCTORS) if (forbiddenInJunctor(s, key)) errs.push(fieldForbidden(childPath(path, key), why));
  if (isObject(s.properties) && Object.hasOwn(s.properties, 'metadata')) {
    errs.push(fieldForbidden(keyPath(childPath(path, 'properties'), 'metadata'), 'must not be specified in a nested context'));
  }
  return errs;
}

const VALUE_VALIDATION_KEYS: Array<keyof JSONSchemaProps> = [
  'format', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems',
  'uniqueItems', 'multipleOf', 'enum', 'maxProperties', 'minProperties', 'required', 'allOf', 'oneOf', 'anyOf', 'not',
];

/** Whether the root's metadata says anything but name and generateName (its type and default aside). */
function metadataSaysMore(m: Structural): boolean {
  const names = m.properties ? [...m.properties.keys()] : [];
  const onlyNames = names.length > 0 && names.length <= 2 && names.every((n) => n === 'name' || n === 'generateName');
  if (names.length > 0 && !onlyNames) return true;
  if (m.description || m.title || m.nullable || m.items || m.additionalProperties) return true;
  if (m.preserveUnknownFields || m.embeddedResource || m.intOrString || m.listType !== undefined || m.listMapKeys || m.mapType !== undefined) return true;
  if (isSet(m.source['x-kubernetes-validations'])) return true;
  return VALUE_VALIDATION_KEYS.some((k) => isSet(m.source[k]));
}

function metadataErrors(m: Structural, checkMetadata: boolean, level: Level, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (checkMetadata && m.type !== 'object') errs.push(invalidValue(childPath(path, 'type'), m.type, 'must be object'));
  if (level === 'root' && metadataSaysMore(m)) {
    errs.push(fieldForbidden(path, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
  }
  return errs;
}

function invariantErrors(s: Structural, level: Level, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (s.type === 'array' && !s.items) errs.push(fieldRequired(childPath(path, 'items'), 'must be specified'));
  if (s.items) errs.push(...invariantErrors(s.items, 'item', childPath(path, 'items')));
  for (const [k, p] of s.properties ?? []) errs.push(...invariantErrors(p, 'field', keyPath(childPath(path, 'properties'), k)));
  if (s.additionalProperties) {
    if (level === 'root') errs.push(fieldForbidden(childPath(path, 'additionalProperties'), 'must not be used at the root'));
    if (s.additionalProperties.schema) errs.push(...invariantErrors(s.additionalProperties.schema, 'field', childPath(path, 'additionalProperties')));
  }
  if (s.intOrString && s.preserveUnknownFields) errs.push(fieldInvalid(childPath(path, 'x-kubernetes-preserve-unknown-fields'), true, 'must be false if x-kubernetes-int-or-string is true'));
  if (s.intOrString && s.embeddedResource) errs.push(fieldInvalid(childPath(path, 'x-kubernetes-embedded-resource'), true, 'must be false if x-kubernetes-int-or-string is true'));

  const skipAnyOf = isIntOrStringAnyOf(s.source.anyOf);
  const skipFirstAllOfAnyOf = Array.isArray(s.source.allOf) && s.source.allOf.length >= 1 && isIntOrStringAnyOf(s.source.allOf[0]?.anyOf);
  errs.push(...valueValidationErrors(s.source, skipAnyOf, skipFirstAllOfAnyOf, path));

  const checkMetadata = level === 'root' || s.embeddedResource;
  if (s.embeddedResource && s.type !== 'object') {
    if (s.type === '') errs.push(fieldRequired(childPath(path, 'type'), 'must be object if x-kubernetes-embedded-resource is true'));
    else errs.push(invalidValue(childPath(path, 'type'), s.type, 'must be object if x-kubernetes-embedded-resource is true'));
  } else if (s.type === '' && !s.intOrString && !s.preserveUnknownFields) {
    errs.push(fieldRequired(childPath(path, 'type'), TYPE_REQUIRED[level]));
  }
  if (s.embeddedResource && s.additionalProperties) errs.push(fieldForbidden(childPath(path, 'additionalProperties'), 'must not be used if x-kubernetes-embedded-resource is set'));
  if (level === 'root' && s.type !== '' && s.type !== 'object') errs.push(invalidValue(childPath(path, 'type'), s.type, 'must be object at the root'));
  for (const meta of ['kind', 'apiVersion']) {
    const p = s.properties?.get(meta);
    if (p && checkMetadata && p.type !== 'string') errs.push(invalidValue(childPath(keyPath(childPath(path, 'properties'), meta), 'type'), p.type, 'must be string'));
  }
  const metadata = s.properties?.get('metadata');
  if (metadata) errs.push(...metadataErrors(metadata, checkMetadata, level, keyPath(childPath(path, 'properties'), 'metadata')));
  if (s.embeddedResource && !s.preserveUnknownFields && !s.properties) {
    errs.push(fieldRequired(childPath(path, 'properties'), 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'));
  }
  return errs;
}

function completenessErrors(v: JSONSchemaProps, s: Structural | undefined, sPath: string, vPath: string): FieldError[] {
  if (!s) return [fieldRequired(sPath, `because it is defined in ${vPath}`)];
  const errs: FieldError[] = [];
  if (isObject(v.not)) errs.push(...nestedCompleteness(v.not as JSONSchemaProps, s, sPath, childPath(vPath, 'not')));
  for (const name of ['allOf', 'anyOf', 'oneOf'] as const) {
    list(v[name]).forEach((x, i) => errs.push(...nestedCompleteness(x, s, sPath, indexPath(childPath(vPath, name), i))));
  }
  return errs;
}

function nestedCompleteness(v: JSONSchemaProps, s: Structural, sPath: string, vPath: string): FieldError[] {
  if (!isObject(v)) return [];
  const errs = completenessErrors(v, s, sPath, vPath);
  if (isObject(v.items)) {
    const items = v.items as JSONSchemaProps;
    errs.push(...(s.items ? nestedCompleteness(items, s.items, childPath(sPath, 'items'), childPath(vPath, 'items')) : [fieldRequired(childPath(sPath, 'items'), `because it is defined in ${childPath(vPath, 'items')}`)]));
  }
  for (const [k, p] of Object.entries((isObject(v.properties) ? v.properties : {}) as Record<string, JSONSchemaProps>)) {
    const sp = keyPath(childPath(sPath, 'properties'), k);
    const vp = keyPath(childPath(vPath, 'properties'), k);
    const declared = s.properties?.get(k);
    errs.push(...(declared ? nestedCompleteness(p, declared, sp, vp) : [fieldRequired(sp, `because it is defined in ${vp}`)]));
  }
  return errs;
}

/** Errors as the reference sorts them: by their text. */
function sortByText(errs: FieldError[]): FieldError[] {
  const text = (e: FieldError) => `${e.field}: ${e.detail}`;
  return errs.sort((a, b) => (text(a) < text(b) ? -1 : text(a) > text(b) ? 1 : 0));
}

/** ValidateStructural: the invariants of a structural schema at `path`, sorted as the reference sorts them. */
export function validateStructural(s: Structural, path: string): FieldError[] {
  return sortByText([...invariantErrors(s, 'root', path), ...completenessErrors(s.source, s, path, path)]);
}

/**
 * Whether `schema` (a CRD version's openAPIV3Schema) is structural: its conversion error as one
 * Invalid error at `path`, else the structural invariants' errors (none when it is structural).
 */
export function structuralSchemaErrors(schema: JSONSchemaProps, path: string): FieldError[] {
  if (schemaDepth(schema) > MAX_SCHEMA_DEPTH) return [fieldForbidden(path, `must not be nested deeper than ${MAX_SCHEMA_DEPTH} levels`)];
  const converted = toStructural(schema);
  if ('error' in converted) return [fieldInvalid(path, '', converted.error)];
  return validateStructural(converted.structural, path);
}
