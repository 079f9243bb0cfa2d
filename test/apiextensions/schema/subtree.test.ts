// Whether a walk has anything to do under a schema node: defaults, embedded resources and list
// types are found wherever they lie (properties, additionalProperties, items), and nowhere else.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hasDefaults, hasEmbeddedResources, hasListTypes } from '../../../src/apiextensions/schema/subtree.js';
import { opts, structural } from './schema-helpers.js';

describe('schema subtrees', () => {
  const s = structural({
    type: 'object',
    properties: {
      plain: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'array', items: { type: 'string' } } } },
      deep: { type: 'object', additionalProperties: { type: 'array', items: { type: 'object', properties: { x: { type: 'integer', default: 1 } } } } },
      tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
      atomic: { type: 'array', 'x-kubernetes-list-type': 'atomic', items: { type: 'string' } },
      embedded: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
    },
  });
  const at = (name: string) => s.properties!.get(name)!;

  it('finds a default, an embedded resource or a set/map list below a node, however deep', opts, () => {
    assert.deepEqual([hasDefaults(s), hasEmbeddedResources(s), hasListTypes(s)], [true, true, true]);
    assert.deepEqual([hasDefaults(at('deep')), hasListTypes(at('tags')), hasEmbeddedResources(at('embedded'))], [true, true, true]);
  });

  it('finds nothing where there is nothing (an atomic list is no list type to check)', opts, () => {
    assert.deepEqual([hasDefaults(at('plain')), hasEmbeddedResources(at('plain')), hasListTypes(at('plain'))], [false, false, false]);
    assert.equal(hasListTypes(at('atomic')), false);
    assert.equal(hasDefaults(at('tags')), false);
    assert.equal(hasDefaults(undefined), false);
  });
});
