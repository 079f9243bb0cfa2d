// What the field manager needs of a CRD's schema for server-side apply: the shape
// api/schema.ts's registerSchema takes (an OpenAPI v2 schema without $refs but ObjectMeta's), with
// x-kubernetes-list-type / -list-map-keys / -map-type kept so that apply merges lists and maps
// as the CRD says, and value validations and nullable left out (as the reference's type converter
// is built: v2, value validations and nullable stripped, unknown-field subtrees kept typed). Under
// x-kubernetes-preserve-unknown-fields the fields a node does not declare are "deduced", as the
// reference's: objects owned field by field, lists and scalars whole (api/schema.ts).
import type { JsonObject } from '../../json.js';
import type { Structural } from './types.js';

const OBJECT_META_REF = '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

function shape(s: Structural): JsonObject {
  const out: JsonObject = {};
  // int-or-string nodes stay untyped (a scalar of either kind).
  if (s.type && !s.intOrString) out['type'] = s.type;
  if (s.format) out['format'] = s.format;
  if (s.items) out['items'] = shape(s.items);
  if (s.properties) out['properties'] = Object.fromEntries([...s.properties].map(([k, p]) => [k, shape(p)]));
  if (s.additionalProperties) out['additionalProperties'] = s.additionalProperties.schema ? shape(s.additionalProperties.schema) : s.additionalProperties.allows;
  if (Array.isArray(s.source.required) && s.source.required.length) out['required'] = [...s.source.required];
  if (s.preserveUnknownFields) out['x-kubernetes-preserve-unknown-fields'] = true;
  if (s.listType !== undefined) out['x-kubernetes-list-type'] = s.listType;
  if (s.listMapKeys) out['x-kubernetes-list-map-keys'] = [...s.listMapKeys];
  if (s.mapType !== undefined) out['x-kubernetes-map-type'] = s.mapType;
  if (s.embeddedResource) {
    const props = (out['properties'] ?? {}) as JsonObject;
    props['apiVersion'] = { type: 'string' };
    props['kind'] = { type: 'string' };
    props['metadata'] = { $ref: OBJECT_META_REF };
    out['properties'] = props;
  }
  return out;
}

/**
 * The schema to hand to registerSchema (and to return from a ResourceDefinition's `schema(version)`)
 * for a CRD version's structural schema; the root's apiVersion, kind and metadata are added by
 * registerSchema.
 */
export function fieldManagerSchema(s: Structural): JsonObject {
  const out = shape(s);
  out['type'] = 'object';
  return out;
}
