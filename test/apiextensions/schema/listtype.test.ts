// x-kubernetes-list-type set and map: duplicates as the reference reports them (cases learnt from
// the reference's listtype tests).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type JSONSchemaProps, validateListSetsAndMaps } from '../../../src/apiextensions/schema/index.js';
import { opts, structural, text } from './schema-helpers.js';

const kinds = (errs: Array<{ type: string; field: string }>) => errs.map((e) => `${e.type} ${e.field}`);
const mapList = (keys: string[], items: JSONSchemaProps = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }): JSONSchemaProps =>
  ({ type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': keys, items });

describe('list sets', () => {
  const s = structural({ type: 'object', properties: { array: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } } } });
  it('reports each duplicated item once, at its second occurrence', opts, () => {
    assert.deepEqual(text(validateListSetsAndMaps({ array: ['a', 'a', 'b', 'c', 'd', 'c', 'a'] }, s)), ['array[1]: Duplicate value: "a"', 'array[5]: Duplicate value: "c"']);
    assert.deepEqual(validateListSetsAndMaps({ array: ['a', 'b'] }, s), []);
    assert.deepEqual(validateListSetsAndMaps({}, s), []);
  });
  it('finds sets under additionalProperties and items, and sets of sets', opts, () => {
    const nested = structural({
      type: 'object',
      properties: {
        byKey: { type: 'object', additionalProperties: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'integer' } } },
        outer: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } } },
      },
    });
    assert.deepEqual(text(validateListSetsAndMaps({ byKey: { x: [1, 2, 1] }, outer: [['a', 'a'], ['b'], ['b']] }, nested)), [
      'byKey[x][2]: Duplicate value: 1',
      'outer[2]: Duplicate value: []interface {}{"b"}',
      'outer[0][1]: Duplicate value: "a"',
    ]);
  });
});

describe('list maps', () => {
  it('keys on the list-map-keys only; a missing key differs from a null one; null items have the empty key', opts, () => {
    const s = structural({
      type: 'object',
      properties: {
        strings: mapList(['a'], { type: 'string' }),
        nil: mapList(['a'], { type: 'string', nullable: true }),
        'one key': mapList(['a']),
        'two keys': mapList(['a', 'b']),
        'undefined key': mapList(['a', 'b']),
        'compound key': mapList(['a']),
        'nil key': mapList(['a']),
        'nil item': mapList(['a']),
        'multiple duplicates': mapList(['a']),
      },
    });
    const obj = {
      strings: ['a'],
      nil: [null],
      'one key': [{ a: '0', c: '2' }, { a: '1', c: '1' }, { a: '1', c: '2' }, {}],
      'two keys': [{ a: '1', b: '1', c: '1' }, { a: '1', b: '2', c: '2' }, { a: '1', b: '2', c: '3' }, {}],
      'undefined key': [{ a: '1', b: '1', c: '1' }, { a: '1', c: '2' }, { a: '1', c: '3' }, {}],
      'compound key': [{ a: [], c: '1' }, { a: null, c: '1' }, { a: ['a'], c: '1' }, { a: ['a', 42], c: '2' }, { a: ['a', 42], c: ['3'] }],
      'nil key': [{ a: [], c: '1' }, { a: null, c: '1' }, { c: '1' }, { a: null }],
      'nil item': [null, { a: '0', c: '1' }, { a: null }, { c: '1' }],
      'multiple duplicates': [{ a: [], c: '1' }, { a: null, c: '1' }, { a: ['a'], c: '1' }, { a: ['a', 42], c: '2' }, { a: ['a', 42], c: ['3'] }, { a: ['a'], c: '1', d: '1' }, { a: ['a'], c: '1', d: '2' }],
    };
    const errs = validateListSetsAndMaps(obj, s);
    assert.deepEqual(kinds(errs).sort(), [
      'FieldValueDuplicate compound key[4]', 'FieldValueDuplicate multiple duplicates[4]', 'FieldValueDuplicate multiple duplicates[5]',
      'FieldValueDuplicate nil item[3]', 'FieldValueDuplicate nil key[3]', 'FieldValueDuplicate one key[2]', 'FieldValueDuplicate two keys[2]',
      'FieldValueDuplicate undefined key[2]', 'FieldValueInvalid strings[0]',
    ]);
    assert.ok(text(errs).includes('strings[0]: Invalid value: "a": must be an object for an array of list-type map'));
    assert.ok(text(errs).includes('two keys[2]: Duplicate value: map[string]interface {}{"a":"1", "b":"2"}'));
  });
});
