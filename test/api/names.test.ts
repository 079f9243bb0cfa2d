import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { invalid } from '../../src/errors.js';
import {
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
  validateObjectMeta,
  validateObjectName,
} from '../../src/api/names.js';
import { referenceDir } from '../helpers.js';

function fixture(name: string): any {
  return JSON.parse(readFileSync(path.join(referenceDir, name), 'utf8'));
}

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1035_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

test('the uppercase name answer matches the reference fixture', () => {
  const f = fixture('errors/create-invalid-name-uppercase.json');
  const meta = { ...f.request.body.metadata, namespace: 'ref-errors' };
  const errs = validateObjectMeta(meta, 'subdomain', true);
  const status = invalid('ConfigMap', '', meta.name, errs).toStatus();
  // Compared as served: serialized JSON (undefined members drop out), byte for byte.
  assert.deepEqual(JSON.parse(JSON.stringify(status)), f.response.body);
  assert.equal(JSON.stringify(status) + '\n', f.response.rawBody);
  assert.deepEqual(isDNS1123Subdomain('MyConfig'), [SUBDOMAIN_MSG]);
});

test('the label value message matches the reference fixture', () => {
  const f = fixture('errors/list-invalid-label-selector-value.json');
  assert.ok(f.response.body.message.endsWith(`Invalid value: "-bad-": ${LABEL_VALUE_MSG}`));
  assert.deepEqual(isValidLabelValue('-bad-'), [LABEL_VALUE_MSG]);
});

test('DNS-1123 subdomains', () => {
  for (const ok of ['a', 'example.com', 'a-b.c-d', '0', 'x'.repeat(253), `${'a'.repeat(63)}.${'b'.repeat(63)}`]) assert.deepEqual(isDNS1123Subdomain(ok), [], ok);
  for (const bad of ['', '-a', 'a-', 'a..b', '.a', 'a.', 'A', 'a_b', 'a b', 'a\n']) assert.deepEqual(isDNS1123Subdomain(bad), [SUBDOMAIN_MSG], JSON.stringify(bad));
  assert.deepEqual(isDNS1123Subdomain('x'.repeat(254)), ['must be no more than 253 characters']);
  assert.deepEqual(isDNS1123Subdomain('X'.repeat(254)), ['must be no more than 253 characters', SUBDOMAIN_MSG]);
});

test('DNS-1123 labels', () => {
  for (const ok of ['a', 'my-name', '123-abc', '1', 'a'.repeat(63)]) assert.deepEqual(isDNS1123Label(ok), [], ok);
  for (const bad of ['', 'a.b', '-a', 'a-', 'Ab', 'a_b']) assert.deepEqual(isDNS1123Label(bad), [LABEL_MSG], bad);
  assert.deepEqual(isDNS1123Label('a'.repeat(64)), ['must be no more than 63 characters']);
});

test('DNS-1035 labels', () => {
  for (const ok of ['a', 'my-name', 'abc-123', 'a'.repeat(63)]) assert.deepEqual(isDNS1035Label(ok), [], ok);
  for (const bad of ['', '1abc', '123-abc', '-a', 'a-', 'a.b', 'aB']) assert.deepEqual(isDNS1035Label(bad), [DNS1035_MSG], bad);
  assert.deepEqual(isDNS1035Label('a'.repeat(64)), ['must be no more than 63 characters']);
});

test('path segment names', () => {
  assert.deepEqual(isValidPathSegmentName('system:admin'), []);
  assert.deepEqual(isValidPathSegmentName('.'), ["may not be '.'"]);
  assert.deepEqual(isValidPathSegmentName('..'), ["may not be '..'"]);
  assert.deepEqual(isValidPathSegmentName('a/b%c'), ["may not contain '/'", "may not contain '%'"]);
  assert.deepEqual(isValidPathSegmentName('...'), []);
});

test('qualified names (label and annotation keys)', () => {
  for (const ok of ['a', 'MyName', 'my.name', '123-abc', 'a_b', 'example.com/MyName', 'k8s.io/x', 'a'.repeat(63), `${'a'.repeat(253)}/b`]) {
    assert.deepEqual(isQualifiedName(ok), [], ok);
  }
  // An empty name part is both empty and not matching the regex (the reference reports both).
  assert.deepEqual(isQualifiedName(''), ['name part must be non-empty', NAME_PART_MSG]);
  assert.deepEqual(isQualifiedName('-bad-'), [NAME_PART_MSG]);
  assert.deepEqual(isQualifiedName('a'.repeat(64)), ['name part must be no more than 63 characters']);
  assert.deepEqual(isQualifiedName('/a'), ['prefix part must be non-empty']);
  assert.deepEqual(isQualifiedName('a/'), ['name part must be non-empty', NAME_PART_MSG]);
  assert.deepEqual(isQualifiedName('Example.com/a'), [`prefix part ${SUBDOMAIN_MSG}`]);
  assert.deepEqual(isQualifiedName(`${'a'.repeat(254)}/b`), ['prefix part must be no more than 253 characters']);
  assert.deepEqual(isQualifiedName('a/b/c'), [
    "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
  ]);
});

