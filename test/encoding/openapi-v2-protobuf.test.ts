// /openapi/v2 as gnostic's openapi.v2.Document: the bytes decode (with the message definitions, as
// a client does) back to the JSON document they were made of.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import protobuf from 'protobufjs';
import { parse as parseYaml } from 'yaml';
import { swaggerDocument } from '../../src/api/openapi-documents.js';
import { jsonKeyOf, openApiV2Protobuf, openApiV2Types } from '../../src/encoding/openapi-v2-protobuf.js';
import { isObject, type JsonObject } from '../../src/json.js';

type Plain = Record<string, unknown>;

const ONEOFS = new Set(['AdditionalPropertiesItem', 'ParametersItem', 'Parameter', 'NonBodyParameter', 'ResponseValue', 'SchemaItem', 'SecurityDefinitionsItem']);

/** A decoded message back to JSON, the way a reader of the gnostic message sees it. */
function toJson(type: protobuf.Type, msg: Plain): unknown {
  const sub = (field: string, v: unknown) => toJson(type.fields[field]!.resolvedType as protobuf.Type, v as Plain);
  switch (type.name) {
    case 'Any':
      // YAML 1.1, as kubectl's reader (gopkg.in/yaml.v2) parses it.
      return parseYaml(String(msg['yaml']), { version: '1.1' });
    case 'TypeItem': {
      const values = (msg['value'] ?? []) as string[];
      return values.length === 1 ? values[0] : values;
    }
    case 'StringArray':
      return msg['value'] ?? [];
    case 'ItemsItem': {
      const schemas = (msg['schema'] ?? []) as Plain[];
      return schemas.length === 1 ? sub('schema', schemas[0]) : schemas.map((s) => sub('schema', s));
    }
  }
  if (ONEOFS.has(type.name)) {
    const [field, value] = Object.entries(msg)[0] ?? [];
    assert.ok(field, `${type.name} has none of its oneof set`);
    return typeof value === 'boolean' ? value : sub(field, value);
  }
  const out: Plain = {};
  for (const [name, value] of Object.entries(msg)) {
    const field = type.fields[name]!;
    const pairs = field.resolvedType instanceof protobuf.Type && field.resolvedType.name.startsWith('Named');
    if (pairs) {
      // Named… pairs: a map's entries (or a vendor extension, a path, a response code) as keys.
      const valueType = (field.resolvedType as protobuf.Type).fields['value']!;
      for (const pair of value as Plain[]) {
        const v = pair['value'];
        out[String(pair['name'])] = valueType.resolvedType instanceof protobuf.Type ? toJson(valueType.resolvedType, (v ?? {}) as Plain) : v;
      }
      continue;
    }
    const convert = (v: unknown) => (field.resolvedType instanceof protobuf.Type ? toJson(field.resolvedType, v as Plain) : v);
    out[jsonKeyOf(name)] = field.repeated ? (value as unknown[]).map(convert) : convert(value);
  }
  return out;
}

function decode(bytes: Uint8Array): unknown {
  const documentType = openApiV2Types().lookupType('openapi.v2.Document');
  const message = documentType.toObject(documentType.decode(bytes), { longs: Number, oneofs: false, defaults: false, arrays: false });
  return toJson(documentType, message);
}

/**
 * Where the decoded document differs from the original. Protobuf (proto3) cannot tell a zero
 * scalar or an empty list from an absent one, so those may be missing from what was decoded.
 */
function differences(original: unknown, decoded: unknown, path = '', out: string[] = []): string[] {
  if (Array.isArray(original)) {
    if (!Array.isArray(decoded) || decoded.length !== original.length) out.push(`${path}: ${JSON.stringify(decoded)?.slice(0, 80)}`);
    else original.forEach((v, i) => differences(v, decoded[i], `${path}[${i}]`, out));
  } else if (isObject(original)) {
    if (!isObject(decoded)) out.push(`${path}: not an object`);
    else {
      for (const [k, v] of Object.entries(original)) {
        const zero = v === false || v === 0 || v === '' || (Array.isArray(v) && v.length === 0);
        if (!(k in decoded) && zero) continue;
        differences(v, decoded[k], `${path}/${k}`, out);
      }
      for (const k of Object.keys(decoded)) if (!(k in original)) out.push(`${path}/${k}: added`);
    }
  } else if (original !== decoded) out.push(`${path}: ${JSON.stringify(original)} became ${JSON.stringify(decoded)}`);
  return out;
}

