// Value validation (kube-openapi's checks and messages): RE2 patterns, formats, bounds, lengths,
// required, additionalProperties, nullable.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type JSONSchemaProps, validateValue } from '../../../src/apiextensions/schema/index.js';
import { opts, text } from './schema-helpers.js';

const one = (field: JSONSchemaProps, value: unknown) => text(validateValue({ f: value }, { type: 'object', properties: { f: field } }));

describe('value validation', () => {
  it('reads Go (RE2) patterns: leading flags, \\A and \\z, named groups', opts, () => {
    assert.deepEqual(one({ type: 'string', pattern: '^(?i)(abort|warn)?$' }, 'Abort'), []);
    assert.deepEqual(one({ type: 'string', pattern: '^(?i)(abort|warn)?$' }, 'stop'), ['f: Invalid value: "stop": f in body should match \'^(?i)(abort|warn)?$\'']);
    assert.deepEqual(one({ type: 'string', pattern: '\\Aab\\z' }, 'ab'), []);
    assert.equal(one({ type: 'string', pattern: '\\Aab\\z' }, 'ab\n').length, 1);
    assert.deepEqual(one({ type: 'string', pattern: '^(?P<word>[a-z]+)$' }, 'abc'), []);
  });
  it('matches in linear time: a backtracking pattern on a hostile value answers at once', opts, () => {
    const started = performance.now();
    const hostile = 'a'.repeat(100_000) + '!';
    assert.deepEqual(one({ type: 'string', pattern: '^(a+)+$' }, hostile).length, 1);
    assert.deepEqual(one({ type: 'string', pattern: '^(a|aa)*$' }, hostile).length, 1);
    assert.ok(performance.now() - started < 1000, `took ${performance.now() - started} ms`);
    assert.deepEqual(one({ type: 'string', pattern: '^[[:alpha:]]+$' }, 'abc'), []);
  });
  it('checks formats the reference keeps, and ignores int32/int64', opts, () => {
    assert.deepEqual(one({ type: 'string', format: 'uuid' }, 'nope'), ['f: Invalid value: "nope": f in body must be of type uuid: "nope"']);
    assert.deepEqual(one({ type: 'string', format: 'uuid' }, '123e4567-e89b-12d3-a456-426614174000'), []);
    assert.deepEqual(one({ type: 'integer', format: 'int32' }, 2 ** 40), []);
  });
  it('reports bounds and lengths with the reference wording', opts, () => {
    assert.deepEqual(one({ type: 'integer', minimum: 1, exclusiveMinimum: true }, 1), ['f: Invalid value: 1: f in body should be greater than 1']);
    assert.deepEqual(one({ type: 'string', minLength: 2 }, 'a'), ['f: Invalid value: "a": f in body should be at least 2 chars long']);
    assert.deepEqual(one({ type: 'array', items: { type: 'string' }, maxItems: 1 }, ['a', 'b']), ['f: Too many: 2: must have at most 1 items']);
    assert.deepEqual(one({ type: 'object', maxProperties: 1 }, { a: 1, b: 2 }), ['f: Too many: 2: must have at most 1 items']);
    assert.deepEqual(one({ type: 'number', multipleOf: 0.5 }, 0.7), ['f: Invalid value: 0.7: f in body should be a multiple of 0.5']);
  });
  it('accepts null only where nullable', opts, () => {
    assert.deepEqual(one({ type: 'string', nullable: true }, null), []);
    assert.deepEqual(one({ type: 'string' }, null), ['f: Invalid value: "null": f in body must be of type string: "null"']);
  });
  it('validates additionalProperties values by key', opts, () => {
    assert.deepEqual(one({ type: 'object', additionalProperties: { type: 'integer' } }, { a: 1, b: 'x' }), ['f.b: Invalid value: "string": f.b in body must be of type integer: "string"']);
  });
});
