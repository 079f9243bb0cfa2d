// An OpenAPI v2 (Swagger 2.0) JSON document → gnostic's `openapi.v2.Document` Protobuf message
// (data/gnostic/OpenAPIv2.proto), what /openapi/v2 answers to
// `Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf` (kubectl ≤ 1.28, client-go's
// OpenAPISchema). The reference compiles its JSON with gnostic's `NewDocument`; these are its rules:
//
// - a field's JSON key is its proto name in lower camel case (`base_path` → `basePath`), `_ref` is
//   `$ref`; scalars keep their type (strings also take integers, as YAML's !!int reads as a string),
//   and proto3 zero values are left out, as Go's Marshal does;
// - `vendor_extension`: every `x-…` key of the object, in order, as NamedAny {name, Any};
// - `Any` holds its value as YAML text (`Any.yaml`); clients parse it back (kubectl reads
//   x-kubernetes-group-version-kind this way). Strings YAML 1.1 would read otherwise are quoted;
// - map messages (a single `additional_properties` of Named… pairs: Definitions, Properties,
//   SecurityDefinitions, SecurityRequirement, Examples, …) hold every key of the object, in order;
//   Paths holds the keys starting with `/`, Responses the status codes and `default`;
// - TypeItem and StringArray: a string or an array of strings → `value`; ItemsItem: a schema, or an
//   array of them → `schema`;
// - the oneofs, decided as gnostic's matching does for valid documents: AdditionalPropertiesItem a
//   boolean or a schema; ParametersItem and ResponseValue a JsonReference when `$ref` is there;
//   Parameter a BodyParameter for `in: body`, else a NonBodyParameter, whose sub-schema is chosen by
//   `in` (header, formData, query, path); SchemaItem a FileSchema for `type: file` with only the keys
//   FileSchema allows; SecurityDefinitionsItem by `type` (and `flow` for oauth2).
//
// Unlike gnostic, keys the messages do not know are skipped rather than failing the whole document.
import type * as protobuf from 'protobufjs';
import { dataDir } from '../api/data.js';
import { isObject, type JsonObject } from '../json.js';
import { protobufLibrary } from './protobuf.js';
import { yamlLibrary } from './yaml-library.js';

type Plain = Record<string, unknown>;

let root: protobuf.Root | undefined;

/** The openapi.v2 messages, loaded on first use. */
export function openApiV2Types(): protobuf.Root {
  if (!root) {
    root = new (protobufLibrary().Root)();
    root.loadSync(`${dataDir}gnostic/OpenAPIv2.proto`, { keepCase: true });
    root.resolveAll();
  }
  return root;
}

