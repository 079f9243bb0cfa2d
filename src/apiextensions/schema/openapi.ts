// A CRD version's schema as /openapi/v3 and /openapi/v2 publish it (the reference's
// controller/openapi builder): the structural schema, x-kubernetes-int-or-string unfolded into
// anyOf [integer, string], plus apiVersion, kind and metadata (a reference to ObjectMeta) at the
// root and in embedded resources, and x-kubernetes-group-version-kind. The v2 form drops what
// OpenAPI v2 (and kubectl's client-side validation) cannot take: allOf/anyOf/oneOf/not, nullable
// (a nullable node loses its type and fields), and the fields and types under
// x-kubernetes-preserve-unknown-fields; a root that preserves unknown fields is just an object.
import { copyJson, type JsonObject } from '../../json.js';
import type { GroupVersionKind } from '../../api/schema.js';
import type { JSONSchemaProps, Structural } from './types.js';

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const API_VERSION_DOC = 'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const KIND_DOC = 'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';
const EMBEDDED_API_VERSION_DOC = 'apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const EMBEDDED_KIND_DOC = 'kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';
const METADATA_DOC = "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

/** Value validations and descriptive fields carried over as they are. */
const VALUE_KEYS: Array<keyof JSONSchemaProps> = [
  'format', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength', 'minLength', 'pattern',
  'maxItems', 'minItems', 'uniqueItems', 'multipleOf', 'enum', 'maxProperties', 'minProperties', 'required',
];
const JUNCTORS: Array<keyof JSONSchemaProps> = ['allOf', 'anyOf', 'oneOf', 'not'];

type Version = 'v2' | 'v3';

function unfoldedJunctors(s: Structural): Partial<JSONSchemaProps> {
  const src = s.source;
  const out: Partial<JSONSchemaProps> = {};
  for (const k of JUNCTORS) if (src[k] !== undefined) (out as Record<string, unknown>)[k] = copyJson(src[k]);
  if (!s.intOrString) return out;
  const intOrString = [{ type: 'integer' }, { type: 'string' }];
  const isPattern = (l: unknown) => JSON.stringify(l) === JSON.stringify(intOrString);
  if (isPattern(out.anyOf) || isPattern(out.allOf?.[0]?.anyOf)) return out;
  if (!out.anyOf) out.anyOf = intOrString;
  else out.allOf = [{ anyOf: intOrString }, ...(out.allOf ?? [])];
  return out;
}

function ref(name: string, version: Version): string {
  return version === 'v3' ? `#/components/schemas/${name}` : `#/definitions/${name}`;
}

function sortedProperties(props: Record<string, JsonObject>): Record<string, JsonObject> {
  return Object.fromEntries(Object.keys(props).sort().map((k) => [k, props[k]!]));
}

function publish(s: Structural, version: Version): JsonObject {
  const v2 = version === 'v2';
  const out: JsonObject = {};
  let type = s.type;
  let dropFields = false;
  if (v2 && s.nullable) {
    type = '';
    dropFields = true;
  }
  if (v2 && s.preserveUnknownFields) dropFields = true;
  if (v2 && type === 'array' && (!s.items || dropFields)) type = '';
  if (v2 && s.preserveUnknownFields && type === 'object') type = '';
  if (s.description) out['description'] = s.description;
  if (type) out['type'] = type;
  if (s.title) out['title'] = s.title;
  if (!v2 && s.nullable) out['nullable'] = true;
  if (s.default !== undefined) out['default'] = copyJson(s.default);
  for (const k of VALUE_KEYS) if (s.source[k] !== undefined) out[k] = copyJson(s.source[k]);
  if (!v2) Object.assign(out, unfoldedJunctors(s));
  if (s.items && !dropFields) out['items'] = publish(s.items, version);
  if (s.properties && !dropFields) {
    const props: Record<string, JsonObject> = {};
    for (const [k, p] of s.properties) props[k] = publish(p, version);
    out['properties'] = props;
  }
  if (s.additionalProperties) out['additionalProperties'] = s.additionalProperties.schema ? publish(s.additionalProperties.schema, version) : s.additionalProperties.allows;
  if (v2 && Array.isArray(out['required'])) {
    // A nullable field is not required in v2 (kubectl would insist on a value).
    let required = (out['required'] as string[]).filter((f) => !s.properties?.get(f)?.nullable);
    if (s.additionalProperties?.schema?.nullable) required = [];
    if (required.length) out['required'] = required;
    else delete out['required'];
  }
  if (s.preserveUnknownFields) out['x-kubernetes-preserve-unknown-fields'] = true;
  if (s.embeddedResource) out['x-kubernetes-embedded-resource'] = true;
  if (s.intOrString) out['x-kubernetes-int-or-string'] = true;
  if (s.listMapKeys) out['x-kubernetes-list-map-keys'] = [...s.listMapKeys];
  if (s.listType !== undefined) out['x-kubernetes-list-type'] = s.listType;
  if (s.mapType !== undefined) out['x-kubernetes-map-type'] = s.mapType;
  if (Array.isArray(s.source['x-kubernetes-validations']) && s.source['x-kubernetes-validations'].length) out['x-kubernetes-validations'] = copyJson(s.source['x-kubernetes-validations']);
  if (s.embeddedResource && !(v2 && s.preserveUnknownFields)) addEmbeddedProperties(out, version);
  if (isJsonObject(out['properties'])) out['properties'] = sortedProperties(out['properties'] as Record<string, JsonObject>);
  return out;
}

const isJsonObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

function addEmbeddedProperties(out: JsonObject, version: Version): void {
  const props = (isJsonObject(out['properties']) ? out['properties'] : {}) as Record<string, JsonObject>;
  props['apiVersion'] = { description: EMBEDDED_API_VERSION_DOC, type: 'string' };
  props['kind'] = { description: EMBEDDED_KIND_DOC, type: 'string' };
  props['metadata'] = { description: METADATA_DOC, $ref: ref(OBJECT_META, version) };
  out['properties'] = props;
  const required = Array.isArray(out['required']) ? [...(out['required'] as string[])] : [];
  for (const f of ['kind', 'apiVersion']) if (!required.includes(f)) required.push(f);
  out['required'] = required;
}

/**
 * The kind's schema as /openapi/v3 (`version` 'v3') or /openapi/v2 ('v2') publishes it, for a
 * structural schema (undefined: no schema, published as a bare object).
 */
export function publishedSchema(s: Structural | undefined, gvk: GroupVersionKind, version: Version): JsonObject {
  const gvkExtension = [{ group: gvk.group, kind: gvk.kind, version: gvk.version }];
  if (!s || (version === 'v2' && s.preserveUnknownFields)) return { type: 'object', 'x-kubernetes-group-version-kind': gvkExtension };
  const out = publish(s, version);
  const props = (isJsonObject(out['properties']) ? out['properties'] : {}) as Record<string, JsonObject>;
  props['metadata'] = { description: METADATA_DOC, $ref: ref(OBJECT_META, version) };
  props['apiVersion'] = { description: API_VERSION_DOC, type: 'string' };
  props['kind'] = { description: KIND_DOC, type: 'string' };
  out['properties'] = sortedProperties(props);
  out['x-kubernetes-group-version-kind'] = gvkExtension;
  return out;
}
