// The Go types the reference decodes request bodies into, as far as its decoding errors show
// them: which JSON values each accepts, the name `reflect` gives it ("int32", "[]v1.Container",
// "v1.PodSpec"), and for structs their declared fields. Derived from the OpenAPI schema of
// src/api/schema.ts.
//
// Limits: named string types (v1.PullPolicy, v1.Protocol, …) are not in the OpenAPI, so they
// are named "string".
import type { SchemaNode } from '../api/schema.js';

export type GoKind =
  | 'struct' | 'map' | 'slice'
  | 'string' | 'bool' | 'int' | 'float'
  /** []byte: a base64 string. */
  | 'bytes'
  /** Types with their own UnmarshalJSON. */
  | 'intOrString' | 'quantity' | 'time'
  /** RawExtension, JSON, FieldsV1, preserve-unknown-fields: any JSON, kept as bytes, unchecked. */
  | 'raw'
  /** interface{} (maps and lists of anything): any JSON, duplicate keys still reported. */
  | 'any';

export interface GoType {
  readonly kind: GoKind;
  /** The type as `reflect.Type.String()` prints it. */
  readonly name: string;
  /** struct: the type's own name, as errors print "Go struct field <Name>.<path>". */
  readonly structName?: string;
  /** int: its size in bits. */
  readonly bits?: number;
  /** struct: the type of a declared field, undefined for an unknown one. */
  field(key: string): GoType | undefined;
  /** map: the value type; slice: the item type. */
  elem(): GoType;
}

const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
const TIMES = new Set(['io.k8s.apimachinery.pkg.apis.meta.v1.Time', 'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime']);

class Simple implements GoType {
  constructor(readonly kind: GoKind, readonly name: string, readonly bits?: number, private readonly item?: GoType) {}
  field(): GoType | undefined {
    return undefined;
  }
  elem(): GoType {
    return this.item ?? ANY;
  }
}

/** interface{}: anything goes; objects are map[string]interface{} and lists []interface{}. */
export const ANY: GoType = new Simple('any', 'interface {}');
const RAW: GoType = new Simple('raw', 'runtime.RawExtension');

/** A struct type known by its fields (for types not in the OpenAPI, e.g. a JSON patch operation). */
export function structType(pkgName: string, fields: Record<string, GoType>): GoType {
  const name = pkgName.slice(pkgName.lastIndexOf('.') + 1);
  return {
    kind: 'struct', name: pkgName, structName: name,
    field: (key) => (Object.hasOwn(fields, key) ? fields[key] : undefined),
    elem: () => ANY,
  };
}

export function sliceOf(item: GoType): GoType {
  return new Simple('slice', `[]${item.name}`, undefined, item);
}

export const STRING: GoType = new Simple('string', 'string');

/** A scalar type by its Go name, for types the OpenAPI does not name (int64, bool, v1.DeletionPropagation, types.UID). */
export function scalarType(kind: 'string' | 'bool' | 'int', name: string, bits?: number): GoType {
  return new Simple(kind, name, bits);
}

/** The Go package and type name of an OpenAPI definition: io.k8s.api.apps.v1.DeploymentSpec → v1.DeploymentSpec. */
function goName(defName: string): string {
  const parts = defName.split('.');
  return parts.length >= 2 ? `${parts[parts.length - 2]}.${parts[parts.length - 1]}` : defName;
}

class FromSchema implements GoType {
  readonly kind: GoKind;
  readonly name: string;
  readonly structName?: string;
  readonly bits?: number;
  private fields?: Map<string, GoType | undefined>;
  private item?: GoType;

  constructor(private readonly node: SchemaNode) {
    const def = node.defName;
    switch (node.kind) {
      case 'struct':
        this.kind = 'struct';
        this.name = def ? goName(def) : 'struct {}';
        this.structName = this.name.slice(this.name.indexOf('.') + 1);
        break;
      case 'map': {
        this.kind = 'map';
        const value = goTypeOf(node.field('')!);
        // map[ResourceName]Quantity is core/v1's named ResourceList.
        this.name = value.kind === 'quantity' ? 'v1.ResourceList' : `map[string]${value.name}`;
        break;
      }
      case 'list':
        this.kind = 'slice';
        this.name = `[]${goTypeOf(node.items()).name}`;
        break;
      case 'scalar':
        [this.kind, this.name, this.bits] = scalarOf(node);
        break;
      default:
        this.kind = node.kind === 'unstructured' ? 'any' : 'raw';
        this.name = node.kind === 'unstructured' ? 'interface {}' : def ? goName(def) : 'runtime.RawExtension';
    }
  }

  field(key: string): GoType | undefined {
    if (this.kind !== 'struct') return undefined;
    this.fields ??= new Map();
    let t = this.fields.get(key);
    if (t === undefined && !this.fields.has(key)) {
      const child = this.node.field(key);
      t = child ? goTypeOf(child) : undefined;
      this.fields.set(key, t);
    }
    return t;
  }

  elem(): GoType {
    this.item ??= goTypeOf(this.kind === 'map' ? this.node.field('')! : this.node.items());
    return this.item;
  }
}

function scalarOf(node: SchemaNode): [GoKind, string, number?] {
  const def = node.defName;
  if (def === QUANTITY) return ['quantity', 'resource.Quantity'];
  if (def === INT_OR_STRING) return ['intOrString', 'intstr.IntOrString'];
  if (def !== undefined && TIMES.has(def)) return ['time', goName(def)];
  switch (node.scalarType) {
    case 'integer':
      return node.format === 'int32' ? ['int', 'int32', 32] : ['int', 'int64', 64];
    case 'number':
      return ['float', 'float64'];
    case 'boolean':
      return ['bool', 'bool'];
    case 'string':
      return node.format === 'byte' ? ['bytes', '[]uint8'] : ['string', 'string'];
    default:
      return ['raw', 'interface {}'];
  }
}

const cache = new WeakMap<SchemaNode, GoType>();

/** The Go type of a schema node (cached: the hot path asks for it per decoded field). */
export function goTypeOf(node: SchemaNode): GoType {
  let t = cache.get(node);
  if (!t) {
    t = node.kind === 'unstructured' ? ANY : node.kind === 'untyped' ? RAW : new FromSchema(node);
    cache.set(node, t);
  }
  return t;
}
