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

  it('reads a copy (the watch cache\'s) as the bytes copied read, without decoding it again', opts, () => {
    let decoded = 0;
    const reads = storedReads((v) => {
      decoded++;
      return v === 'v2' ? v2 : v1;
    }, versionOf);
    // Written under the current schema: its copy reads back as it is.
    const written = bytes(thing('g.example.com/v1', { size: 2 }));
    reads.written(written);
    const writtenCopy = Buffer.from(written);
    reads.copied(written, writtenCopy);
    assert.equal(reads.read(writtenCopy), writtenCopy);
    // Read once (pruned and defaulted): its copy reads as that.
    const stored = bytes(thing('g.example.com/v1', { size: 1, legacy: 'x' }));
    const read = reads.read(stored);
    assert.equal(decoded, 1);
    const storedCopy = Buffer.from(stored);
    reads.copied(stored, storedCopy);
    assert.equal(reads.read(storedCopy), read);
    assert.equal(decoded, 1, 'no copy decoded');
    // A copy it was not told of is decoded, as any stored version (and defaulted: this one was
    // written without the default, which no write under the schema would be).
    const untold = Buffer.from(written);
    assert.deepEqual(JSON.parse(reads.read(untold).toString()), thing('g.example.com/v1', { size: 2, color: 'red' }));
    assert.equal(decoded, 2);
  });
});
