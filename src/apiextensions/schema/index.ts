// The schema engine of CustomResourceDefinitions (see README.md in this folder): structural
// schemas and the CRD's schema checks, validation, pruning and defaulting of custom resources,
// their published OpenAPI, and the field manager's view of their schema.
export type { JSONSchemaProps, Structural, SchemaCheckOptions } from './types.js';
export { CREATE_OPTIONS } from './types.js';
export { MAX_SCHEMA_DEPTH, schemaDepth, structuralSchemaErrors, toStructural, validateStructural } from './structural.js';
export { validateVersionSchema, type VersionSchemaOptions } from './schema-checks.js';
export { validateDefaults } from './defaults-check.js';
export { MAX_VALIDATION_STEPS, validateValue } from './validate.js';
export { validateListSetsAndMaps } from './listtype.js';
export { validateEmbeddedResources } from './embedded.js';
export { validateCustomResource } from './custom-resource.js';
export { pruneCustomResource, pruneNonNullableNulls, pruneValue, type PruneResult } from './prune.js';
export { applyDefaults } from './defaulting.js';
export { publishedSchema } from './openapi.js';
export { fieldManagerSchema } from './topology.js';
export { isSupportedFormat, matchesFormat } from './formats.js';