/** `base_path` → `basePath`, `_ref` → `$ref`. */
export function jsonKeyOf(protoName: string): string {
  if (protoName === '_ref') return '$ref';
  return protoName.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

const FILE_SCHEMA_KEYS = new Set(['default', 'description', 'example', 'externalDocs', 'format', 'readOnly', 'required', 'title', 'type']);

const PARAMETER_SUB_SCHEMA: Record<string, string> = {
  header: 'header_parameter_sub_schema',
  formData: 'form_data_parameter_sub_schema',
  query: 'query_parameter_sub_schema',
  path: 'path_parameter_sub_schema',
};

const OAUTH2_FLOW: Record<string, string> = {
  implicit: 'oauth2_implicit_security',
  password: 'oauth2_password_security',
  application: 'oauth2_application_security',
  accessCode: 'oauth2_access_code_security',
};

interface Shape {
  fields: protobuf.Field[];
  /** JSON key → index in fields. */
  byKey: Map<string, number>;
  /** Index of vendor_extension, where the message has one. */
  vendor?: number;
  /** The one field of a map message (Definitions, Properties, …). */
  map?: protobuf.Field;
}

const isVendorKey = (key: string) => key.startsWith('x-');

class Converter {
  /** The same values recur thousands of times (`x-kubernetes-action: get`): made into YAML once. */
  private readonly yamlCache = new Map<string, string>();
  private readonly shapes = new Map<protobuf.Type, Shape>();

  constructor(private readonly types: protobuf.Root) {}

  document(doc: JsonObject): Plain {
    return this.message(this.type('Document'), doc) ?? {};
  }

  private type(name: string): protobuf.Type {
    return this.types.lookupType(`openapi.v2.${name}`);
  }

  private fieldType(type: protobuf.Type, field: string): protobuf.Type {
    return type.fields[field]!.resolvedType as protobuf.Type;
  }

  /** One message of `type` from a JSON value, or undefined when the value cannot be one. */
  message(type: protobuf.Type, value: unknown): Plain | undefined {
    switch (type.name) {
      case 'Any':
        return { yaml: this.yaml(value) };
      case 'TypeItem':
      case 'StringArray':
        return { value: typeof value === 'string' ? [value] : strings(value) };
      case 'ItemsItem': {
        const schemas = (Array.isArray(value) ? value : [value]).map((s) => this.message(this.type('Schema'), s));
        return { schema: schemas.filter((s) => s !== undefined) };
      }
      case 'AdditionalPropertiesItem':
        if (typeof value === 'boolean') return { boolean: value };
        return this.oneof(type, 'schema', value);
    }
    if (!isObject(value)) return undefined;
    switch (type.name) {
      case 'ParametersItem':
      case 'ResponseValue':
        return this.oneof(type, '$ref' in value ? 'json_reference' : type.name === 'ParametersItem' ? 'parameter' : 'response', value);
      case 'Parameter':
        return this.oneof(type, value['in'] === 'body' ? 'body_parameter' : 'non_body_parameter', value);
      case 'NonBodyParameter': {
        const field = PARAMETER_SUB_SCHEMA[String(value['in'])];
        return field ? this.oneof(type, field, value) : {};
      }
      case 'SchemaItem':
        return this.oneof(type, isFileSchema(value) ? 'file_schema' : 'schema', value);
      case 'SecurityDefinitionsItem': {
        const kind = value['type'];
        const field = kind === 'basic' ? 'basic_authentication_security' : kind === 'apiKey' ? 'api_key_security' : kind === 'oauth2' ? OAUTH2_FLOW[String(value['flow'])] : undefined;
        return field ? this.oneof(type, field, value) : {};
      }
      case 'Paths':
        return this.patternMap(type, value, 'path', (k) => k.startsWith('/'));
      case 'Responses':
        return this.patternMap(type, value, 'response_code', (k) => /^(\d{3}|default)$/.test(k));
    }
    const shape = this.shape(type);
    if (shape.map) return { additional_properties: this.named(shape.map, Object.entries(value)) };
    // Values are set in field order, so that messages of a type share one shape for the encoder.
    const values: unknown[] = new Array(shape.fields.length);
    let vendor: Array<[string, unknown]> | undefined;
    for (const key in value) {
      const index = shape.byKey.get(key);
      if (index !== undefined) values[index] = this.field(shape.fields[index]!, value[key]);
      else if (shape.vendor !== undefined && isVendorKey(key)) (vendor ??= []).push([key, value[key]]);
    }
    if (vendor) values[shape.vendor!] = this.named(shape.fields[shape.vendor!]!, vendor);
    const out: Plain = {};
    for (let i = 0; i < values.length; i++) if (values[i] !== undefined) out[shape.fields[i]!.name] = values[i];
    return out;
  }

  /** A message type's fields by JSON key, worked out once per type. */
  private shape(type: protobuf.Type): Shape {
    let shape = this.shapes.get(type);
    if (!shape) {
      const fields = type.fieldsArray;
      const map = fields.length === 1 && fields[0]!.name === 'additional_properties' ? fields[0] : undefined;
      shape = { fields, byKey: new Map(), map };
      fields.forEach((f, i) => {
        if (f.name === 'vendor_extension') shape!.vendor = i;
        else shape!.byKey.set(jsonKeyOf(f.name), i);
      });
      this.shapes.set(type, shape);
    }
    return shape;
  }

  /** A oneof message with its one field set. */
  private oneof(type: protobuf.Type, field: string, value: unknown): Plain {
    const v = this.message(this.fieldType(type, field), value);
    return v === undefined ? {} : { [field]: v };
  }

  private patternMap(type: protobuf.Type, value: JsonObject, field: string, wanted: (key: string) => boolean): Plain {
    const out: Plain = {};
    const named = this.named(type.fields[field]!, Object.entries(value).filter(([k]) => wanted(k)));
    if (named.length) out[field] = named;
    const vendor = this.named(type.fields['vendor_extension']!, Object.entries(value).filter(([k]) => isVendorKey(k)));
    if (vendor.length) out['vendor_extension'] = vendor;
    return out;
  }

  /** Named… pairs ({name, value}) of a repeated field. */
  private named(field: protobuf.Field, entries: Array<[string, unknown]>): Plain[] {
    const pairType = field.resolvedType as protobuf.Type;
    const valueField = pairType.fields['value']!;
    const out: Plain[] = [];
    for (const [name, v] of entries) {
      const converted = this.field(valueField, v);
      out.push(converted === undefined ? { name } : { name, value: converted });
    }
    return out;
  }

  /** A field's value, or undefined to leave it out (absent, of the wrong type, or proto3's zero). */
  private field(field: protobuf.Field, value: unknown): unknown {
    if (value === undefined) return undefined;
    const resolved = field.resolvedType;
    if (field.repeated) {
      if (!Array.isArray(value)) return undefined;
      const items: unknown[] = [];
      for (const item of value) {
        const v = resolved instanceof protobufLibrary().Type ? this.message(resolved, item) : scalar(field.type, item);
        if (v !== undefined) items.push(v);
      }
      return items.length ? items : undefined;
    }
    if (resolved instanceof protobufLibrary().Type) return value === null && resolved.name !== 'Any' ? undefined : this.message(resolved, value);
    const v = scalar(field.type, value);
    return v === '' || v === 0 || v === false ? undefined : v;
  }

  private yaml(value: unknown): string {
    const key = JSON.stringify(value) ?? 'null';
    let text = this.yamlCache.get(key);
    if (text === undefined) {
      // YAML 1.1 quoting: clients read these with YAML 1.1 parsers, where `yes` or `on` are booleans.
      text = yamlLibrary().stringify(value ?? null, { version: '1.1', lineWidth: 0, indent: 4 });
      this.yamlCache.set(key, text);
    }
    return text;
  }
}

function scalar(protoType: string, value: unknown): unknown {
  switch (protoType) {
    case 'string':
      if (typeof value === 'string') return value;
      return Number.isInteger(value) ? String(value) : undefined;
    case 'bool':
      return typeof value === 'boolean' ? value : undefined;
    case 'double':
      return typeof value === 'number' ? value : undefined;
    case 'int64':
      return Number.isInteger(value) ? value : undefined;
    default:
      return undefined;
  }
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** gnostic's SchemaItem takes a FileSchema only when every key is one FileSchema has. */
function isFileSchema(value: JsonObject): boolean {
  return value['type'] === 'file' && Object.keys(value).every((k) => FILE_SCHEMA_KEYS.has(k) || isVendorKey(k));
}

/** The message as plain objects (keys are the proto field names), before encoding. */
export function openApiV2Message(doc: JsonObject): Plain {
  return new Converter(openApiV2Types()).document(doc);
}

/** The document's Protobuf bytes (`openapi.v2.Document`). */
export function openApiV2Protobuf(doc: JsonObject): Buffer {
  const documentType = openApiV2Types().lookupType('openapi.v2.Document');
  return Buffer.from(documentType.encode(openApiV2Message(doc)).finish());
}
