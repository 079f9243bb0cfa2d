// Defaulting from the schema (cases learnt from the reference's defaulting tests): missing fields
// and nulls the schema does not allow get the default, in objects, array items and
// additionalProperties values; nullable nulls, present values and unknown fields stay.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type JSONSchemaProps, applyDefaults } from '../../../src/apiextensions/schema/index.js';
import { opts, structural } from './schema-helpers.js';

function defaulted(value: unknown, s: JSONSchemaProps): unknown {
  const v = structuredClone(value);
  applyDefaults(v, structural(s));
  return v;
}

const abc: JSONSchemaProps = { type: 'object', properties: { a: { type: 'string', default: 'A' }, b: { type: 'string', default: 'B' }, c: { type: 'string', default: 'C' } } };

describe('defaulting', () => {
  it('leaves scalars and scalar arrays alone', opts, () => {
    assert.equal(defaulted(4, { type: 'integer', default: 1 }), 4);
    assert.deepEqual(defaulted([1, 2], { type: 'array', items: { type: 'integer', default: 3 } }), [1, 2]);
    assert.equal(defaulted(null, abc), null);
  });
  it('fills missing fields of object items; present values stay whatever they are', opts, () => {
    assert.deepEqual(defaulted([{ a: 1 }, { b: 1 }, { c: 1 }], { type: 'array', items: abc }), [{ a: 1, b: 'B', c: 'C' }, { a: 'A', b: 1, c: 'C' }, { a: 'A', b: 'B', c: 1 }]);
  });
  it('reaches into arrays, objects and additionalProperties values', opts, () => {
    const s: JSONSchemaProps = {
      type: 'object',
      properties: {
        array: { type: 'array', items: { type: 'object', properties: { a: { type: 'string', default: 'A' }, b: { type: 'string', default: 'B' } } } },
        object: { type: 'object', properties: { a: { type: 'string', default: 'N' }, b: { type: 'string', default: 'O' } } },
        additionalProperties: { type: 'object', additionalProperties: { type: 'object', properties: { a: { type: 'string', default: 'alpha' }, b: { type: 'string', default: 'beta' } } } },
        foo: { type: 'string', default: 'bar' },
      },
    };
    assert.deepEqual(defaulted({ array: [{ a: 1 }, { b: 2 }], object: { a: 1 }, additionalProperties: { x: { a: 1 }, y: { b: 2 } } }, s), {
      array: [{ a: 1, b: 'B' }, { a: 'A', b: 2 }], object: { a: 1, b: 'O' }, additionalProperties: { x: { a: 1, b: 'beta' }, y: { a: 'alpha', b: 2 } }, foo: 'bar',
    });
  });
  it('treats only missing and null as empty: 0, "", [] and {} stay', opts, () => {
    const s: JSONSchemaProps = { type: 'array', items: { type: 'object', properties: { a: { 'x-kubernetes-preserve-unknown-fields': true, default: 'A' } } } };
    assert.deepEqual(defaulted([{}, { a: 1 }, { a: 0 }, { a: '' }, { a: null }, { a: [] }, { a: {} }], s), [{ a: 'A' }, { a: 1 }, { a: 0 }, { a: '' }, { a: 'A' }, { a: [] }, { a: {} }]);
  });
  it('keeps a null the schema allows and replaces one it does not', opts, () => {
    assert.deepEqual(defaulted([null], { type: 'array', nullable: true, items: { type: 'object', nullable: true, properties: { a: { type: 'string', default: 'A' } } } }), [null]);
    assert.deepEqual(defaulted([null], { type: 'array', items: { type: 'string', default: 'A' } }), ['A']);
    assert.deepEqual(defaulted({ a: null }, { type: 'object', properties: { a: { type: 'string', nullable: true, default: 'A' } } }), { a: null });
    assert.deepEqual(defaulted({ a: null }, { type: 'object', properties: { a: { type: 'string', default: 'A' } } }), { a: 'A' });
    assert.deepEqual(defaulted({ a: null }, { type: 'object', additionalProperties: { type: 'string', nullable: true, default: 'A' } }), { a: null });
    assert.deepEqual(defaulted({ a: null }, { type: 'object', additionalProperties: { type: 'string', default: 'A' } }), { a: 'A' });
    assert.deepEqual(defaulted({ a: null }, { type: 'object', additionalProperties: true }), { a: null });
  });
  it('copies each default: filling two objects shares nothing', opts, () => {
    const s: JSONSchemaProps = { type: 'array', items: { type: 'object', properties: { o: { type: 'object', default: { k: 'v' }, properties: { k: { type: 'string' } } } } } };
    const v = defaulted([{}, {}], s) as Array<{ o: { k: string } }>;
    v[0]!.o.k = 'changed';
    assert.equal(v[1]!.o.k, 'v');
  });
});
