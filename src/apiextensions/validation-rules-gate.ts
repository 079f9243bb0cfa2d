// CustomResourceValidationExpressions off, as apiextensions-apiserver 1.25 has it: a CRD written
// then loses its x-kubernetes-validations (every version's schema), unless the CRD it replaces
// already had some; and custom resources are served without evaluating any rule a stored CRD has.
import { isObject, type JsonObject, copyJson } from '../json.js';
import type { CrdSchemaEngine } from './schema-engine.js';

const RULES = 'x-kubernetes-validations';

/** Where the reference looks for rules below a schema: properties, additionalProperties, items, dependencies. */
function childSchemas(schema: JsonObject): JsonObject[] {
  const children: JsonObject[] = [];
  const properties = schema['properties'];
  if (isObject(properties)) children.push(...Object.values(properties).filter(isObject));
  if (isObject(schema['additionalProperties'])) children.push(schema['additionalProperties']);
  const items = schema['items'];
  if (isObject(items)) children.push(items);
  else if (Array.isArray(items)) children.push(...items.filter(isObject));
  const dependencies = schema['dependencies'];
  if (isObject(dependencies)) children.push(...Object.values(dependencies).filter(isObject));
  return children;
}

function dropRules(schema: JsonObject): void {
  delete schema[RULES];
  for (const child of childSchemas(schema)) dropRules(child);
}

function hasRules(schema: JsonObject): boolean {
  return schema[RULES] !== undefined || childSchemas(schema).some(hasRules);
}

/** The version schemas of a CRD object. */
function versionSchemas(crd: JsonObject): JsonObject[] {
  const spec = crd['spec'];
  const versions = isObject(spec) && Array.isArray(spec['versions']) ? spec['versions'] : [];
  return versions.flatMap((v) => (isObject(v) && isObject(v['schema']) && isObject(v['schema']['openAPIV3Schema']) ? [v['schema']['openAPIV3Schema']] : []));
}

/** The reference's dropDisabledFields for a CRD written while the gate is off (`old`: the CRD it replaces). */
export function dropDisabledValidationRules(crd: JsonObject, old: JsonObject | undefined): void {
  if (old && versionSchemas(old).some(hasRules)) return;
  for (const schema of versionSchemas(crd)) dropRules(schema);
}

/** The engine serving custom resources without their CRD's rules. */
export function withoutValidationRules(engine: CrdSchemaEngine): CrdSchemaEngine {
  return {
    ...engine,
    compile(schema, kind) {
      if (!schema) return engine.compile(schema, kind);
      const copy = copyJson(schema);
      dropRules(copy);
      return engine.compile(copy, kind);
    },
  };
}