test('label values', () => {
  for (const ok of ['', 'MyValue', 'my_value', '12345', 'a.b-c_d', 'a'.repeat(63)]) assert.deepEqual(isValidLabelValue(ok), [], ok);
  for (const bad of ['-bad-', '_a', 'a.', 'a b', 'a/b']) assert.deepEqual(isValidLabelValue(bad), [LABEL_VALUE_MSG], bad);
  assert.deepEqual(isValidLabelValue('a'.repeat(64)), ['must be no more than 63 characters']);
  // Lengths are counted in bytes.
  assert.deepEqual(isValidLabelValue('é'.repeat(32)), ['must be no more than 63 characters', LABEL_VALUE_MSG]);
});

test('object names by rule, and generateName prefixes', () => {
  assert.deepEqual(validateObjectName('subdomain', 'my.config', false), []);
  assert.deepEqual(validateObjectName('label', 'my.config', false), [LABEL_MSG]);
  assert.deepEqual(validateObjectName('dns1035', '1svc', false), [DNS1035_MSG]);
  assert.deepEqual(validateObjectName('path', 'a/b', false), ["may not contain '/'"]);
  // A generateName prefix may end in '-'; a name may not.
  for (const rule of ['subdomain', 'label', 'dns1035'] as const) {
    assert.deepEqual(validateObjectName(rule, 'foo-', true), [], rule);
    assert.notDeepEqual(validateObjectName(rule, 'foo-', false), [], rule);
    assert.notDeepEqual(validateObjectName(rule, 'Foo-', true), [], rule);
  }
  assert.deepEqual(validateObjectName('path', '..', true), []);
  assert.deepEqual(validateObjectName('path', '..', false), ["may not be '..'"]);
});

test('validateObjectMeta: name, generateName and namespace', () => {
  const detail = (m: Record<string, unknown>, rule: 'subdomain' | 'label' = 'subdomain', ns = true) =>
    validateObjectMeta(m, rule, ns).map((e) => `${e.field}: ${e.detail}`);
  assert.deepEqual(detail({ name: 'ok', namespace: 'default' }), []);
  assert.deepEqual(detail({ namespace: 'default' }), ['metadata.name: Required value: name or generateName is required']);
  assert.deepEqual(detail({ name: '', namespace: 'default' }), ['metadata.name: Required value: name or generateName is required']);
  assert.deepEqual(detail({ generateName: 'web-', name: 'web-x7k2p', namespace: 'default' }), []);
  assert.deepEqual(detail({ generateName: 'Web-', name: 'Web-x7k2p', namespace: 'default' }), [
    `metadata.generateName: Invalid value: "Web-": ${SUBDOMAIN_MSG}`,
    `metadata.name: Invalid value: "Web-x7k2p": ${SUBDOMAIN_MSG}`,
  ]);
  assert.deepEqual(detail({ name: 'a' }), ['metadata.namespace: Required value']);
  assert.deepEqual(detail({ name: 'a', namespace: 'Bad' }), [`metadata.namespace: Invalid value: "Bad": ${LABEL_MSG}`]);
  assert.deepEqual(detail({ name: 'a', namespace: 'x' }, 'label', false), ['metadata.namespace: Forbidden: not allowed on this type']);
  assert.deepEqual(detail({ name: 'Blue_Zone' }, 'label', false), [`metadata.name: Invalid value: "Blue_Zone": ${LABEL_MSG}`]);
  const errs = validateObjectMeta({ name: 'MyConfig', namespace: 'default' }, 'subdomain', true);
  assert.deepEqual(errs, [{ type: 'FieldValueInvalid', field: 'metadata.name', detail: `Invalid value: "MyConfig": ${SUBDOMAIN_MSG}` }]);
});

test('validateObjectMeta: labels and annotations', () => {
  const detail = (m: Record<string, unknown>) => validateObjectMeta({ name: 'a', namespace: 'n', ...m }, 'subdomain', true).map((e) => `${e.field}: ${e.detail}`);
  assert.deepEqual(detail({ labels: { app: 'web', 'app.kubernetes.io/name': 'x', empty: '' } }), []);
  assert.deepEqual(detail({ labels: { app: '-bad-' } }), [`metadata.labels: Invalid value: "-bad-": ${LABEL_VALUE_MSG}`]);
  assert.deepEqual(detail({ labels: { '-bad-': 'ok' } }), [`metadata.labels: Invalid value: "-bad-": ${NAME_PART_MSG}`]);
  assert.deepEqual(detail({ labels: { 'Bad.Prefix/x': 'v' } }), [`metadata.labels: Invalid value: "Bad.Prefix/x": prefix part ${SUBDOMAIN_MSG}`]);
  // Annotation keys are checked lower-cased, values are free.
  assert.deepEqual(detail({ annotations: { 'Example.COM/Key': 'any value / at all' } }), []);
  assert.deepEqual(detail({ annotations: { 'bad key': 'v' } }), [`metadata.annotations: Invalid value: "bad key": ${NAME_PART_MSG}`]);
  // Total size: keys plus values, at most 262144 bytes.
  assert.deepEqual(detail({ annotations: { a: 'x'.repeat(262143) } }), []);
  assert.deepEqual(detail({ annotations: { a: 'x'.repeat(262144) } }), ['metadata.annotations: Too long: must have at most 262144 bytes']);
  assert.deepEqual(detail({ annotations: { a: 'x'.repeat(131072), b: 'é'.repeat(65536) } }), ['metadata.annotations: Too long: must have at most 262144 bytes']);
});
