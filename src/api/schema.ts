// Merge topology of built-in kinds, read once (lazily) from the vendored 1.25 OpenAPI.
//
// The v2 document (swagger.json) gives every definition with its properties, `$ref`s and
// the `x-kubernetes-*` markers (read from its extract without descriptions,
// data/schema-definitions-1.25.json). The served v2 of 1.25 does not always carry
// `x-kubernetes-list-type`; as the SPEC says, a list without it but with
// `x-kubernetes-patch-strategy: merge` is an associative list keyed by
// `x-kubernetes-patch-merge-key` (a set when its items are scalars), otherwise atomic.
//
// The v3 documents (one per group-version) add what v2 lacks: `default` on properties.
// openapi-gen writes `default: {}` on non-pointer struct fields and the zero value on
// non-pointer scalars; that tells which fields the Go zero value of a kind holds (needed to
// reproduce the `.` entries of a create's fieldsV1) and the defaults of list-map keys
// (`protocol: TCP` in `k:{"containerPort":80,"protocol":"TCP"}`).

import { readDataJson } from './data.js';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export type NodeKind =
  /** A scalar (string, number, boolean, IntOrString, Quantity, Time, …). */
  | 'scalar'
  /** A struct with declared fields. */
  | 'struct'
  /** A map with free keys (additionalProperties). */
  | 'map'
  /** A list. */
  | 'list'
  /** Anything, owned as one piece (RawExtension, JSON, FieldsV1). */
  | 'untyped'
  /** Schemaless or preserve-unknown-fields ("deduced"): objects act as granular structs of anything, lists are atomic. */
  | 'unstructured';

export type ListType = 'atomic' | 'set' | 'map';

export interface SchemaNode {
  readonly kind: NodeKind;
  /** struct/map: `x-kubernetes-map-type: atomic`. list: list type atomic. untyped/scalar: always. */
  readonly atomic: boolean;
  readonly listType?: ListType;
  /** List map keys (list type map). */
  readonly keys?: readonly string[];
  /** `x-kubernetes-patch-strategy` of the property that holds this node (strategic merge patch). */
  readonly patchStrategy?: string;
  /** `x-kubernetes-patch-merge-key` of the property that holds this node. */
  readonly mergeKey?: string;
  /** The definition name, when the node is a definition. */
  readonly defName?: string;
  /** scalar: the OpenAPI `type` (string, integer, number, boolean), when declared. */
  readonly scalarType?: string;
  /** scalar: the OpenAPI `format` (int32, int64, byte, double, …), when declared. */
  readonly format?: string;
  /** The child node for a field / map key; undefined when the struct does not declare it. */
  field(name: string): SchemaNode | undefined;
  /** The node of the list's items. */
  items(): SchemaNode;
  /** struct: the declared field names. */
  fieldNames(): string[];
  /** struct: the `required` list. */
  required(): readonly string[];
  /** struct: a field's default (from the v3 document), undefined when none. */
  fieldDefault(name: string): unknown;
  /** struct: whether the field is a non-pointer struct (v3 `default: {}` on a struct field). */
  isValueStruct(name: string): boolean;
}

// ---------------------------------------------------------------------------------------
// Raw documents

interface RawSchema {
  $ref?: string;
  allOf?: RawSchema[];
  type?: string;
  format?: string;
  properties?: Record<string, RawSchema>;
  additionalProperties?: RawSchema | boolean;
  items?: RawSchema;
  required?: string[];
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-patch-merge-key'?: string;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-group-version-kind'?: GroupVersionKind[];
}

/**
 * The v2 document's definitions as the model reads them: its extract (data/schema-definitions-1.25.json,
 * scripts/extract-schema-definitions.mjs), each definition without its descriptions, read when first asked.
 */
let rawDefinitions: Record<string, RawSchema> | undefined;

function definitions(): Record<string, RawSchema> {
  rawDefinitions ??= readDataJson<{ definitions: Record<string, RawSchema> }>('schema-definitions-1.25.json').definitions;
  return rawDefinitions;
}

let gvkIndex: Map<string, string> | undefined;

