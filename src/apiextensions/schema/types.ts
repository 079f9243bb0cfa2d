// The two shapes a CRD's schema takes here: JSONSchemaProps, as written in
// `spec.versions[*].schema.openAPIV3Schema` (apiextensions.k8s.io/v1), and Structural, the form
// pruning, defaulting, list-type checks and the field manager work on (the reference's
// structural schema: types and extensions per node, value validations kept aside).

/** apiextensions.k8s.io/v1 JSONSchemaProps, as decoded from JSON (every field optional). */
export interface JSONSchemaProps {
  id?: string;
  $schema?: string;
  $ref?: string;
  description?: string;
  type?: string;
  format?: string;
  title?: string;
  default?: unknown;
  maximum?: number;
  exclusiveMaximum?: boolean;
  minimum?: number;
  exclusiveMinimum?: boolean;
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  maxItems?: number;
  minItems?: number;
  uniqueItems?: boolean;
  multipleOf?: number;
  enum?: unknown[];
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  /** A schema, or (not allowed, reported) an array of schemas. */
  items?: JSONSchemaProps | JSONSchemaProps[];
  allOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  patternProperties?: Record<string, JSONSchemaProps>;
  dependencies?: Record<string, JSONSchemaProps | string[]>;
  additionalItems?: JSONSchemaProps | boolean;
  definitions?: Record<string, JSONSchemaProps>;
  externalDocs?: { description?: string; url?: string };
  example?: unknown;
  nullable?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-validations'?: Array<{ rule?: string; message?: string }>;
}

/** additionalProperties of a structural node: `false`/`true`, or a schema for the values. */
export interface StructuralAdditionalProperties {
  allows: boolean;
  schema?: Structural;
}

/**
 * A structural schema node. `properties` is a Map so that keys like `__proto__` stay plain keys.
 * `source` is the JSONSchemaProps the node was made from (its value validations: enum, pattern,
 * allOf/anyOf/oneOf/not, … are read from there).
 */
export interface Structural {
  type: string;
  format: string;
  description: string;
  title: string;
  nullable: boolean;
  /** The default, undefined when none (a JSON `null` default counts as none, as in the reference). */
  default: unknown;
  properties?: Map<string, Structural>;
  items?: Structural;
  additionalProperties?: StructuralAdditionalProperties;
  preserveUnknownFields: boolean;
  embeddedResource: boolean;
  intOrString: boolean;
  listType?: string;
  listMapKeys?: string[];
  mapType?: string;
  source: JSONSchemaProps;
}

/** The CRD-level options of the reference's schema checks (all true for a create). */
export interface SchemaCheckOptions {
  /** Whether `default` may be set (apiextensions.k8s.io/v1: yes). */
  allowDefaults: boolean;
  /** Defaults must come out of pruning unchanged. */
  requirePrunedDefaults: boolean;
  /** Items of `x-kubernetes-list-type: set` must be atomic. */
  requireAtomicSetType: boolean;
  /** Keys of list maps must be required or defaulted, set and map items not nullable. */
  requireMapListKeysMapSetValidation: boolean;
  /** `type` must be one of the OpenAPI v3 types. */
  requireValidPropertyType: boolean;
}

/** The options of a new CRD: every rule on. Updates relax a rule only when the old object broke it already. */
export const CREATE_OPTIONS: SchemaCheckOptions = {
  allowDefaults: true,
  requirePrunedDefaults: true,
  requireAtomicSetType: true,
  requireMapListKeysMapSetValidation: true,
  requireValidPropertyType: true,
};
