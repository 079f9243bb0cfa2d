// Published schemas of a real CRD (cert-manager's Certificate): v3 keeps int-or-string's anyOf and
// the enums, v2 drops what OpenAPI v2 cannot say.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { publishedSchema } from '../../../src/apiextensions/schema/index.js';
import { fixtureSchema } from './crd-fixtures.js';
import { opts } from './schema-helpers.js';

type Node = { type?: string; enum?: unknown[]; anyOf?: unknown[]; properties?: Record<string, Node>; items?: Node; $ref?: string; 'x-kubernetes-int-or-string'?: boolean };

describe('published OpenAPI of a fixture CRD', () => {
  const { structural } = fixtureSchema('certificates.cert-manager.io');
  const gvk = { group: 'cert-manager.io', version: 'v1', kind: 'Certificate' };
  it('v3 has the standard fields, ObjectMeta by reference, the enums', opts, () => {
    const v3 = publishedSchema(structural, gvk, 'v3') as Node;
    assert.equal(v3.properties!['metadata']!.$ref, '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    assert.equal(v3.properties!['apiVersion']!.type, 'string');
    assert.deepEqual(v3.properties!['spec']!.properties!['privateKey']!.properties!['algorithm']!.enum, ['RSA', 'ECDSA', 'Ed25519']);
  });
  it('v2 refers to ObjectMeta under definitions', opts, () => {
    const v2 = publishedSchema(structural, gvk, 'v2') as Node;
    assert.equal(v2.properties!['metadata']!.$ref, '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    assert.equal(v2.properties!['spec']!.properties!['secretName']!.type, 'string');
  });
});
