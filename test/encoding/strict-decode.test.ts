// The decoders behind field validation, one message at a time: what the reference's strict
// JSON decoder, go-yaml, the unstructured converter and apply's typed check each say.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { quantityError } from '../../src/api/quantity.js';
import { goFloat, goValue } from '../../src/encoding/go-format.js';
import { base64Error, RFC3339, RFC3339_MICRO, timeError } from '../../src/encoding/go-scalars.js';
import { goTypeOf } from '../../src/encoding/go-types.js';
import { strictDecode } from '../../src/encoding/strict-json.js';
import { unstructuredDecode } from '../../src/encoding/unstructured-decode.js';
import { yamlDuplicateKeys } from '../../src/encoding/yaml-duplicates.js';
import { schemaFor } from '../../src/api/schema.js';
import { typedPatchError } from '../../src/fieldmanager/typecheck.js';

const gvk = (group: string, version: string, kind: string) => ({ group, version, kind });
const DEPLOYMENT = goTypeOf(schemaFor(gvk('apps', 'v1', 'Deployment')));
const SECRET = goTypeOf(schemaFor(gvk('', 'v1', 'Secret')));
const REVISION = goTypeOf(schemaFor(gvk('apps', 'v1', 'ControllerRevision')));

const decodeError = (body: unknown, target = DEPLOYMENT) => strictDecode(typeof body === 'string' ? body : JSON.stringify(body), target).error;
const container = (c: Record<string, unknown>) => ({ spec: { template: { spec: { containers: [{ name: 'c', ...c }] } } } });

