// A custom resource's validation against its version's schema, in the reference strategy's
// order: the OpenAPI schema (kube-openapi), embedded resources, list sets and maps. (The object's
// own metadata is checked by the generic store; CEL rules are not checked yet.)
import type { FieldError } from '../../errors.js';
import { validateEmbeddedResources } from './embedded.js';
import { validateListSetsAndMaps } from './listtype.js';
import type { JSONSchemaProps, Structural } from './types.js';
import { validateValue } from './validate.js';

/** The errors of custom resource `obj` under `schema` (openAPIV3Schema) and its structural form. */
export function validateCustomResource(obj: Record<string, unknown>, schema: JSONSchemaProps, structural: Structural): FieldError[] {
  return [...validateValue(obj, schema), ...validateEmbeddedResources(obj, structural), ...validateListSetsAndMaps(obj, structural)];
}
