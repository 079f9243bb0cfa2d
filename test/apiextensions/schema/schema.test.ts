// The CRD schema engine against the reference's behaviour: structural-schema rules, value
// validation messages, pruning, defaulting, list-type uniqueness, published OpenAPI, topology.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FieldError } from '../../../src/errors.js';
import {
  type JSONSchemaProps, type Structural, applyDefaults, fieldManagerSchema, publishedSchema, pruneCustomResource,
  structuralSchemaErrors, toStructural, validateCustomResource, validateValue, validateVersionSchema,
} from '../../../src/apiextensions/schema/index.js';

const text = (errs: FieldError[]) => errs.map((e) => `${e.field}: ${e.detail}`);
const opts = { timeout: 5000 };
function structural(s: JSONSchemaProps): Structural {
  const r = toStructural(s);
  assert.ok('structural' in r);
  return r.structural;
}

const CRONTAB: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['image'],
      properties: {
        image: { type: 'string', pattern: '^[a-z]+$' },
        replicas: { type: 'integer', minimum: 1, maximum: 10, default: 1 },
        mode: { type: 'string', enum: ['a', 'b'] },
        port: { 'x-kubernetes-int-or-string': true },
        when: { type: 'string', format: 'date-time' },
        tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set', maxItems: 3 },
        ports: {
          type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['port'],
          items: { type: 'object', required: ['port'], properties: { port: { type: 'integer' }, name: { type: 'string', default: 'http' } } },
        },
        extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        labels: { type: 'object', additionalProperties: { type: 'string', maxLength: 3 } },
        note: { type: 'string', nullable: true, default: 'n' },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object' } } },
      },
    },
  },
};

describe('structural schemas', () => {
  it('accepts a structural schema', opts, () => {
    assert.deepEqual(structuralSchemaErrors(CRONTAB, 'openAPIV3Schema'), []);
    assert.deepEqual(validateVersionSchema(CRONTAB, 'spec.versions[0].schema'), []);
  });
  it('wants types, refuses junctor generics and root metadata fields, with the reference messages', opts, () => {
    const errs = text(structuralSchemaErrors({
      type: 'object',
      properties: {
        a: {},
        b: { type: 'array' },
        c: { type: 'string', anyOf: [{ type: 'string', description: 'x' }] },
        metadata: { type: 'object', properties: { labels: { type: 'object' } } },
      },
    }, 'p'));
    assert.deepEqual(errs, [
      'p.properties[a].type: Required value: must not be empty for specified object fields',
      'p.properties[b].items: Required value: must be specified',
      'p.properties[c].anyOf[0].description: Forbidden: must be empty to be structural',
      'p.properties[c].anyOf[0].type: Forbidden: must be empty to be structural',
      'p.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified',
    ]);
  });
  it('lets int-or-string use its anyOf pattern and preserve-unknown-fields go untyped', opts, () => {
    assert.deepEqual(structuralSchemaErrors({ type: 'object', properties: { p: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] }, q: { 'x-kubernetes-preserve-unknown-fields': true } } }, 'p'), []);
  });
  it('reports the CRD-level schema rules', opts, () => {
    const errs = text(validateVersionSchema({
      type: 'object',
      properties: {
        a: { type: 'array', uniqueItems: true, items: { type: 'string' } },
        b: { type: 'string', $ref: '#/x' } as JSONSchemaProps,
        c: { type: 'object', properties: { x: { type: 'string' } }, additionalProperties: { type: 'string' } },
        d: { type: 'object', 'x-kubernetes-preserve-unknown-fields': false },
        e: { type: 'array', 'x-kubernetes-list-type': 'map', items: { type: 'object', properties: { k: { type: 'string' } } }, 'x-kubernetes-list-map-keys': ['k'] },
      },
    }, 'spec.versions[0].schema'));
    assert.ok(errs.includes('spec.versions[0].schema.openAPIV3Schema.properties[a].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic'), errs.join('\n'));
    assert.ok(errs.includes('spec.versions[0].schema.openAPIV3Schema.properties[b].$ref: Forbidden: $ref is not supported'));
    assert.ok(errs.includes('spec.versions[0].schema.openAPIV3Schema.properties[c].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive'));
    assert.ok(errs.includes('spec.versions[0].schema.openAPIV3Schema.properties[d].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined'));
    assert.ok(errs.includes('spec.versions[0].schema.openAPIV3Schema.properties[e].items.properties[k].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property'));
  });
  it('checks defaults: valid, pruned, not in top-level metadata', opts, () => {
    const errs = text(validateVersionSchema({
      type: 'object',
      properties: {
        spec: { type: 'object', properties: { r: { type: 'integer', minimum: 1, default: 0 }, o: { type: 'object', properties: { a: { type: 'string' } }, default: { a: 'x', b: 'y' } } } },
        metadata: { type: 'object', default: { name: 'x' } },
      },
    }, 'v'));
    assert.ok(errs.includes('v.openAPIV3Schema.properties[spec].properties[r].default: Invalid value: 0:  in body should be greater than or equal to 1'), errs.join('\n'));
    assert.ok(errs.includes('v.openAPIV3Schema.properties[spec].properties[o].default: Invalid value: map[string]interface {}{"a":"x", "b":"y"}: must not have unknown fields'), errs.join('\n'));
    assert.ok(errs.includes('v.openAPIV3Schema.properties[metadata].default: Forbidden: must not be set in top-level metadata'), errs.join('\n'));
  });
  it('refuses a schema nested past the bound without recursing into it', opts, () => {
    let s: JSONSchemaProps = { type: 'string' };
    for (let i = 0; i < 100_000; i++) s = { type: 'object', properties: { a: s } };
    assert.deepEqual(text(validateVersionSchema(s, 'v')), ['v.openAPIV3Schema: Forbidden: must not be nested deeper than 128 levels']);
  });
});

