// Custom resources read back from storage: under the schema of the version they are stored in,
// pruned then defaulted; what was written under the current schema reads back as it is, and
// what reading made of a stored version is made once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { storedReads } from '../../src/apiextensions/stored-reads.js';
import { structuralSchemaEngine } from '../../src/apiextensions/structural-engine.js';
import type { JsonObject } from '../../src/json.js';

const opts = { timeout: 5000 };
const kind = { group: 'g.example.com', version: 'v1', kind: 'Thing' };
const v1 = structuralSchemaEngine.compile({
  type: 'object',
  properties: { spec: { type: 'object', properties: { size: { type: 'integer' }, color: { type: 'string', default: 'red' } } } },
}, kind);
const v2 = structuralSchemaEngine.compile({ type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }, { ...kind, version: 'v2' });
const versionOf = (obj: JsonObject) => String(obj['apiVersion']).split('/')[1]!;
const bytes = (obj: JsonObject) => Buffer.from(JSON.stringify(obj));
const thing = (apiVersion: string, spec: JsonObject): JsonObject => ({ kind: 'Thing', apiVersion, metadata: { name: 't', resourceVersion: '5' }, spec });

describe('stored reads', () => {
  it('prunes and defaults a version stored under another schema, once', opts, () => {
    const reads = storedReads((v) => (v === 'v2' ? v2 : v1), versionOf);
    const stored = bytes(thing('g.example.com/v1', { size: 1, legacy: 'x' }));
    const read = reads.read(stored);
    assert.deepEqual(JSON.parse(read.toString()), thing('g.example.com/v1', { size: 1, color: 'red' }));
    assert.equal(reads.read(stored), read, 'the same bytes again');
    // Another stored version's schema: nothing to prune or default there.
    const other = bytes(thing('g.example.com/v2', { anything: true }));
    assert.equal(reads.read(other), other);
  });

  it('serves the stored bytes themselves when reading changes nothing, and what was written as it is', opts, () => {
    const reads = storedReads(() => v1, versionOf);
    const current = bytes(thing('g.example.com/v1', { size: 1, color: 'blue' }));
    assert.equal(reads.read(current), current);
    const written = bytes(thing('g.example.com/v1', { size: 2 }));
    reads.written(written);
    assert.equal(reads.read(written), written);
  });
});