/** One definition of the v2 document (read when its node is built: defNode keeps nodes). */
function definition(name: string): RawSchema | undefined {
  const all = definitions();
  return Object.hasOwn(all, name) ? all[name] : undefined;
}

/** Each kind's definition name. */
function kinds(): Map<string, string> {
  if (gvkIndex) return gvkIndex;
  gvkIndex = new Map();
  for (const [name, def] of Object.entries(definitions())) {
    for (const g of def['x-kubernetes-group-version-kind'] ?? []) {
      const key = gvkKey(g);
      // Several definitions can claim one GVK (e.g. DeleteOptions in every group); the first wins.
      if (!gvkIndex.has(key)) gvkIndex.set(key, name);
    }
  }
  return gvkIndex;
}

function gvkKey(g: GroupVersionKind): string {
  return `${g.group}/${g.version}/${g.kind}`;
}

/**
 * Defaults per definition and property, as the OpenAPI v3 documents give them (the v2 document has
 * none), read from their extract (scripts/extract-openapi-v3-defaults.mjs) when first asked.
 */
let v3Defaults: Record<string, Record<string, unknown> | undefined> | undefined;

function v3DefaultOf(definition: string, property: string): unknown {
  v3Defaults ??= readDataJson<{ definitions: Record<string, Record<string, unknown>> }>('openapi-v3-defaults-1.25.json').definitions;
  const defaults = v3Defaults[definition];
  return defaults !== undefined && Object.hasOwn(defaults, property) ? defaults[property] : undefined;
}

// ---------------------------------------------------------------------------------------
// Nodes

const SCALAR_DEFS = new Set([
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString',
  'io.k8s.apimachinery.pkg.api.resource.Quantity',
  'io.k8s.apimachinery.pkg.apis.meta.v1.Time',
  'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime',
]);

const UNTYPED_DEFS = new Set([
  'io.k8s.apimachinery.pkg.runtime.RawExtension',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1beta1.JSON',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray',
  'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1',
  'io.k8s.apimachinery.pkg.apis.meta.v1.Patch',
]);

interface NodeInit {
  kind: NodeKind;
  atomic: boolean;
  listType?: ListType;
  keys?: readonly string[];
  patchStrategy?: string;
  mergeKey?: string;
  defName?: string;
  scalarType?: string;
  format?: string;
  raw?: RawSchema;
  /** struct: the node of the fields it does not declare (x-kubernetes-preserve-unknown-fields). */
  unknownFields?: SchemaNode;
}

class Node implements SchemaNode {
  readonly kind: NodeKind;
  readonly atomic: boolean;
  readonly listType?: ListType;
  readonly keys?: readonly string[];
  readonly patchStrategy?: string;
  readonly mergeKey?: string;
  readonly defName?: string;
  readonly scalarType?: string;
  readonly format?: string;
  private readonly raw?: RawSchema;
  private readonly unknownFields?: SchemaNode;
  private fieldCache?: Map<string, SchemaNode | undefined>;
  private itemNode?: SchemaNode;

  constructor(init: NodeInit) {
    this.kind = init.kind;
    this.atomic = init.atomic;
    if (init.listType) this.listType = init.listType;
    if (init.keys) this.keys = init.keys;
    if (init.patchStrategy) this.patchStrategy = init.patchStrategy;
    if (init.mergeKey) this.mergeKey = init.mergeKey;
    if (init.defName) this.defName = init.defName;
    if (init.scalarType) this.scalarType = init.scalarType;
    if (init.format) this.format = init.format;
    this.raw = init.raw;
    if (init.unknownFields) this.unknownFields = init.unknownFields;
  }

  /** The same node as held by a property with its own markers. */
  withProperty(p: RawSchema): SchemaNode {
    const ps = p['x-kubernetes-patch-strategy'];
    const mk = p['x-kubernetes-patch-merge-key'];
    const mapType = p['x-kubernetes-map-type'];
    if (ps === undefined && mk === undefined && mapType === undefined) return this;
    const atomic = (this.kind === 'struct' || this.kind === 'map') && mapType !== undefined ? mapType === 'atomic' : this.atomic;
    const n = new Node({ kind: this.kind, atomic, listType: this.listType, keys: this.keys, patchStrategy: ps, mergeKey: mk, defName: this.defName, scalarType: this.scalarType, format: this.format, raw: this.raw, unknownFields: this.unknownFields });
    return n;
  }

