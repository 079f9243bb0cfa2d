// Pruning (cases learnt from the reference's pruning tests): undeclared fields dropped with their
// paths, additionalProperties (schema or false), preserve-unknown-fields subtrees, embedded
// resources keeping apiVersion/kind/metadata, and nulls the schema neither allows nor defaults.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type JSONSchemaProps, pruneCustomResource, pruneValue } from '../../../src/apiextensions/schema/index.js';
import { opts, structural } from './schema-helpers.js';

function pruned(value: unknown, s: JSONSchemaProps | undefined, root = false): { value: unknown; paths: string[] } {
  const v = structuredClone(value);
  const paths = pruneValue(v, s ? structural(s) : undefined, root);
  return { value: v, paths };
}

describe('pruning', () => {
  it('leaves scalars; without a schema drops every field of objects', opts, () => {
    assert.deepEqual(pruned(4, { type: 'integer' }), { value: 4, paths: [] });
    assert.deepEqual(pruned([{ a: 1 }, { b: 1 }, { a: 1, b: 2, c: 3 }], undefined), { value: [{}, {}, {}], paths: ['[0].a', '[1].b', '[2].a', '[2].b', '[2].c'] });
  });
  it('drops undeclared fields in arrays and objects, with sorted paths', opts, () => {
    const s: JSONSchemaProps = {
      type: 'object',
      properties: {
        array: { type: 'array', items: { type: 'object', properties: { a: { type: 'integer' }, c: { type: 'integer' } } } },
        specified: { type: 'object', properties: { a: { type: 'integer' }, c: { type: 'integer' } } },
      },
    };
    assert.deepEqual(pruned({ array: [{ a: 1 }, { b: 1 }, { a: 1, b: 2, c: 3 }], unspecified: { a: 1 }, specified: { a: 1, b: 2, c: 3 } }, s), {
      value: { array: [{ a: 1 }, {}, { a: 1, c: 3 }], specified: { a: 1, c: 3 } },
      paths: ['array[1].b', 'array[2].b', 'specified.b', 'unspecified'],
    });
  });
  it('prunes inside additionalProperties values; additionalProperties false keeps keys, prunes their objects', opts, () => {
    const withSchema: JSONSchemaProps = { type: 'object', properties: { a: { type: 'integer' }, c: { type: 'object', additionalProperties: { type: 'integer' } } } };
    assert.deepEqual(pruned({ a: 1, b: 1, c: { a: 1, b: 2, c: { a: 1 } } }, withSchema), { value: { a: 1, c: { a: 1, b: 2, c: {} } }, paths: ['b', 'c.c.a'] });
    const withFalse: JSONSchemaProps = { type: 'object', properties: { a: { type: 'integer' }, c: { type: 'object', additionalProperties: false } } };
    assert.deepEqual(pruned({ a: 1, b: 1, c: { a: 1, b: 2, c: { a: 1, apiVersion: 'unknown' } } }, withFalse), { value: { a: 1, c: { a: 1, b: 2, c: {} } }, paths: ['b', 'c.c.a', 'c.c.apiVersion'] });
  });
  it('keeps what x-kubernetes-preserve-unknown-fields covers, still pruning declared fields inside', opts, () => {
    const s: JSONSchemaProps = {
      type: 'object',
      properties: {
        preserving: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { pruning: { type: 'object', properties: { specified: { type: 'string' } } } } },
      },
    };
    assert.deepEqual(pruned({ preserving: { unspecified: { deep: 1 }, pruning: { specified: 'x', unspecified: 2 } } }, s), {
      value: { preserving: { unspecified: { deep: 1 }, pruning: { specified: 'x' } } },
      paths: ['preserving.pruning.unspecified'],
    });
  });
  it('keeps apiVersion, kind and metadata of embedded resources and of the root', opts, () => {
    const s: JSONSchemaProps = {
      type: 'object',
      properties: {
        embedded: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object', properties: { a: { type: 'string' } } } } },
        plain: { type: 'object', properties: { spec: { type: 'object' } } },
      },
    };
    const obj = { apiVersion: 'x/v1', kind: 'K', metadata: { name: 'n' }, unspecified: 1, embedded: { apiVersion: 'v1', kind: 'Pod', metadata: {}, spec: { a: 'x', b: 'y' }, unspecified: 2 }, plain: { apiVersion: 'v1', kind: 'Pod', metadata: {} } };
    assert.deepEqual(pruned(obj, s, true), {
      value: { apiVersion: 'x/v1', kind: 'K', metadata: { name: 'n' }, embedded: { apiVersion: 'v1', kind: 'Pod', metadata: {}, spec: { a: 'x' } }, plain: {} },
      paths: ['embedded.spec.b', 'embedded.unspecified', 'plain.apiVersion', 'plain.kind', 'plain.metadata', 'unspecified'],
    });
  });
  it('drops nulls the schema neither allows nor defaults, keeps the others', opts, () => {
    const s = structural({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'string', nullable: true }, c: { type: 'array', items: { type: 'string' } }, m: { type: 'object', additionalProperties: { type: 'string' } } } });
    const obj: Record<string, unknown> = { a: null, b: null, c: [null], m: { k: null } };
    assert.deepEqual(pruneCustomResource(obj, s), { unknownFields: [] });
    assert.deepEqual(obj, { b: null, c: [null], m: {} });
  });
  it('reduces the object\'s metadata to ObjectMeta, reporting the rest; refuses a malformed one', opts, () => {
    const s = structural({ type: 'object', properties: { spec: { type: 'object' } } });
    const obj: Record<string, unknown> = { apiVersion: 'x/v1', kind: 'K', metadata: { name: 'n', labels: { a: 'b' }, foo: 1 }, spec: {} };
    assert.deepEqual(pruneCustomResource(obj, s), { unknownFields: ['metadata.foo'] });
    assert.deepEqual(obj['metadata'], { name: 'n', labels: { a: 'b' } });
    const bad = pruneCustomResource({ apiVersion: 'x/v1', kind: 'K', metadata: { name: 'n', labels: 'x' } }, s);
    assert.equal(bad.error?.field, 'metadata');
    assert.match(bad.error?.detail ?? '', /cannot unmarshal string into Go struct field ObjectMeta\.labels of type map\[string\]string/);
  });
});
