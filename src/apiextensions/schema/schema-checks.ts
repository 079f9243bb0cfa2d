// The checks a CustomResourceDefinition's schema gets when the CRD is written (the reference's
// validateCustomResourceDefinitionValidation and ValidateCustomResourceDefinitionOpenAPISchema):
// what OpenAPI features are refused ($ref, uniqueItems, definitions, …), where defaults may be,
// the x-kubernetes-* extensions' rules, then structural-ness and valid, pruned defaults.
import { type FieldError, fieldForbidden, fieldInvalid, fieldRequired } from '../../errors.js';
import { isObject } from '../../json.js';
import { validateDefaults } from './defaults-check.js';
import { childPath, goSyntaxValue, indexPath, invalidValue, keyPath, notSupportedValue } from './render.js';
import { MAX_SCHEMA_DEPTH, isSet, schemaDepth, toStructural, validateStructural } from './structural.js';
import { CREATE_OPTIONS, type JSONSchemaProps, type SchemaCheckOptions } from './types.js';

const OPENAPI_V3_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const META_FIELDS = new Set(['metadata', 'kind', 'apiVersion']);

/** What the walk knows of the place it is at (the reference's specStandardValidator). */
interface Place {
  allowDefaults: boolean;
  disallowDefaultsReason: string;
  insideResourceMeta: boolean;
}

const goStrings = (v: unknown): string => (Array.isArray(v) ? `[]string{${v.map((x) => JSON.stringify(String(x))).join(', ')}}` : '[]string(nil)');

function standardErrors(s: JSONSchemaProps, path: string, place: Place, opts: SchemaCheckOptions): FieldError[] {
  const errs: FieldError[] = [];
  if (opts.requireValidPropertyType && typeof s.type === 'string' && s.type !== '' && !OPENAPI_V3_TYPES.includes(s.type)) {
    errs.push(notSupportedValue(childPath(path, 'type'), s.type, OPENAPI_V3_TYPES));
  }
  if (s.default !== undefined && s.default !== null && !place.allowDefaults) {
    errs.push(fieldForbidden(childPath(path, 'default'), place.disallowDefaultsReason ? `must not be set ${place.disallowDefaultsReason}` : 'must not be set'));
  }
  if (isSet(s.id)) errs.push(fieldForbidden(childPath(path, 'id'), 'id is not supported'));
  if (s.additionalItems !== undefined && s.additionalItems !== null) errs.push(fieldForbidden(childPath(path, 'additionalItems'), 'additionalItems is not supported'));
  if (isSet(s.patternProperties)) errs.push(fieldForbidden(childPath(path, 'patternProperties'), 'patternProperties is not supported'));
  if (isSet(s.definitions)) errs.push(fieldForbidden(childPath(path, 'definitions'), 'definitions is not supported'));
  if (s.dependencies !== undefined && s.dependencies !== null) errs.push(fieldForbidden(childPath(path, 'dependencies'), 'dependencies is not supported'));
  if (s.$ref !== undefined && s.$ref !== null) errs.push(fieldForbidden(childPath(path, '$ref'), '$ref is not supported'));
  if (s.type === 'null') errs.push(fieldForbidden(childPath(path, 'type'), 'type cannot be set to null, use nullable as an alternative'));
  if (Array.isArray(s.items) && s.items.length) errs.push(fieldForbidden(childPath(path, 'items'), 'items must be a schema object and not an array'));
  if (place.insideResourceMeta && s['x-kubernetes-embedded-resource'] === true) {
    errs.push(fieldForbidden(childPath(path, 'x-kubernetes-embedded-resource'), 'must not be used inside of resource meta'));
  }
  return errs;
}