  field(name: string): SchemaNode | undefined {
    if (this.kind === 'unstructured') return UNSTRUCTURED;
    if (this.kind === 'untyped') return UNTYPED;
    if (this.kind === 'map') return this.mapValue();
    if (this.kind !== 'struct' || !this.raw) return undefined;
    this.fieldCache ??= new Map();
    if (this.fieldCache.has(name)) return this.fieldCache.get(name);
    const p = this.raw.properties && Object.hasOwn(this.raw.properties, name) ? this.raw.properties[name] : undefined;
    const n = p ? nodeFor(p) : this.unknownFields;
    this.fieldCache.set(name, n);
    return n;
  }

  private mapValue(): SchemaNode {
    if (this.itemNode) return this.itemNode;
    const ap = this.raw?.additionalProperties;
    this.itemNode = typeof ap === 'object' ? nodeFor(ap) : UNTYPED;
    return this.itemNode;
  }

  items(): SchemaNode {
    if (this.kind === 'unstructured') return UNSTRUCTURED;
    if (this.itemNode) return this.itemNode;
    this.itemNode = this.raw?.items ? nodeFor(this.raw.items) : UNTYPED;
    return this.itemNode;
  }

  fieldNames(): string[] {
    return this.kind === 'struct' && this.raw?.properties ? Object.keys(this.raw.properties) : [];
  }

  required(): readonly string[] {
    return this.kind === 'struct' ? (this.raw?.required ?? []) : [];
  }

  fieldDefault(name: string): unknown {
    return this.defName ? v3DefaultOf(this.defName, name) : undefined;
  }

  isValueStruct(name: string): boolean {
    const d = this.fieldDefault(name);
    if (typeof d !== 'object' || d === null || Array.isArray(d) || Object.keys(d).length !== 0) return false;
    const child = this.field(name);
    return child !== undefined && (child.kind === 'struct' || child.kind === 'map');
  }
}

export const UNSTRUCTURED: SchemaNode = new Node({ kind: 'unstructured', atomic: false });
export const UNTYPED: SchemaNode = new Node({ kind: 'untyped', atomic: true });

/** Inline scalars, one node per type/format/markers (they carry what field validation checks). */
const scalarNodes = new Map<string, SchemaNode>();

function scalarNode(p: RawSchema): SchemaNode {
  const ps = p['x-kubernetes-patch-strategy'];
  const mk = p['x-kubernetes-patch-merge-key'];
  const key = `${p.type}|${p.format ?? ''}|${ps ?? ''}|${mk ?? ''}`;
  let n = scalarNodes.get(key);
  if (!n) {
    n = new Node({ kind: 'scalar', atomic: true, patchStrategy: ps, mergeKey: mk, scalarType: p.type, format: p.format });
    scalarNodes.set(key, n);
  }
  return n;
}

const defNodes = new Map<string, Node>();

function refName(ref: string): string {
  return ref.slice(ref.lastIndexOf('/') + 1);
}

function defNode(name: string): Node {
  const cached = defNodes.get(name);
  if (cached) return cached;
  const raw = definition(name);
  let n: Node;
  if (SCALAR_DEFS.has(name)) n = new Node({ kind: 'scalar', atomic: true, defName: name });
  else if (UNTYPED_DEFS.has(name) || !raw) n = new Node({ kind: 'untyped', atomic: true, defName: name });
  else n = buildNode(raw, name);
  defNodes.set(name, n);
  return n;
}

