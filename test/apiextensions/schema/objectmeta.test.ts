// ObjectMeta in custom resources (cases learnt from the reference's objectmeta tests): decoding
// keeps only ObjectMeta's fields, wrong types are decode errors, embedded resources are checked
// for apiVersion, kind and valid metadata.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeObjectMeta, validateEmbeddedResource } from '../../../src/apiextensions/schema/objectmeta.js';
import { validateEmbeddedResources } from '../../../src/apiextensions/schema/index.js';
import { opts, structural, text } from './schema-helpers.js';

describe('ObjectMeta decoding', () => {
  it('keeps ObjectMeta fields, reports the others with their path', opts, () => {
    const d = decodeObjectMeta({ metadata: { name: 'a', namespace: 'ns', annotations: { x: 'y' }, unknown: 1, ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u', bogus: true }] } }, 'spec.template');
    assert.deepEqual(d?.value, { name: 'a', namespace: 'ns', annotations: { x: 'y' }, ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u' }] });
    assert.deepEqual([...(d?.unknown ?? [])].sort(), ['spec.template.metadata.ownerReferences[0].bogus', 'spec.template.metadata.unknown']);
  });
  it('no metadata is undefined, null metadata is empty, a string is an error', opts, () => {
    assert.equal(decodeObjectMeta({}, ''), undefined);
    assert.deepEqual(decodeObjectMeta({ metadata: null }, ''), { value: {}, unknown: [] });
    assert.equal(decodeObjectMeta({ metadata: 'x' }, '')?.error, 'json: cannot unmarshal string into Go value of type v1.ObjectMeta');
  });
});

describe('embedded resources', () => {
  it('want apiVersion and kind', opts, () => {
    assert.deepEqual(text(validateEmbeddedResource({}, 'spec.t')), ['spec.t.apiVersion: Required value: must not be empty', 'spec.t.kind: Required value: must not be empty']);
    assert.deepEqual(text(validateEmbeddedResource({ apiVersion: 'a/b/c', kind: 'Not_Valid' }, 'spec.t')), [
      'spec.t.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
      'spec.t.kind: Invalid value: "Not_Valid": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start with an alphabetic character, and end with an alphanumeric character (e.g. \'my-name\',  or \'abc-123\', regex used for validation is \'[a-z]([-a-z0-9]*[a-z0-9])?\')',
    ]);
    assert.deepEqual(validateEmbeddedResource({ apiVersion: 'v1', kind: 'ConfigMap' }, 'spec.t'), []);
  });
  it('check metadata as ObjectMeta: a missing name or Bad_Name is fine (a path segment), a/b or bad labels are not', opts, () => {
    assert.deepEqual(validateEmbeddedResource({ apiVersion: 'v1', kind: 'Pod', metadata: { labels: { a: 'b' } } }, 't'), []);
    assert.deepEqual(validateEmbeddedResource({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'Bad_Name' } }, 't'), []);
    const errs = text(validateEmbeddedResource({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a/b', labels: { 'bad key!': 'v' } } }, 't'));
    assert.ok(errs.some((e) => e === 't.metadata.name: Invalid value: "a/b": may not contain \'/\''), errs.join('\n'));
    assert.ok(errs.some((e) => e.startsWith('t.metadata.labels: Invalid value: "bad key!"')), errs.join('\n'));
  });
  it('are found wherever the schema marks them, also inside lists', opts, () => {
    const s = structural({ type: 'object', properties: { items: { type: 'array', items: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } } } });
    assert.deepEqual(text(validateEmbeddedResources({ items: [{ apiVersion: 'v1', kind: 'Pod' }, { kind: 'Pod' }] }, s)), ['items[1].apiVersion: Required value: must not be empty']);
  });
});
