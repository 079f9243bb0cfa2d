// The JSONPath of CRD printer columns and scale paths: simple paths for scale, and for columns the
// filters real CRDs use on their conditions (cert-manager's Ready, the Prometheus operator's Reconciled).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseColumnPath, parseJsonPath, valuesAt } from '../../src/apiextensions/json-path.js';
import { printerFor } from '../../src/apiextensions/printer-columns.js';

const certificate = {
  metadata: { name: 'example-com', creationTimestamp: '2023-03-01T00:00:00Z' },
  spec: { secretName: 'example-com-tls', replicas: 2 },
  status: { conditions: [{ type: 'Issuing', status: 'False' }, { type: 'Ready', status: 'True', message: 'up to date', observedGeneration: 3 }] },
};

describe('CRD JSONPath', () => {
  it('keeps scale paths simple', { timeout: 1_000 }, () => {
    assert.deepEqual(parseJsonPath('.spec.replicas'), ['spec', 'replicas']);
    assert.deepEqual(parseJsonPath(".metadata.labels['app']"), ['metadata', 'labels', 'app']);
    assert.equal(parseJsonPath('.status.conditions[?(@.type=="Ready")].status'), undefined);
  });

  it('finds the values a printer column asks for, filters and wildcards included', { timeout: 1_000 }, () => {
    const find = (path: string) => valuesAt(certificate, parseColumnPath(path)!);
    assert.deepEqual(find('.status.conditions[?(@.type=="Ready")].status'), ['True']);
    assert.deepEqual(find(".status.conditions[?(@.type == 'Ready')].message"), ['up to date']);
    assert.deepEqual(find('.status.conditions[?(@.type!="Ready")].type'), ['Issuing']);
    assert.deepEqual(find('.status.conditions[?(@.observedGeneration>=3)].type'), ['Ready']);
    assert.deepEqual(find('.status.conditions[?(@.message)].type'), ['Ready']);
    assert.deepEqual(find('.status.conditions[*].type'), ['Issuing', 'Ready']);
    assert.deepEqual(find('.status.conditions[?(@.type=="Gone")].status'), []);
    assert.deepEqual(find('.spec.replicas'), [2]);
    assert.equal(parseColumnPath('.spec..replicas'), undefined);
  });

  it('fills Table cells from filtered paths, empty when no condition matches', { timeout: 1_000 }, () => {
    const printer = printerFor([
      { name: 'Ready', type: 'string', format: '', description: '', priority: 0, jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
      { name: 'Denied', type: 'string', format: '', description: '', priority: 0, jsonPath: '.status.conditions[?(@.type=="Denied")].status' },
      { name: 'Secret', type: 'string', format: '', description: '', priority: 0, jsonPath: '.spec.secretName' },
    ]);
    assert.deepEqual(printer.cells(certificate, Date.parse('2023-03-01T00:00:10Z')), ['example-com', 'True', null, 'example-com-tls']);
  });
});