function buildNode(raw: RawSchema, defName?: string): Node {
  // x-kubernetes-preserve-unknown-fields: what the schema does not declare is "deduced", as the
  // reference's: objects are walked field by field (their fields owned apart), lists and scalars whole.
  const preserved = raw['x-kubernetes-preserve-unknown-fields'] === true;
  if (raw.properties) {
    return new Node({ kind: 'struct', atomic: raw['x-kubernetes-map-type'] === 'atomic', defName, raw, unknownFields: preserved ? UNSTRUCTURED : undefined });
  }
  if (raw.additionalProperties !== undefined && raw.additionalProperties !== false) {
    return new Node({ kind: 'map', atomic: raw['x-kubernetes-map-type'] === 'atomic', defName, raw });
  }
  if (preserved && raw.type !== 'array') return raw['x-kubernetes-map-type'] === 'atomic' ? new Node({ kind: 'untyped', atomic: true, defName }) : new Node({ kind: 'unstructured', atomic: false, defName });
  if (raw.type === 'array') {
    const itemsRaw = raw.items ?? {};
    const itemNode = nodeFor(itemsRaw);
    const itemScalar = itemNode.kind === 'scalar';
    const lt = raw['x-kubernetes-list-type'];
    const ps = raw['x-kubernetes-patch-strategy'];
    const mk = raw['x-kubernetes-patch-merge-key'];
    let listType: ListType = 'atomic';
    let keys: readonly string[] | undefined;
    if (lt === 'map' || lt === 'set' || lt === 'atomic') {
      listType = lt;
      if (lt === 'map') keys = raw['x-kubernetes-list-map-keys'] ?? [];
    } else if (ps !== undefined && ps.split(',').includes('merge')) {
      if (mk !== undefined && !itemScalar) {
        listType = 'map';
        keys = [mk];
      } else if (itemScalar) listType = 'set';
    }
    return new Node({ kind: 'list', atomic: listType === 'atomic', listType, keys, defName, raw, patchStrategy: ps, mergeKey: mk });
  }
  if (raw.type === 'object') return new Node({ kind: 'untyped', atomic: true, defName });
  return new Node({ kind: 'scalar', atomic: true, defName, scalarType: raw.type, format: raw.format });
}

/** The node of a property or item schema (a `$ref`, maybe with markers of its own, or inline). */
function nodeFor(p: RawSchema): SchemaNode {
  const ref = p.$ref ?? (p.allOf && p.allOf.length === 1 ? p.allOf[0].$ref : undefined);
  if (ref !== undefined) return defNode(refName(ref)).withProperty(p);
  if (!p.type && !p.properties && !p.items && p.additionalProperties === undefined && !p['x-kubernetes-preserve-unknown-fields']) return UNTYPED;
  if (p.type && p.type !== 'object' && p.type !== 'array') return scalarNode(p);
  const n = buildNode(p);
  return n.withProperty(p);
}

/** Schemas of kinds defined while the server runs (by group/version/kind). */
const runtimeSchemas = new Map<string, SchemaNode>();

const OBJECT_META = { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' };

/**
 * Makes `schema` (an OpenAPI v2 schema of the whole object, without $refs) the schema of a kind
 * defined at run time; its metadata is the standard ObjectMeta, as for every served kind.
 */
export function registerSchema(gvk: GroupVersionKind, schema: Record<string, unknown>): void {
  const raw = schema as RawSchema;
  const properties = { ...(raw.properties ?? {}), apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: OBJECT_META };
  runtimeSchemas.set(gvkKey(gvk), nodeFor({ ...raw, type: 'object', properties }));
}

export function unregisterSchema(gvk: GroupVersionKind): void {
  runtimeSchemas.delete(gvkKey(gvk));
}

/** The schema of a kind; UNSTRUCTURED for kinds neither the built-in OpenAPI nor a registered schema know. */
export function schemaFor(gvk: GroupVersionKind): SchemaNode {
  const runtime = runtimeSchemas.get(gvkKey(gvk));
  if (runtime) return runtime;
  const name = kinds().get(gvkKey(gvk));
  if (name === undefined) return UNSTRUCTURED;
  return defNode(name);
}

/** Whether the kind is known to the built-in schema (else it is handled as unstructured). */
export function isKnownKind(gvk: GroupVersionKind): boolean {
  if (runtimeSchemas.has(gvkKey(gvk))) return true;
  return kinds().has(gvkKey(gvk));
}
