// A custom resource's validation against its version's schema, in the reference strategy's
// order: the OpenAPI schema (kube-openapi), embedded resources, list sets and maps, then the CEL
// rules (x-kubernetes-validations). (The object's own metadata is checked by the generic store.)
import type { FieldError } from '../../errors.js';
import { compiledRulesFor, validateRules } from '../cel/index.js';
import { validateEmbeddedResources } from './embedded.js';
import { validateListSetsAndMaps } from './listtype.js';
import type { JSONSchemaProps, Structural } from './types.js';
import { validateValue } from './validate.js';

/**
 * The errors of custom resource `obj` under `schema` (openAPIV3Schema) and its structural form;
 * `oldObj` is the stored object on updates (CEL transition rules run only then).
 */
export function validateCustomResource(obj: Record<string, unknown>, schema: JSONSchemaProps, structural: Structural, oldObj?: Record<string, unknown>): FieldError[] {
  return [
    ...validateValue(obj, schema), ...validateEmbeddedResources(obj, structural), ...validateListSetsAndMaps(obj, structural),
    ...validateRules(compiledRulesFor(structural), obj, oldObj),
  ];
}
