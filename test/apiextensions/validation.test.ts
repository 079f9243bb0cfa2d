// The CRD's own validation: the reference's field paths and messages, on create and update.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateCrdCreate, validateCrdUpdate } from '../../src/apiextensions/validation.js';
import { permissiveSchemaEngine } from '../../src/apiextensions/schema-engine.js';
import type { JsonObject } from '../../src/json.js';

const SCHEMA = { openAPIV3Schema: { type: 'object' } };

function crd(spec: JsonObject = {}, extra: JsonObject = {}): JsonObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
    metadata: { name: 'foos.example.com' },
    spec: {
      group: 'example.com', scope: 'Namespaced',
      names: { plural: 'foos', singular: 'foo', kind: 'Foo', listKind: 'FooList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: SCHEMA }],
      conversion: { strategy: 'None' },
      ...spec,
    },
    status: { storedVersions: ['v1'], acceptedNames: { plural: '', kind: '' }, conditions: null },
    ...extra,
  };
}

const lines = (obj: JsonObject, old?: JsonObject): string[] =>
  (old ? validateCrdUpdate(obj, old, permissiveSchemaEngine) : validateCrdCreate(obj, permissiveSchemaEngine)).map((e) => `${e.field}: ${e.detail}`);

describe('CustomResourceDefinition validation', () => {
  it('accepts a minimal CRD', () => {
    assert.deepEqual(lines(crd()), []);
  });

  it('names: DNS-1035 labels, kind and listKind differ, name is <plural>.<group>', () => {
    const errs = lines(crd({ names: { plural: 'Foos', singular: 'foo', kind: 'Foo', listKind: 'Foo', shortNames: ['f_'], categories: ['All'] } }));
    assert.ok(errs.includes('metadata.name: Invalid value: "foos.example.com": must be spec.names.plural+"."+spec.group'), errs.join('\n'));
    assert.ok(errs.some((e) => e.startsWith('spec.names.plural: Invalid value: "Foos": a DNS-1035 label must consist of lower case alphanumeric characters')), errs.join('\n'));
    assert.ok(errs.includes('spec.names.listKind: Invalid value: "Foo": kind and listKind may not be the same'), errs.join('\n'));
    assert.ok(errs.some((e) => e.startsWith('spec.names.shortNames[0]: Invalid value: "f_"')), errs.join('\n'));
    assert.ok(errs.some((e) => e.startsWith('spec.names.categories[0]: Invalid value: "All"')), errs.join('\n'));
  });

  it('group, scope, versions and schemas', () => {
    const errs = lines(crd({ group: '', scope: 'Global', versions: [{ name: 'v1', served: true, storage: true }, { name: 'v1', served: false, storage: true }] }));
    assert.ok(errs.includes('spec.group: Required value'), errs.join('\n'));
    assert.ok(errs.includes('spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"'), errs.join('\n'));
    assert.ok(errs.includes('spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required'), errs.join('\n'));
    assert.ok(errs.some((e) => e.startsWith('spec.versions: Invalid value: ') && e.endsWith('must contain unique version names')), errs.join('\n'));
    assert.ok(errs.some((e) => e.endsWith('must have exactly one version marked as storage version')), errs.join('\n'));
  });

  it('subresources and printer columns of identical versions are named at the top level', () => {
    const version = { served: true, storage: false, schema: SCHEMA, subresources: { scale: { specReplicasPath: 'spec.replicas', statusReplicasPath: '.spec.replicas' } }, additionalPrinterColumns: [{ name: 'X', type: 'money', jsonPath: 'x' }] };
    const errs = lines(crd({ versions: [{ ...version, name: 'v1', storage: true }] }));
    assert.ok(errs.includes('spec.subresources.scale.specReplicasPath: Invalid value: "spec.replicas": must be a simple json path starting with .'), errs.join('\n'));
    assert.ok(errs.includes('spec.subresources.scale.statusReplicasPath: Invalid value: ".spec.replicas": should be a json path under .status'), errs.join('\n'));
    assert.ok(errs.includes('spec.additionalPrinterColumns[0].type: Invalid value: "money": must be one of boolean,date,integer,number,string'), errs.join('\n'));
    assert.ok(errs.includes('spec.additionalPrinterColumns[0].JSONPath: Invalid value: "x": must be a simple json path starting with .'), errs.join('\n'));
  });

  it('conversion: webhook client config and review versions', () => {
    const errs = lines(crd({ conversion: { strategy: 'Webhook', webhook: { clientConfig: { url: 'http://x.example.com/convert' }, conversionReviewVersions: ['v2'] } } }));
    assert.ok(errs.some((e) => e.startsWith('spec.conversion.webhookClientConfig.url: Invalid value: "http": \'https\' is the only allowed URL scheme')), errs.join('\n'));
    assert.ok(errs.includes('spec.conversion.conversionReviewVersions: Invalid value: []string{"v2"}: must include at least one of v1, v1beta1'), errs.join('\n'));
    const none = lines(crd({ conversion: { strategy: 'None', webhook: { conversionReviewVersions: ['v1'] } } }));
    assert.deepEqual(none, ['spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook']);
  });

  it('preserveUnknownFields must be false; protected groups need approval', () => {
    assert.deepEqual(lines(crd({ preserveUnknownFields: true })), ['spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead']);
    const k8s = crd({ group: 'x.k8s.io' }, { metadata: { name: 'foos.x.k8s.io', annotations: { 'api-approved.kubernetes.io': 'maybe' } } });
    assert.deepEqual(lines(k8s), ['metadata.annotations[api-approved.kubernetes.io]: Invalid value: "maybe": protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111']);
    const bypassed = crd({ group: 'x.k8s.io' }, { metadata: { name: 'foos.x.k8s.io', annotations: { 'api-approved.kubernetes.io': 'unapproved, testing' } } });
    assert.deepEqual(lines(bypassed), []);
  });

  it('update: group and plural fixed; scope and kind fixed once established; stored versions stay in spec', () => {
    const old = crd({}, { status: { storedVersions: ['v1'], acceptedNames: { plural: 'foos', kind: 'Foo' }, conditions: [{ type: 'Established', status: 'True' }] } });
    const next = crd({ scope: 'Cluster', names: { plural: 'foos', singular: 'foo', kind: 'Bar', listKind: 'BarList' }, versions: [{ name: 'v2', served: true, storage: true, schema: SCHEMA }] }, { status: { storedVersions: ['v1', 'v2'], acceptedNames: { plural: 'foos', kind: 'Foo' } } });
    const errs = lines(next, old);
    assert.ok(errs.includes('spec.scope: Invalid value: "Cluster": field is immutable'), errs.join('\n'));
    assert.ok(errs.includes('spec.names.kind: Invalid value: "Bar": field is immutable'), errs.join('\n'));
    assert.ok(errs.includes('status.storedVersions[0]: Invalid value: "v1": must appear in spec.versions'), errs.join('\n'));
  });
});
