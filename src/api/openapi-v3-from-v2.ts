// OpenAPI v3 paths made from OpenAPI v2 paths, for the served group-versions that have no vendored
// v3 document (apiregistration.k8s.io/v1): kubectl 1.29+ reads /openapi/v3 and falls back to v2 for a
// group-version missing there. The rules are those that turn the vendored v2 document's paths into
// the vendored v3 documents' paths, exactly (test/api/openapi-v3-from-v2.test.ts checks every one):
// - a non-body parameter keeps name, in, description, required; its type, format, items, … go into
//   its `schema`;
// - the body parameter becomes `requestBody.content`, one entry per `consumes` type, each with the
//   body's schema (no `required`, as the reference writes it);
// - a response keeps its description; its schema goes into `content`, one entry per `produces` type;
// - `consumes`, `produces` and `schemes` go; everything else (tags, operationId, x-kubernetes-…) stays;
// - `#/definitions/` references become `#/components/schemas/`.
import { isObject, type JsonObject } from '../json.js';

const PARAMETER_SCHEMA_KEYS = new Set([
  'type', 'format', 'items', 'collectionFormat', 'default', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum',
  'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'enum', 'multipleOf',
]);

const OPERATION_KEYS_DROPPED = new Set(['consumes', 'produces', 'schemes', 'parameters', 'responses']);

/** A v2 value with its `#/definitions/` references pointing at `#/components/schemas/`. */
export function withV3References<T>(value: T): T {
  return JSON.parse(JSON.stringify(value).replaceAll('"#/definitions/', '"#/components/schemas/')) as T;
}

function parameter(p: JsonObject): JsonObject {
  const out: JsonObject = {};
  const schema: JsonObject = {};
  for (const [k, v] of Object.entries(p)) {
    if (PARAMETER_SCHEMA_KEYS.has(k)) schema[k] = v;
    else out[k] = v;
  }
  if (Object.keys(schema).length) out['schema'] = withV3References(schema);
  return out;
}

function mediaTypes(types: unknown, schema: unknown): JsonObject {
  const content: JsonObject = {};
  for (const t of Array.isArray(types) ? types : []) content[String(t)] = { schema: withV3References(schema) };
  return content;
}

function operation(op: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(op)) if (!OPERATION_KEYS_DROPPED.has(k)) out[k] = v;
  const parameters: JsonObject[] = [];
  for (const p of Array.isArray(op['parameters']) ? op['parameters'] : []) {
    if (!isObject(p)) continue;
    if (p['in'] === 'body') out['requestBody'] = { content: mediaTypes(op['consumes'], p['schema']) };
    else parameters.push(parameter(p));
  }
  if (parameters.length) out['parameters'] = parameters;
  const responses: JsonObject = {};
  for (const [code, r] of Object.entries(isObject(op['responses']) ? op['responses'] : {})) {
    if (!isObject(r)) continue;
    const response: JsonObject = {};
    for (const [k, v] of Object.entries(r)) if (k !== 'schema') response[k] = v;
    if ('schema' in r) response['content'] = mediaTypes(op['produces'], r['schema']);
    responses[code] = response;
  }
  out['responses'] = responses;
  return out;
}

/** One v2 path item as v3. */
export function v3PathItem(item: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(item)) {
    if (k === 'parameters' && Array.isArray(v)) out[k] = v.filter(isObject).map(parameter);
    else if (isObject(v) && !k.startsWith('x-')) out[k] = operation(v);
    else out[k] = v;
  }
  return out;
}

/**
 * The v2 paths of one v3 document, by its name in /openapi/v3: `apis/{group}/{version}` (and
 * `api/{version}`) has the paths under `/apis/{group}/{version}/`, `apis/{group}` the group's own path.
 */
export function v2PathsOf(paths: Record<string, unknown>, name: string): Record<string, JsonObject> {
  const groupOnly = /^apis\/[^/]+$/.test(name);
  const prefix = `/${name}/`;
  const out: Record<string, JsonObject> = {};
  for (const [path, item] of Object.entries(paths)) {
    if (isObject(item) && (groupOnly ? path === prefix : path.startsWith(prefix))) out[path] = item;
  }
  return out;
}

/** The v3 paths of one v3 document (see v2PathsOf), made from the v2 document's. */
export function v3PathsFromV2(paths: Record<string, unknown>, name: string): JsonObject {
  const out: JsonObject = {};
  for (const [path, item] of Object.entries(v2PathsOf(paths, name))) out[path] = v3PathItem(item);
  return out;
}
