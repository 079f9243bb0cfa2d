// The rule against spurious writes: only managedFields times differ → nothing to store.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { onlyManagedFieldsTimesDiffer } from '../../src/fieldmanager/index.js';
import type { JsonObject } from '../../src/json.js';

const entry = (manager: string, time: string, fields: JsonObject = { 'f:data': { 'f:a': {} } }) => ({
  manager, operation: 'Apply', apiVersion: 'v1', time, fieldsType: 'FieldsV1', fieldsV1: fields,
});
const configMap = (data: JsonObject, managedFields: JsonObject[]): JsonObject => ({
  apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', resourceVersion: '5', managedFields }, data,
});

describe('onlyManagedFieldsTimesDiffer', { timeout: 10_000 }, () => {
  const stored = configMap({ a: '1' }, [entry('kubectl', '2024-01-01T00:00:00Z'), entry('other', '2024-01-01T00:00:00Z', { 'f:data': {} })]);

  it('holds for the same object, and for one whose entries differ in their times only', () => {
    assert.equal(onlyManagedFieldsTimesDiffer(structuredClone(stored), stored), true);
    const later = configMap({ a: '1' }, [entry('kubectl', '2024-01-01T00:00:09Z'), entry('other', '2024-01-01T00:00:01Z', { 'f:data': {} })]);
    assert.equal(onlyManagedFieldsTimesDiffer(later, stored), true);
  });

  it('fails for any other change: a value, an entry\'s fields, manager or order, an entry more', () => {
    assert.equal(onlyManagedFieldsTimesDiffer(configMap({ a: '2' }, [entry('kubectl', '2024-01-01T00:00:09Z'), entry('other', '2024-01-01T00:00:00Z', { 'f:data': {} })]), stored), false);
    assert.equal(onlyManagedFieldsTimesDiffer(configMap({ a: '1' }, [entry('kubectl', '2024-01-01T00:00:09Z', { 'f:data': {} }), entry('other', '2024-01-01T00:00:00Z', { 'f:data': {} })]), stored), false);
    assert.equal(onlyManagedFieldsTimesDiffer(configMap({ a: '1' }, [entry('other', '2024-01-01T00:00:00Z', { 'f:data': {} }), entry('kubectl', '2024-01-01T00:00:00Z')]), stored), false);
    assert.equal(onlyManagedFieldsTimesDiffer(configMap({ a: '1' }, [entry('kubectl', '2024-01-01T00:00:00Z')]), stored), false);
    const labelled = structuredClone(stored);
    (labelled['metadata'] as JsonObject)['labels'] = { x: 'y' };
    assert.equal(onlyManagedFieldsTimesDiffer(labelled, stored), false);
  });

  it('compares objects without managedFields as they are', () => {
    const plain = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } };
    assert.equal(onlyManagedFieldsTimesDiffer(structuredClone(plain), plain), true);
    assert.equal(onlyManagedFieldsTimesDiffer({ ...plain, data: { a: '2' } }, plain), false);
  });
});
