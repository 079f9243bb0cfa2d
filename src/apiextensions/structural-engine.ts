// The CRD schema engine on the schema library (./schema/): the reference's schema checks and
// NonStructuralSchema condition, and per served version: defaulting, pruning (reporting the
// unknown fields for field validation), value validation, the published OpenAPI (v2 and v3 forms)
// and the field manager's topology (list types, map keys) for server-side apply.
import { badRequest, type FieldError } from '../errors.js';
import { isObject, type JsonObject } from '../json.js';
import {
  applyDefaults, CREATE_OPTIONS, fieldManagerSchema, publishedSchema, pruneCustomResource, structuralSchemaErrors, toStructural,
  validateCustomResource, validateVersionSchema, type JSONSchemaProps, type SchemaCheckOptions, type Structural,
} from './schema/index.js';
import type { CrdSchemaEngine, CrdVersionSchema, SchemaContext, VersionKind } from './schema-engine.js';

/**
 * Rules an update relaxes when the version's schema is unchanged: the old CRD passed with it, so
 * whatever it breaks it broke already (the reference relaxes each rule the old object broke).
 */
const UNCHANGED_OPTIONS: SchemaCheckOptions = {
  ...CREATE_OPTIONS,
  requirePrunedDefaults: false,
  requireAtomicSetType: false,
  requireMapListKeysMapSetValidation: false,
  requireValidPropertyType: false,
};

const OPEN_API_V3_SCHEMA = '.openAPIV3Schema';
/** `spec.versions[0].schema.openAPIV3Schema` → `spec.versions[0].schema` (validateVersionSchema adds the last step). */
const parentPath = (path: string): string => (path.endsWith(OPEN_API_V3_SCHEMA) ? path.slice(0, -OPEN_API_V3_SCHEMA.length) : path);

const asProps = (schema: JsonObject): JSONSchemaProps => schema as JSONSchemaProps;

/** A version without a usable schema: nothing defaulted, pruned or refused, an object of any content. */
function unstructuredVersion(kind: VersionKind): CrdVersionSchema {
  return {
    default() {},
    prune: () => [],
    validate: () => [],
    publish: (form) => publishedSchema(undefined, kind, form),
    topology: () => undefined,
  };
}

/**
 * Puts what pruning made of `obj[key]` back into the object that was there: the store holds on
 * to an object's metadata while it prepares a write.
 */
function keepIdentity(obj: JsonObject, key: string, before: unknown): void {
  const after = obj[key];
  if (!isObject(before) || !isObject(after) || before === after) return;
  for (const k of Object.keys(before)) if (!Object.hasOwn(after, k)) delete before[k];
  Object.assign(before, after);
  obj[key] = before;
}

function structuralVersion(schema: JSONSchemaProps, structural: Structural, kind: VersionKind): CrdVersionSchema {
  const published = new Map<'v2' | 'v3', JsonObject>();
  let topology: JsonObject | undefined;
  return {
    default(obj) {
      applyDefaults(obj, structural);
    },
    prune(obj) {
      const metadata = obj['metadata'];
      const { unknownFields, error } = pruneCustomResource(obj, structural);
      keepIdentity(obj, 'metadata', metadata);
      // Metadata that cannot be decoded fails the decoding, as the reference's decoder does.
      if (error) throw badRequest(`${kind.kind} in version "${kind.version}" cannot be handled as a ${kind.kind}: ${error.field}: ${error.detail}`);
      return unknownFields;
    },
    validate: (obj, old) => validateCustomResource(obj, schema, structural, old),
    publish(form) {
      let out = published.get(form);
      if (!out) published.set(form, (out = publishedSchema(structural, kind, form)));
      return out;
    },
    topology: () => (topology ??= fieldManagerSchema(structural)),
  };
}

export const structuralSchemaEngine: CrdSchemaEngine = {
  checkSchema(schema: JsonObject, path: string, context: SchemaContext): FieldError[] {
    return validateVersionSchema(asProps(schema), parentPath(path), { statusEnabled: context.statusSubresource, options: context.unchanged ? UNCHANGED_OPTIONS : CREATE_OPTIONS });
  },
  nonStructural(schema: JsonObject, path: string): string[] {
    return structuralSchemaErrors(asProps(schema), path).map((e) => `${e.field}: ${e.detail}`);
  },
  compile(schema: JsonObject | undefined, kind: VersionKind): CrdVersionSchema {
    if (!schema) return unstructuredVersion(kind);
    const converted = toStructural(asProps(schema));
    // A CRD is stored only with a structural schema; one that is not is served unstructured.
    if ('error' in converted || structuralSchemaErrors(asProps(schema), 'openAPIV3Schema').length) return unstructuredVersion(kind);
    return structuralVersion(asProps(schema), converted.structural, kind);
  },
};