describe('OpenAPI v2 as gnostic Protobuf', () => {
  it('decodes back to the whole vendored 1.25 document', { timeout: 60_000 }, () => {
    const doc = swaggerDocument() as unknown as JsonObject;
    const bytes = openApiV2Protobuf(doc);
    assert.ok(bytes.length > 1_000_000 && bytes.length < 4_000_000, `${bytes.length} bytes`);
    const decoded = decode(bytes);
    assert.deepEqual(differences(doc, decoded).slice(0, 20), []);
  });

  it('holds the vendor extensions as YAML that reads back to their values', { timeout: 30_000 }, () => {
    const documentType = openApiV2Types().lookupType('openapi.v2.Document');
    const message = documentType.toObject(documentType.decode(openApiV2Protobuf(swaggerDocument() as unknown as JsonObject))) as Plain;
    const definitions = (message['definitions'] as { additional_properties: Array<{ name: string; value: Plain }> }).additional_properties;
    const pod = definitions.find((d) => d.name === 'io.k8s.api.core.v1.Pod')!;
    const gvk = (pod.value['vendor_extension'] as Array<{ name: string; value: { yaml: string } }>).find((e) => e.name === 'x-kubernetes-group-version-kind')!;
    assert.equal(gvk.value.yaml, '- group: ""\n  kind: Pod\n  version: v1\n');
    assert.deepEqual((pod.value['type'] as { value: string[] }).value, ['object']);
  });

  it('chooses each oneof as gnostic does, and keeps what only some documents have', { timeout: 30_000 }, () => {
    const doc: JsonObject = {
      swagger: '2.0',
      info: { title: 't', version: 'v', 'x-note': 'yes' },
      paths: {
        'x-paths-note': { on: 'off' },
        '/things/{name}': {
          parameters: [{ $ref: '#/parameters/name' }, { name: 'name', in: 'path', required: true, type: 'string' }],
          post: {
            parameters: [
              { name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/Thing' } },
              { name: 'dryRun', in: 'query', type: 'string', uniqueItems: true },
              { name: 'X-Trace', in: 'header', type: 'string' },
              { name: 'upload', in: 'formData', type: 'file' },
              { name: 'ids', in: 'query', type: 'array', items: { type: 'integer', format: 'int64' }, collectionFormat: 'multi', maxItems: 3 },
            ],
            responses: { '200': { description: 'OK', schema: { type: 'file' } }, '404': { $ref: '#/responses/missing' }, default: { description: 'other', schema: { $ref: '#/definitions/Thing' } } },
            deprecated: true,
          },
        },
      },
      definitions: {
        Thing: {
          type: 'object',
          required: ['spec'],
          properties: {
            labels: { type: 'object', additionalProperties: { type: 'string' } },
            open: { type: 'object', additionalProperties: true },
            closed: { type: 'object', additionalProperties: false },
            tuple: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }] },
            size: { type: 'integer', minimum: 1, maximum: 10.5, default: 3, enum: [1, 2, 3] },
            mode: { type: ['string', 'null'], default: 'on' },
          },
          'x-kubernetes-preserve-unknown-fields': true,
          'x-kubernetes-list-map-keys': ['name', 'protocol'],
        },
      },
      parameters: { name: { name: 'name', in: 'path', required: true, type: 'string' } },
      responses: { missing: { description: 'not found' } },
      securityDefinitions: {
        token: { type: 'apiKey', name: 'authorization', in: 'header' },
        basic: { type: 'basic' },
        oauth: { type: 'oauth2', flow: 'accessCode', authorizationUrl: 'https://a', tokenUrl: 'https://t', scopes: { read: 'reads' } },
      },
      security: [{ token: [] }, { oauth: ['read'] }],
      tags: [{ name: 'things', externalDocs: { url: 'https://docs' } }],
    };
    const bytes = openApiV2Protobuf(doc);
    assert.deepEqual(differences(doc, decode(bytes)), []);

    // The oneof each value landed in, read from the message itself.
    const documentType = openApiV2Types().lookupType('openapi.v2.Document');
    const m = documentType.toObject(documentType.decode(bytes), { oneofs: true }) as Plain;
    const item = ((m['paths'] as Plain)['path'] as Plain[])[0]!['value'] as Plain;
    const [refParam, pathParam] = item['parameters'] as Plain[];
    assert.equal(refParam!['oneof'], 'json_reference');
    assert.equal(((pathParam!['parameter'] as Plain)['non_body_parameter'] as Plain)['oneof'], 'path_parameter_sub_schema');
    const post = item['post'] as Plain;
    const kinds = (post['parameters'] as Plain[]).map((p) => {
      const parameter = p['parameter'] as Plain;
      return parameter['oneof'] === 'body_parameter' ? 'body' : ((parameter['non_body_parameter'] as Plain)['oneof'] as string);
    });
    assert.deepEqual(kinds, ['body', 'query_parameter_sub_schema', 'header_parameter_sub_schema', 'form_data_parameter_sub_schema', 'query_parameter_sub_schema']);
    const responses = ((post['responses'] as Plain)['response_code'] as Plain[]).map((r) => (r['value'] as Plain)['oneof']);
    assert.deepEqual(responses, ['response', 'json_reference', 'response']);
    const okSchema = (((post['responses'] as Plain)['response_code'] as Plain[])[0]!['value'] as Plain)['response'] as Plain;
    assert.equal((okSchema['schema'] as Plain)['oneof'], 'file_schema');
    const security = ((m['security_definitions'] as Plain)['additional_properties'] as Plain[]).map((s) => (s['value'] as Plain)['oneof']);
    assert.deepEqual(security, ['api_key_security', 'basic_authentication_security', 'oauth2_access_code_security']);
    const thing = ((m['definitions'] as Plain)['additional_properties'] as Plain[])[0]!['value'] as Plain;
    const props = Object.fromEntries(((thing['properties'] as Plain)['additional_properties'] as Plain[]).map((p) => [p['name'], p['value'] as Plain]));
    assert.equal((props['labels']!['additional_properties'] as Plain)['oneof'], 'schema');
    assert.deepEqual(props['closed']!['additional_properties'], { boolean: false, oneof: 'boolean' });
    // YAML 1.1 readers take a bare `on` for true: the string stays quoted.
    assert.equal((props['mode']!['default'] as Plain)['yaml'], '"on"\n');
  });

  it('leaves out what the messages do not have instead of failing', { timeout: 30_000 }, () => {
    const doc: JsonObject = { swagger: '2.0', info: { title: 't', version: 'v' }, paths: {}, definitions: { A: { type: 'object', nullable: true, oneOf: [{ type: 'string' }], description: 'kept' } } };
    const decoded = decode(openApiV2Protobuf(doc)) as { definitions: Record<string, unknown> };
    assert.deepEqual(decoded.definitions, { A: { type: 'object', description: 'kept' } });
  });
});
