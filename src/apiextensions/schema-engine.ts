// The narrow place where CustomResourceDefinitions meet their schema engine (structural checks,
// value validation, pruning, defaulting, the published OpenAPI). Everything else of
// apiextensions (the CRD's own validation, its status controllers, serving custom resources)
// calls only this interface; until the engine is merged, the permissive engine stands in:
// every schema is accepted and structural, nothing is defaulted or pruned, every value is valid,
// and a version's schema is published (and read by the field manager) as given.
import type { FieldError } from '../errors.js';
import type { JsonObject } from '../json.js';

/** What the CRD says around a version's schema, which changes the rules the schema must follow. */
export interface SchemaContext {
  /** The version has the status subresource (only some keywords are allowed at the root then). */
  statusSubresource: boolean;
  /** The update's old CRD already had this schema unchanged (ratcheting: rules new since are not applied). */
  unchanged?: boolean;
}

/** One served version's schema, compiled once per CRD generation. */
export interface CrdVersionSchema {
  /** Fills in the schema's defaults, in place (on write, and on read from storage). */
  default(obj: JsonObject): void;
  /** Drops the fields the schema does not know, in place; answers their paths (for field validation Warn/Strict). Throws a 400 when metadata cannot be decoded. */
  prune(obj: JsonObject): string[];
  /** The errors of an object (`old`: the stored object, for transition rules), with the reference's paths and messages. */
  validate(obj: JsonObject, old: JsonObject | undefined): FieldError[];
  /** The kind's schema as /openapi/v2 or /openapi/v3 publishes it (apiVersion, kind, metadata and its group-version-kind included). */
  publish(form: 'v2' | 'v3'): JsonObject | undefined;
  /** The schema the field manager reads list types and map keys from (registerSchema's form); undefined: unstructured. */
  topology(): JsonObject | undefined;
}

/** The group, version and kind a version's schema is compiled for (its published schema names them). */
export interface VersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface CrdSchemaEngine {
  /** The errors of a version's `openAPIV3Schema` at `path` (e.g. `spec.versions[0].schema.openAPIV3Schema`). */
  checkSchema(schema: JsonObject, path: string, context: SchemaContext): FieldError[];
  /** Why a schema is not structural (the NonStructuralSchema condition's message parts); empty when it is. */
  nonStructural(schema: JsonObject, path: string): string[];
  /** The version's schema ready to serve; `schema` undefined when the version has none. */
  compile(schema: JsonObject | undefined, kind: VersionKind): CrdVersionSchema;
}

/** Accepts every schema, changes and refuses nothing, publishes the schema as given. */
export const permissiveSchemaEngine: CrdSchemaEngine = {
  checkSchema: () => [],
  nonStructural: () => [],
  compile: (schema) => ({
    default() {},
    prune: () => [],
    validate: () => [],
    publish: () => undefined,
    topology: () => schema,
  }),
};