function extensionErrors(s: JSONSchemaProps, path: string, opts: SchemaCheckOptions): FieldError[] {
  const errs: FieldError[] = [];
  const type = typeof s.type === 'string' ? s.type : '';
  const listType = s['x-kubernetes-list-type'];
  const mapType = s['x-kubernetes-map-type'];
  const mapKeys = Array.isArray(s['x-kubernetes-list-map-keys']) ? s['x-kubernetes-list-map-keys'] : [];
  const items = isObject(s.items) ? (s.items as JSONSchemaProps) : undefined;
  if (s['x-kubernetes-preserve-unknown-fields'] === false) errs.push(fieldInvalid(childPath(path, 'x-kubernetes-preserve-unknown-fields'), false, 'must be true or undefined'));
  if (mapType !== undefined && type !== 'object') {
    if (type === '') errs.push(fieldRequired(childPath(path, 'type'), 'must be object if x-kubernetes-map-type is specified'));
    else errs.push(invalidValue(childPath(path, 'type'), type, 'must be object if x-kubernetes-map-type is specified'));
  }
  if (mapType !== undefined && mapType !== 'atomic' && mapType !== 'granular') errs.push(notSupportedValue(childPath(path, 'x-kubernetes-map-type'), mapType, ['atomic', 'granular']));
  if (listType !== undefined && type !== 'array') {
    if (type === '') errs.push(fieldRequired(childPath(path, 'type'), 'must be array if x-kubernetes-list-type is specified'));
    else errs.push(invalidValue(childPath(path, 'type'), type, 'must be array if x-kubernetes-list-type is specified'));
  } else if (opts.requireAtomicSetType && listType === 'set' && items) {
    if (items.type === 'array' && items['x-kubernetes-list-type'] !== undefined && items['x-kubernetes-list-type'] !== 'atomic') {
      errs.push(invalidValue(childPath(childPath(path, 'items'), 'x-kubernetes-list-type'), items['x-kubernetes-list-type'], 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    }
    if (items.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
      // The reference prints the item's list type here (a nil pointer when unset).
      errs.push({ type: 'FieldValueInvalid', field: childPath(childPath(path, 'items'), 'x-kubernetes-map-type'), detail: `Invalid value: ${items['x-kubernetes-list-type'] === undefined ? 'null' : JSON.stringify(items['x-kubernetes-list-type'])}: must be atomic as item of a list with x-kubernetes-list-type=set` });
    }
  }
  if (listType !== undefined && listType !== 'atomic' && listType !== 'set' && listType !== 'map') errs.push(notSupportedValue(childPath(path, 'x-kubernetes-list-type'), listType, ['atomic', 'set', 'map']));
  if (mapKeys.length) {
    if (listType === undefined) errs.push(fieldRequired(childPath(path, 'x-kubernetes-list-type'), 'must be map if x-kubernetes-list-map-keys is non-empty'));
    else if (listType !== 'map') errs.push(invalidValue(childPath(path, 'x-kubernetes-list-type'), listType, 'must be map if x-kubernetes-list-map-keys is non-empty'));
  }
  if (listType === 'map') {
    if (!mapKeys.length) errs.push(fieldRequired(childPath(path, 'x-kubernetes-list-map-keys'), 'must not be empty if x-kubernetes-list-type is map'));
    if (s.items === undefined || s.items === null) errs.push(fieldRequired(childPath(path, 'items'), 'must have a schema if x-kubernetes-list-type is map'));
    if (Array.isArray(s.items)) errs.push({ type: 'FieldValueInvalid', field: childPath(path, 'items'), detail: `Invalid value: ${goSyntaxValue(s.items)}: must only have a single schema if x-kubernetes-list-type is map` });
    if (items && items.type !== 'object') errs.push(invalidValue(childPath(childPath(path, 'items'), 'type'), items.type ?? '', "must be object if parent array's x-kubernetes-list-type is map"));
    if (items && items.type === 'object') {
      const seen = new Set<string>();
      const props = isObject(items.properties) ? items.properties : {};
      for (const k of mapKeys) {
        const p = Object.hasOwn(props, k) ? props[k] : undefined;
        if (p) {
          if (p.type === 'array' || p.type === 'object') {
            errs.push(invalidValue(childPath(keyPath(childPath(childPath(path, 'items'), 'properties'), k), 'type'), items.type, "must be a scalar type if parent array's x-kubernetes-list-type is map"));
          }
        } else {
          errs.push({ type: 'FieldValueInvalid', field: childPath(path, 'x-kubernetes-list-map-keys'), detail: `Invalid value: ${goStrings(mapKeys)}: entries must all be names of item properties` });
        }
        if (seen.has(k)) errs.push({ type: 'FieldValueInvalid', field: childPath(path, 'x-kubernetes-list-map-keys'), detail: `Invalid value: ${goStrings(mapKeys)}: must not contain duplicate entries` });
        seen.add(k);
      }
    }
  }
  if (opts.requireMapListKeysMapSetValidation && items && (listType === 'set' || listType === 'map')) {
    if (items.nullable === true) errs.push(fieldForbidden(childPath(childPath(path, 'items'), 'nullable'), `cannot be nullable when x-kubernetes-list-type is ${listType}`));
    if (listType === 'map') {
      const required = new Set(Array.isArray(items.required) ? items.required : []);
      const props = isObject(items.properties) ? items.properties : {};
      for (const k of mapKeys) {
        const p = Object.hasOwn(props, k) ? props[k] : undefined;
        if (!p) continue;
        const at = keyPath(childPath(childPath(path, 'items'), 'properties'), k);
        if (!required.has(k) && (p.default === undefined || p.default === null)) {
          errs.push(fieldRequired(childPath(at, 'default'), 'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property'));
        }
        if (p.nullable === true) errs.push(fieldForbidden(childPath(at, 'nullable'), 'this property is in x-kubernetes-list-map-keys, so it cannot be nullable'));
      }
    }
  }
  const rules = Array.isArray(s['x-kubernetes-validations']) ? s['x-kubernetes-validations'] : [];
  rules.forEach((r, i) => {
    const at = indexPath(childPath(path, 'x-kubernetes-validations'), i);
    const rule = typeof r?.rule === 'string' ? r.rule.trim() : '';
    const message = typeof r?.message === 'string' ? r.message : '';
    if (!rule) errs.push(fieldRequired(childPath(at, 'rule'), 'rule is not specified'));
    else if (message.length && !message.trim()) errs.push(fieldInvalid(childPath(at, 'message'), message, 'message must be non-empty if specified'));
    else if (/[\n\r]/.test(message.trim())) errs.push(fieldInvalid(childPath(at, 'message'), message, 'message must not contain line breaks'));
    else if (/[\n\r]/.test(rule) && !message.trim()) errs.push(fieldRequired(childPath(at, 'message'), 'message must be specified if rule contains line breaks'));
    // TODO(CEL): compile the rule, its cost and oldSelf rules (not in this module yet).
  });
  return errs;
}

function openAPISchemaErrors(s: JSONSchemaProps, path: string, place: Place, isRoot: boolean, opts: SchemaCheckOptions): FieldError[] {
  if (!isObject(s)) return [];
  const errs = standardErrors(s, path, place, opts);
  if (s.uniqueItems === true) errs.push(fieldForbidden(childPath(path, 'uniqueItems'), 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  const properties = isObject(s.properties) ? (s.properties as Record<string, JSONSchemaProps>) : {};
  const hasProperties = Object.keys(properties).length > 0;
  if (s.additionalProperties !== undefined && s.additionalProperties !== null) {
    if (hasProperties && (s.additionalProperties === false || isObject(s.additionalProperties))) {
      errs.push(fieldForbidden(childPath(path, 'additionalProperties'), 'additionalProperties and properties are mutual exclusive'));
    }
    const sub = place.insideResourceMeta ? { ...place, allowDefaults: false, disallowDefaultsReason: 'inside additionalProperties applying to object metadata' } : place;
    if (isObject(s.additionalProperties)) errs.push(...openAPISchemaErrors(s.additionalProperties as JSONSchemaProps, childPath(path, 'additionalProperties'), sub, false, opts));
  }
  for (const [k, p] of Object.entries(properties)) {
    let sub = place;
    if ((isRoot || s['x-kubernetes-embedded-resource'] === true) && META_FIELDS.has(k)) {
      sub = { ...sub, insideResourceMeta: true };
      if (isRoot) sub = { ...sub, allowDefaults: false, disallowDefaultsReason: `in top-level ${k}` };
    }
    errs.push(...openAPISchemaErrors(p, keyPath(childPath(path, 'properties'), k), sub, false, opts));
  }
  if (isObject(s.not)) errs.push(...openAPISchemaErrors(s.not as JSONSchemaProps, childPath(path, 'not'), place, false, opts));
  for (const name of ['allOf', 'oneOf', 'anyOf'] as const) {
    (Array.isArray(s[name]) ? s[name]! : []).forEach((x, i) => errs.push(...openAPISchemaErrors(x, indexPath(childPath(path, name), i), place, false, opts)));
  }
  for (const [k, d] of Object.entries((isObject(s.definitions) ? s.definitions : {}) as Record<string, JSONSchemaProps>)) errs.push(...openAPISchemaErrors(d, keyPath(childPath(path, 'definitions'), k), place, false, opts));
  if (isObject(s.items)) errs.push(...openAPISchemaErrors(s.items as JSONSchemaProps, childPath(path, 'items'), place, false, opts));
  if (Array.isArray(s.items)) s.items.forEach((x, i) => errs.push(...openAPISchemaErrors(x, indexPath(childPath(path, 'items'), i), place, false, opts)));
  for (const [k, d] of Object.entries(isObject(s.dependencies) ? s.dependencies : {})) {
    if (isObject(d)) errs.push(...openAPISchemaErrors(d as JSONSchemaProps, keyPath(childPath(path, 'dependencies'), k), place, false, opts));
  }
  errs.push(...extensionErrors(s, path, opts));
  return errs;
}

/** JSONSchemaProps' fields in Go's order, with the ones allowed at the root when status is a subresource. */
const ROOT_FIELDS: Array<[keyof JSONSchemaProps, string]> = [
  ['id', 'ID'], ['$schema', 'Schema'], ['$ref', 'Ref'], ['description', 'Description'], ['type', 'Type'], ['nullable', 'Nullable'],
  ['format', 'Format'], ['title', 'Title'], ['default', 'Default'], ['maximum', 'Maximum'], ['exclusiveMaximum', 'ExclusiveMaximum'],
  ['minimum', 'Minimum'], ['exclusiveMinimum', 'ExclusiveMinimum'], ['maxLength', 'MaxLength'], ['minLength', 'MinLength'],
  ['pattern', 'Pattern'], ['maxItems', 'MaxItems'], ['minItems', 'MinItems'], ['uniqueItems', 'UniqueItems'], ['multipleOf', 'MultipleOf'],
  ['enum', 'Enum'], ['maxProperties', 'MaxProperties'], ['minProperties', 'MinProperties'], ['required', 'Required'], ['items', 'Items'],
  ['allOf', 'AllOf'], ['oneOf', 'OneOf'], ['anyOf', 'AnyOf'], ['not', 'Not'], ['properties', 'Properties'],
  ['additionalProperties', 'AdditionalProperties'], ['patternProperties', 'PatternProperties'], ['dependencies', 'Dependencies'],
  ['additionalItems', 'AdditionalItems'], ['definitions', 'Definitions'], ['externalDocs', 'ExternalDocs'], ['example', 'Example'],
  ['x-kubernetes-preserve-unknown-fields', 'XPreserveUnknownFields'], ['x-kubernetes-embedded-resource', 'XEmbeddedResource'],
  ['x-kubernetes-int-or-string', 'XIntOrString'], ['x-kubernetes-list-map-keys', 'XListMapKeys'], ['x-kubernetes-list-type', 'XListType'],
  ['x-kubernetes-map-type', 'XMapType'], ['x-kubernetes-validations', 'XValidations'],
];
const ALLOWED_AT_ROOT = ['Description', 'Type', 'Format', 'Title', 'Maximum', 'ExclusiveMaximum', 'Minimum', 'ExclusiveMinimum', 'MaxLength', 'MinLength', 'Pattern', 'MaxItems', 'MinItems', 'UniqueItems', 'MultipleOf', 'Required', 'Items', 'Properties', 'ExternalDocs', 'Example', 'XPreserveUnknownFields', 'XValidations'];

function statusRootErrors(s: JSONSchemaProps, path: string): FieldError[] {
  for (const [key, goName] of ROOT_FIELDS) {
    const v = s[key];
    const zero = key === 'x-kubernetes-preserve-unknown-fields' || key === '$ref' || key === 'additionalProperties' || key === 'additionalItems' || key === 'not' || key === 'default' || key === 'example'
      ? v === undefined || v === null
      : !isSet(v);
    if (zero) continue;
    if (goName === 'Type') {
      if (s.type !== 'object') return [invalidValue(childPath(path, 'openAPIV3Schema.type'), s.type, 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled')];
      continue;
    }
    // The reference prints the whole schema with %#v here; its Go struct syntax is not reproduced.
    if (!ALLOWED_AT_ROOT.includes(goName)) return [{ type: 'FieldValueInvalid', field: childPath(path, 'openAPIV3Schema'), detail: `Invalid value: ${goSyntaxValue(s)}: only [${ALLOWED_AT_ROOT.join(' ')}] fields are allowed at the root of the schema if the status subresource is enabled` }];
  }
  return [];
}

/** Options of validateVersionSchema. */
export interface VersionSchemaOptions {
  /** The version has the status subresource (its root schema may then say less). */
  statusEnabled?: boolean;
  /** The rules in force (CREATE_OPTIONS by default; an update relaxes what the old object broke). */
  options?: SchemaCheckOptions;
}

/**
 * Every check of one version's `schema` (`spec.versions[i].schema`, given as `path`): the
 * openAPIV3Schema's fields and extensions, structural-ness, valid and pruned defaults, and a
 * nesting bound (MAX_SCHEMA_DEPTH, checked first, without recursion).
 */
export function validateVersionSchema(openAPIV3Schema: JSONSchemaProps | undefined, path: string, { statusEnabled = false, options = CREATE_OPTIONS }: VersionSchemaOptions = {}): FieldError[] {
  if (!isObject(openAPIV3Schema)) return [];
  const root = childPath(path, 'openAPIV3Schema');
  if (schemaDepth(openAPIV3Schema) > MAX_SCHEMA_DEPTH) return [fieldForbidden(root, `must not be nested deeper than ${MAX_SCHEMA_DEPTH} levels`)];
  const errs: FieldError[] = [];
  if (statusEnabled) errs.push(...statusRootErrors(openAPIV3Schema, path));
  if (openAPIV3Schema.nullable === true) errs.push(fieldForbidden(childPath(path, 'openAPIV3Schema.nullable'), 'nullable cannot be true at the root'));
  const initErrors: FieldError[] = [];
  const converted = toStructural(openAPIV3Schema);
  if ('error' in converted) initErrors.push(fieldInvalid(root, '', converted.error));
  else {
    const structural = validateStructural(converted.structural, root);
    errs.push(...(structural.length ? structural : validateDefaults(converted.structural, root, options.requirePrunedDefaults)));
  }
  const place: Place = { allowDefaults: options.allowDefaults, disallowDefaultsReason: '', insideResourceMeta: false };
  errs.push(...openAPISchemaErrors(openAPIV3Schema, root, place, true, options));
  // Conversion errors repeat what the checks above say: shown only when nothing else is.
  return errs.length ? errs : initErrors;
}
