// The CEL type of a structural schema node (the reference's model.SchemaDeclType): objects with
// properties are object types whose fields are the escaped property names, maps (additionalProperties)
// are map<string, V>, arrays list<T>, integer int, number double, string string (bytes for
// format byte, timestamp for date and date-time), x-kubernetes-int-or-string dyn. Each type also
// carries the size bounds the cost estimator uses: maxLength/maxItems/maxProperties when declared,
// otherwise what fits in a request of MAX_REQUEST_BYTES.
import type { Structural } from '../schema/index.js';
import { escapeName } from './escape.js';

/** The largest request body the reference plans for (3 MiB). */
export const MAX_REQUEST_BYTES = 3 * 1024 * 1024;

export type ScalarKind = 'int' | 'double' | 'string' | 'bool' | 'bytes' | 'google.protobuf.Timestamp' | 'dyn';

export interface ObjectField { name: string; type: DeclType }
export type DeclType =
  | { kind: 'scalar'; cel: ScalarKind; maxSize: number; minSize: number }
  | { kind: 'list'; items: DeclType; maxSize: number; minSize: number }
  | { kind: 'map'; values: DeclType; maxSize: number; minSize: number }
  | { kind: 'object'; typeName: string; fields: Map<string, ObjectField>; maxSize: number; minSize: number };

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? Math.max(0, v) : undefined);

/** Makes type names unique within one compiled schema. */
export class TypeNamer {
  private n = 0;
  next(): string { return `object${++this.n}`; }
}

/** The `apiVersion`, `kind`, `metadata.name/generateName` every resource root exposes to rules. */
function withTypeAndObjectMeta(s: Structural): Structural {
  const str = (): Structural => ({ type: 'string', format: '', description: '', title: '', nullable: false, default: undefined, preserveUnknownFields: false, embeddedResource: false, intOrString: false, source: { type: 'string' } });
  const props = new Map(s.properties ?? []);
  props.set('apiVersion', str());
  props.set('kind', str());
  const meta = props.get('metadata');
  const metaProps = new Map<string, Structural>([['name', str()], ['generateName', str()]]);
  props.set('metadata', { ...(meta ?? str()), type: 'object', properties: metaProps, source: meta?.source ?? { type: 'object' } });
  return { ...s, properties: props };
}

/** The CEL type of `s`, or undefined where rules cannot type the value (no type, unknown fields only). */
export function declTypeOf(s: Structural, isResourceRoot: boolean, names: TypeNamer): DeclType | undefined {
  const src = s.source;
  if (s.intOrString) return { kind: 'scalar', cel: 'dyn', maxSize: MAX_REQUEST_BYTES - 2, minSize: 1 };
  if (isResourceRoot) s = withTypeAndObjectMeta(s);
  switch (s.type) {
    case 'array': {
      if (!s.items) return undefined;
      const items = declTypeOf(s.items, s.items.embeddedResource, names);
      if (!items) return undefined;
      return { kind: 'list', items, maxSize: num(src.maxItems) ?? Math.floor((MAX_REQUEST_BYTES - 2) / (items.minSize + 1)), minSize: 2 };
    }
    case 'object': {
      if (s.additionalProperties?.schema) {
        const ap = s.additionalProperties.schema;
        const values = declTypeOf(ap, ap.embeddedResource, names);
        if (!values) return undefined;
        return { kind: 'map', values, maxSize: num(src.maxProperties) ?? Math.floor((MAX_REQUEST_BYTES - 2) / (values.minSize + 4)), minSize: 2 };
      }
      const fields = new Map<string, ObjectField>();
      const required = new Set(Array.isArray(src.required) ? src.required : []);
      let minSize = 2;
      for (const [name, prop] of s.properties ?? []) {
        const type = declTypeOf(prop, prop.embeddedResource, names);
        if (!type) continue;
        const escaped = escapeName(name);
        if (escaped !== undefined) fields.set(escaped, { name, type });
        if (required.has(name) && prop.default === undefined) minSize += name.length + type.minSize + 4;
      }
      return { kind: 'object', typeName: names.next(), fields, maxSize: MAX_REQUEST_BYTES, minSize };
    }
    case 'string': {
      const fmt = typeof src.format === 'string' ? src.format : '';
      if (fmt === 'byte') return { kind: 'scalar', cel: 'bytes', maxSize: num(src.maxLength) ?? MAX_REQUEST_BYTES - 2, minSize: 2 };
      if (fmt === 'date' || fmt === 'date-time') return { kind: 'scalar', cel: 'google.protobuf.Timestamp', maxSize: 1, minSize: fmt === 'date' ? 12 : 22 };
      // maxLength counts code points; sizes here are bytes (up to 4 per code point), as the reference reasons.
      return { kind: 'scalar', cel: 'string', maxSize: src.maxLength !== undefined && num(src.maxLength) !== undefined ? num(src.maxLength)! * 4 : MAX_REQUEST_BYTES - 2, minSize: 2 };
    }
    case 'boolean': return { kind: 'scalar', cel: 'bool', maxSize: 1, minSize: 4 };
    case 'number': return { kind: 'scalar', cel: 'double', maxSize: 1, minSize: 1 };
    case 'integer': return { kind: 'scalar', cel: 'int', maxSize: 1, minSize: 1 };
  }
  return undefined;
}

/** The CEL type expression of a declared type (as cel-js writes it). */
export function celTypeName(t: DeclType): string {
  switch (t.kind) {
    case 'scalar': return t.cel;
    case 'list': return `list<${celTypeName(t.items)}>`;
    case 'map': return `map<string, ${celTypeName(t.values)}>`;
    case 'object': return t.typeName;
  }
}

/** Object types under `t`, children before parents (the order cel-js needs to register them). */
export function objectTypes(t: DeclType, out: Array<Extract<DeclType, { kind: 'object' }>> = []): Array<Extract<DeclType, { kind: 'object' }>> {
  if (t.kind === 'list') objectTypes(t.items, out);
  else if (t.kind === 'map') objectTypes(t.values, out);
  else if (t.kind === 'object') {
    for (const f of t.fields.values()) objectTypes(f.type, out);
    out.push(t);
  }
  return out;
}