describe('validation of custom resources', () => {
  it('reports types, patterns, bounds, enums, required and formats as the reference', opts, () => {
    const errs = text(validateValue({ spec: { image: 'A1', replicas: 11, mode: 'c', port: true, when: 'yesterday', labels: { k: 'long' } } }, CRONTAB));
    assert.deepEqual(errs.sort(), [
      'spec.image: Invalid value: "A1": spec.image in body should match \'^[a-z]+$\'',
      'spec.labels.k: Too long: may not be longer than 3',
      'spec.mode: Unsupported value: "c": supported values: "a", "b"',
      'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
      'spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10',
      'spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"',
    ]);
    assert.deepEqual(text(validateValue({ spec: {} }, CRONTAB)), ['spec.image: Required value']);
    assert.deepEqual(text(validateValue({ spec: { image: 'a', replicas: 'x' } }, CRONTAB)), ['spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"']);
  });
  it('reports junctor failures at <nil>', opts, () => {
    const s: JSONSchemaProps = { type: 'object', properties: { field: { nullable: true, 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } } };
    assert.deepEqual(text(validateValue({ field: true }, s)), [
      'field: Invalid value: "boolean": field in body must be of type integer,string: "boolean"',
      '<nil>: Invalid value: "": "field" must validate at least one schema (anyOf)',
      'field: Invalid value: "boolean": field in body must be of type integer: "boolean"',
    ]);
    assert.deepEqual(validateValue({ field: null }, s), []);
  });
  it('finds duplicates in sets and maps, and checks embedded resources', opts, () => {
    const obj = { spec: { image: 'a', tags: ['x', 'x'], ports: [{ port: 80 }, { port: 80, name: 'b' }], template: { kind: 'Pod', metadata: { name: 'Bad_Name' } } } };
    const errs = text(validateCustomResource(obj, CRONTAB, structural(CRONTAB)));
    assert.ok(errs.includes('spec.template.apiVersion: Required value: must not be empty'), errs.join('\n'));
    assert.ok(errs.includes('spec.tags[1]: Duplicate value: "x"'));
    assert.ok(errs.includes('spec.ports[1]: Duplicate value: map[string]interface {}{"port":80}'));
  });
});

describe('defaulting and pruning', () => {
  it('defaults, then prunes the defaulted object, reporting unknown fields', opts, () => {
    const s = structural(CRONTAB);
    const obj: Record<string, unknown> = {
      apiVersion: 'x.io/v1', kind: 'CronTab', metadata: { name: 'a', bogus: 1 },
      spec: { image: 'a', ports: [{ port: 80 }], note: null, extra: { anything: { deep: true } }, unknown: 1, template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', what: 2 }, junk: 3 } },
      status: { x: 1 },
    };
    applyDefaults(obj, s);
    const r = pruneCustomResource(obj, s);
    assert.deepEqual(r, { unknownFields: ['metadata.bogus', 'spec.template.junk', 'spec.unknown', 'status', 'spec.template.metadata.what'] });
    assert.deepEqual(obj, {
      apiVersion: 'x.io/v1', kind: 'CronTab', metadata: { name: 'a' },
      spec: { image: 'a', replicas: 1, ports: [{ port: 80, name: 'http' }], note: null, extra: { anything: { deep: true } }, template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } } },
    });
  });
  it('replaces a null the schema does not allow by the default, drops it when there is none', opts, () => {
    const s = structural({ type: 'object', properties: { a: { type: 'string', default: 'x' }, b: { type: 'string' } } });
    const obj: Record<string, unknown> = { a: null, b: null };
    applyDefaults(obj, s);
    pruneCustomResource(obj, s);
    assert.deepEqual(obj, { a: 'x' });
  });
});

describe('published schema and topology', () => {
  it('publishes v3 with the standard fields and v2 without junctors and nullable', opts, () => {
    const s = structural(CRONTAB);
    const gvk = { group: 'x.io', version: 'v1', kind: 'CronTab' };
    const v3 = publishedSchema(s, gvk, 'v3') as any;
    assert.deepEqual(Object.keys(v3.properties), ['apiVersion', 'kind', 'metadata', 'spec']);
    assert.equal(v3.properties.metadata.$ref, '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    assert.deepEqual(v3.properties.spec.properties.port.anyOf, [{ type: 'integer' }, { type: 'string' }]);
    assert.deepEqual(v3['x-kubernetes-group-version-kind'], [{ group: 'x.io', kind: 'CronTab', version: 'v1' }]);
    const v2 = publishedSchema(s, gvk, 'v2') as any;
    assert.equal(v2.properties.spec.properties.port.anyOf, undefined);
    assert.equal(v2.properties.spec.properties.note.type, undefined);
    assert.equal(v2.properties.spec.properties.extra.type, undefined);
    assert.deepEqual(v2.properties.spec.properties.template.required, ['kind', 'apiVersion']);
  });
  it('gives the field manager the list and map topology', opts, () => {
    const t = fieldManagerSchema(structural(CRONTAB)) as any;
    assert.equal(t.properties.spec.properties.ports['x-kubernetes-list-type'], 'map');
    assert.deepEqual(t.properties.spec.properties.ports['x-kubernetes-list-map-keys'], ['port']);
    assert.equal(t.properties.spec.properties.port.type, undefined);
    assert.equal(t.properties.spec.properties.image.pattern, undefined);
  });
});
