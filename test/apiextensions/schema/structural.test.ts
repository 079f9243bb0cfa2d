// Structural-schema rules and the CRD-level schema checks, on small schemas and on the real CRDs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type JSONSchemaProps, schemaDepth, structuralSchemaErrors, validateVersionSchema } from '../../../src/apiextensions/schema/index.js';
import { opts, text } from './schema-helpers.js';

describe('structural schemas', () => {
  it('refuses a pattern RE2 cannot read either, but accepts RE2-only syntax', opts, () => {
    assert.deepEqual(text(structuralSchemaErrors({ type: 'object', properties: { a: { type: 'string', pattern: '^(?i)x$' }, b: { type: 'string', pattern: '\\Ax\\z' } } }, 'p')), []);
    const errs = text(structuralSchemaErrors({ type: 'object', properties: { a: { type: 'string', pattern: '(' } } }, 'p'));
    assert.equal(errs.length, 1);
    assert.equal(errs[0], 'p.properties[a].pattern: Invalid value: "(": must be a valid regular expression, but isn\'t: error parsing regexp: missing closing ): `(`');
  });
  it('wants items for arrays and a type for every field', opts, () => {
    assert.deepEqual(text(structuralSchemaErrors({ type: 'object', properties: { a: { type: 'array' } } }, 'p')), ['p.properties[a].items: Required value: must be specified']);
  });
  it('lets the status subresource\'s root say only what the reference allows', opts, () => {
    const errs = text(validateVersionSchema({ type: 'object', description: 'x', properties: { spec: { type: 'object' } }, maxProperties: 3 } as JSONSchemaProps, 'spec.versions[0].schema', { statusEnabled: true }));
    assert.equal(errs.length, 1);
    assert.match(errs[0]!, /only \[.*\] fields are allowed at the root of the schema if the status subresource is enabled$/);
  });
  it('measures depth without recursing past the bound', opts, () => {
    assert.equal(schemaDepth({ type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'string' } } } } }), 3);
  });
});
