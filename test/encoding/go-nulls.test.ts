// Nulls inside built-in objects, settled as the reference's typed decoding leaves them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { schemaFor } from '../../src/api/schema.js';
import { settleNulls } from '../../src/encoding/go-nulls.js';
import { goTypeOf } from '../../src/encoding/go-types.js';

const typeOf = (group: string, version: string, kind: string) => goTypeOf(schemaFor({ group, version, kind }));
const settled = (value: Record<string, unknown>, type = typeOf('', 'v1', 'Pod')) => {
  settleNulls(value, type);
  return value;
};

describe('settleNulls', { timeout: 10_000 }, () => {
  it('drops a struct field set to null', () => {
    assert.deepEqual(settled({ metadata: { name: 'p', labels: null, deletionTimestamp: null }, spec: null }), { metadata: { name: 'p' } });
    assert.deepEqual(settled({ spec: { replicas: null, template: { spec: { containers: [{ name: 'c', image: null }] } } } }, typeOf('apps', 'v1', 'Deployment')),
      { spec: { template: { spec: { containers: [{ name: 'c' }] } } } });
  });

  it('makes a null list item or map value its type zero value', () => {
    assert.deepEqual(settled({ spec: { containers: [null, { name: 'c', args: ['a', null], resources: { limits: { cpu: null } } }] } }),
      { spec: { containers: [{}, { name: 'c', args: ['a', ''], resources: { limits: { cpu: '0' } } }] } });
    assert.deepEqual(settled({ data: { a: null, b: 'x' }, binaryData: { c: null } }, typeOf('', 'v1', 'ConfigMap')), { data: { a: '', b: 'x' }, binaryData: { c: null } });
  });

  it('leaves nulls inside untyped values alone', () => {
    const revision = { data: { spec: { a: null } }, revision: 1 };
    assert.deepEqual(settled(revision, typeOf('apps', 'v1', 'ControllerRevision')), { data: { spec: { a: null } }, revision: 1 });
  });
});