describe('strict JSON decoding', () => {
  it('names the Go struct, the field path without list indexes, and the Go type', () => {
    assert.equal(decodeError({ spec: { replicas: true } }), 'json: cannot unmarshal bool into Go struct field DeploymentSpec.spec.replicas of type int32');
    assert.equal(decodeError(container({ ports: [{ containerPort: '80' }] })), 'json: cannot unmarshal string into Go struct field ContainerPort.spec.template.spec.containers.ports.containerPort of type int32');
    assert.equal(decodeError(container({ args: 'x' })), 'json: cannot unmarshal string into Go struct field Container.spec.template.spec.containers.args of type []string');
    assert.equal(decodeError(container({ resources: { limits: [] } })), 'json: cannot unmarshal array into Go struct field ResourceRequirements.spec.template.spec.containers.resources.limits of type v1.ResourceList');
    assert.equal(decodeError({ spec: { template: [] } }), 'json: cannot unmarshal array into Go struct field DeploymentSpec.spec.template of type v1.PodTemplateSpec');
    assert.equal(decodeError({ metadata: { labels: { a: 1 } } }), 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string');
    assert.equal(decodeError({ spec: { paused: 'yes' } }), 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.paused of type bool');
  });

  it('integers: the literal as written must parse and fit', () => {
    for (const literal of ['1.0', '1e3', '2147483648', '-2147483649']) {
      assert.equal(decodeError(`{"spec":{"replicas":${literal}}}`), `json: cannot unmarshal number ${literal} into Go struct field DeploymentSpec.spec.replicas of type int32`);
    }
    assert.equal(decodeError('{"spec":{"replicas":-0,"revisionHistoryLimit":2147483647}}'), undefined);
    assert.equal(decodeError('{"metadata":{"generation":9223372036854775808}}'), 'json: cannot unmarshal number 9223372036854775808 into Go struct field ObjectMeta.metadata.generation of type int64');
  });

  it('the first mistyped value is reported; a type\'s own decoder failing wins over it', () => {
    assert.equal(decodeError({ spec: { replicas: 'a', paused: 'b' } }), 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32');
    assert.equal(decodeError({ spec: { replicas: 'a', strategy: { rollingUpdate: { maxSurge: true } } } }), 'json: cannot unmarshal bool into Go struct field RollingUpdateDeployment.spec.strategy.rollingUpdate.maxSurge of type int32');
  });

  it('int-or-string, quantities, times and byte strings decode as their own types do', () => {
    assert.equal(decodeError({ spec: { strategy: { rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } } } }), undefined);
    assert.equal(decodeError({ spec: { strategy: { rollingUpdate: { maxSurge: 1.5 } } } }), 'json: cannot unmarshal number 1.5 into Go struct field RollingUpdateDeployment.spec.strategy.rollingUpdate.maxSurge of type int32');
    assert.equal(decodeError(container({ resources: { limits: { cpu: '100m', memory: 1e9 } } })), undefined);
    assert.match(decodeError(container({ resources: { limits: { cpu: 'lots' } } }))!, /^quantities must match the regular expression/);
    assert.equal(decodeError(container({ resources: { limits: { cpu: '1mm' } } })), "unable to parse quantity's suffix");
    assert.equal(decodeError({ metadata: { creationTimestamp: 5 } }), 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type string');
    assert.equal(decodeError({ metadata: { creationTimestamp: '2024-01-01' } }), 'parsing time "2024-01-01" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"');
    assert.equal(decodeError({ metadata: { creationTimestamp: null } }), undefined);
    assert.equal(decodeError({ data: { a: 'not base64!' } }, SECRET), 'illegal base64 data at input byte 3');
    assert.equal(decodeError({ data: { a: 'YWJj', b: 'YQ==' } }, SECRET), undefined);
  });

  it('raw fields take anything, unchecked; null is accepted everywhere', () => {
    assert.equal(decodeError('{"data":{"x":1,"x":[true]},"revision":null}', REVISION), undefined);
    assert.deepEqual(strictDecode('{"data":{"x":1,"x":2}}', REVISION).strict, []);
  });

  it('unknown fields are reported at their path and their values skipped; duplicates of known fields and map keys', () => {
    const r = strictDecode('{"spec":{"foo":{"replicas":"x","bar":1},"replicas":1,"replicas":2},"metadata":{"labels":{"a":"1","a":"2"}}}', DEPLOYMENT);
    assert.equal(r.error, undefined);
    assert.deepEqual(r.strict, ['unknown field "spec.foo"', 'duplicate field "spec.replicas"', 'duplicate field "metadata.labels.a"']);
    assert.deepEqual(r.unknownPaths, [['spec', 'foo']]);
    // An unknown key given twice is one unknown field (the reference dedups its complaints).
    assert.deepEqual(strictDecode('{"spec":{"foo":1,"foo":2}}', DEPLOYMENT).strict, ['unknown field "spec.foo"']);
  });

  it('keeps at most 100 complaints', () => {
    const keys = Array.from({ length: 150 }, (_, i) => `"f${i}":1`).join(',');
    assert.equal(strictDecode(`{${keys}}`, DEPLOYMENT).strict.length, 100);
  });
});

describe('duplicate keys in YAML', () => {
  it('go-yaml words: the line of the repeated key\'s value, inner complaints first', () => {
    assert.deepEqual(yamlDuplicateKeys('a: 1\nb:\n  c: 1\n  c: 2\nb:\n  d: 1\n  d: 2\n'), [
      'line 4: key "c" already set in map', 'line 7: key "d" already set in map', 'line 6: key "b" already set in map',
    ]);
    assert.deepEqual(yamlDuplicateKeys('{"a":1,"a":2,"b":{"c":1,"c":2}}'), ['line 1: key "a" already set in map', 'line 1: key "c" already set in map']);
    assert.deepEqual(yamlDuplicateKeys('a: 1\n'), []);
  });

  it('JSON bodies: repeats are found at any depth and through escapes; equal keys in different objects are no repeat', () => {
    assert.deepEqual(yamlDuplicateKeys('{"a":{"b":1,"c":[{"b":2,"b":3}]}}'), ['line 1: key "b" already set in map']);
    assert.deepEqual(yamlDuplicateKeys('{"a\\u0062":1,"ab":2}'), ['line 1: key "ab" already set in map']);
    assert.deepEqual(yamlDuplicateKeys('{"a":[1,{"a":1}],"b":{"a":1},"c":"x,\\"a\\":"}'), []);
    assert.deepEqual(yamlDuplicateKeys('{\n  "spec": {\n    "replicas": 1,\n    "replicas": 2\n  }\n}\n'), ['line 4: key "replicas" already set in map']);
  });
});

describe('scalar parsers', () => {
  it('quantities', () => {
    for (const ok of ['1', '0', '1.5', '.5', '100m', '1Gi', '1e3', '1E-3', '+1', '-1Ki', ' 2 ']) assert.equal(quantityError(ok), undefined, ok);
    for (const bad of ['', 'abc', '1.2.3', '1 Gi', '1kb']) assert.match(quantityError(bad)!, /^quantities must match/, bad);
    for (const bad of ['1mm', '1Ki2', '--1', '1e']) assert.equal(quantityError(bad), "unable to parse quantity's suffix", bad);
  });

  it('RFC 3339 times, as time.Parse complains', () => {
    assert.equal(timeError('2024-01-02T03:04:05Z', RFC3339), undefined);
    assert.equal(timeError('2024-01-02T03:04:05.123+02:00', RFC3339), undefined);
    assert.equal(timeError('2024-02-30T00:00:00Z', RFC3339), 'parsing time "2024-02-30T00:00:00Z": day out of range');
    assert.equal(timeError('2024-01-02T25:00:00Z', RFC3339), 'parsing time "2024-01-02T25:00:00Z": hour out of range');
    assert.equal(timeError('2024-01-02 03:04:05Z', RFC3339), 'parsing time "2024-01-02 03:04:05Z" as "2006-01-02T15:04:05Z07:00": cannot parse " 03:04:05Z" as "T"');
    assert.equal(timeError('2024-01-02T03:04:05', RFC3339), 'parsing time "2024-01-02T03:04:05" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "Z07:00"');
    assert.equal(timeError('2024-01-02T03:04:05.000001Z', RFC3339_MICRO), undefined);
    assert.equal(timeError('2024-01-02T03:04:05Z', RFC3339_MICRO), 'parsing time "2024-01-02T03:04:05Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"');
  });

  it('base64 as Go\'s standard encoding decodes it', () => {
    assert.equal(base64Error('YWJj'), undefined);
    assert.equal(base64Error('YWI=\n'), undefined);
    assert.equal(base64Error('YWJ'), 'illegal base64 data at input byte 0');
    assert.equal(base64Error('YWJjZ'), 'illegal base64 data at input byte 4');
    assert.equal(base64Error('YQ='), 'illegal base64 data at input byte 3');
    assert.equal(base64Error('YQ==YQ=='), 'illegal base64 data at input byte 4');
  });

  it('Go\'s %v of decoded values', () => {
    assert.equal(goFloat(1.5), '1.5');
    assert.equal(goFloat(1e6), '1e+06');
    assert.equal(goFloat(0.00001), '1e-05');
    assert.equal(goValue({ b: [1, 'x'], a: { c: null } }, true), 'map[a:map[c:<nil>] b:[1 x]]');
  });
});

describe('the unstructured converter (strategic merge patch results)', () => {
  it('sorted unknown fields, map keys left out of paths, and conversion errors', () => {
    const r = unstructuredDecode({ spec: { zz: 1, template: { spec: { containers: [{ name: 'c', foo: 1 }] } }, aa: 2 } }, DEPLOYMENT);
    assert.deepEqual(r.unknown, ['unknown field "spec.aa"', 'unknown field "spec.template.spec.containers[0].foo"', 'unknown field "spec.zz"']);
    assert.equal(unstructuredDecode({ spec: { replicas: 'x' } }, DEPLOYMENT).error, 'unrecognized type: int32');
    assert.equal(unstructuredDecode({ spec: { replicas: 1.5 } }, DEPLOYMENT).error, 'cannot convert float64 to int32');
    assert.equal(unstructuredDecode({ spec: { template: 'x' } }, DEPLOYMENT).error, 'cannot restore struct from: string');
    assert.equal(unstructuredDecode({ metadata: { name: 5 } }, DEPLOYMENT).error, 'cannot convert int64 to string');
    assert.equal(unstructuredDecode({ spec: { strategy: { rollingUpdate: { maxSurge: true } } } }, DEPLOYMENT).error, 'json: cannot unmarshal bool into Go value of type int32');
  });
});

describe('apply\'s typed check (structured-merge-diff)', () => {
  const schema = schemaFor(gvk('apps', 'v1', 'Deployment'));
  it('undeclared fields and wrong types, with list items named by their keys', () => {
    assert.equal(typedPatchError({ spec: { replicas: 'x' } }, schema), '.spec.replicas: expected numeric (int or float), got string');
    assert.equal(typedPatchError({ spec: { paused: 1 } }, schema), '.spec.paused: expected boolean, got &{1}');
    assert.equal(typedPatchError({ spec: { template: { spec: { containers: [{ name: 'c', image: 1 }] } } } }, schema), '.spec.template.spec.containers[name="c"].image: expected string, got &value.valueUnstructured{Value:1}');
    assert.equal(typedPatchError({ spec: { strategy: { rollingUpdate: { maxSurge: {} } } } }, schema), '.spec.strategy.rollingUpdate.maxSurge: expected any scalar, got &{map[]}');
    assert.equal(typedPatchError({ spec: { selector: 'x' } }, schema), '.spec.selector: expected map, got &{x}');
    assert.equal(typedPatchError({ spec: { replicas: 'x', foo: 1 }, metadata: { labels: { a: 1 } } }, schema), 'errors:\n  .spec.replicas: expected numeric (int or float), got string\n  .spec.foo: field not declared in schema\n  .metadata.labels.a: expected string, got &value.valueUnstructured{Value:1}');
    assert.equal(typedPatchError({ spec: { replicas: 1, strategy: { rollingUpdate: { maxSurge: '25%' } } } }, schema), '');
  });
});
