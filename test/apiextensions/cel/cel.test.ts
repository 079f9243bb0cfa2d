// CEL validation rules (x-kubernetes-validations) against the reference's behaviour: compile
// errors and costs at CRD writes, rule failures, messages and paths on custom resources.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FieldError } from '../../../src/errors.js';
import { type JSONSchemaProps, type Structural, toStructural, validateCustomResource, validateVersionSchema } from '../../../src/apiextensions/schema/index.js';
import { compileSchemaRules, escapeName, validateRules } from '../../../src/apiextensions/cel/index.js';

const opts = { timeout: 10000 };
const text = (errs: FieldError[]) => errs.map((e) => `${e.field}: ${e.detail}`);
function structural(s: JSONSchemaProps): Structural {
  const r = toStructural(s);
  assert.ok('structural' in r);
  return r.structural;
}
const rule = (r: string, message?: string) => ({ 'x-kubernetes-validations': [message ? { rule: r, message } : { rule: r }] });
function check(s: JSONSchemaProps, obj: unknown, old?: unknown): string[] {
  const c = compileSchemaRules(structural(s), 'spec.validation.openAPIV3Schema');
  assert.deepEqual(text(c.errors), []);
  return text(validateRules(c, obj, old));
}
const spec = (props: Record<string, JSONSchemaProps>, extra: JSONSchemaProps = {}): JSONSchemaProps => ({ type: 'object', properties: { spec: { type: 'object', properties: props, ...extra } } });

describe('CEL rules on custom resources', () => {
  it('self on an object, a scalar and an array, with paths and messages', opts, () => {
    const s = spec({
      replicas: { type: 'integer', ...rule('self >= 0', 'must not be negative') },
      name: { type: 'string', ...rule('self.startsWith("a")') },
      tags: { type: 'array', items: { type: 'string' }, ...rule('size(self) <= 2') },
    }, rule('self.replicas <= 10'));
    assert.deepEqual(check(s, { spec: { replicas: 3, name: 'abc', tags: ['x'] } }), []);
    assert.deepEqual(check(s, { spec: { replicas: -1, name: 'b', tags: ['x', 'y', 'z'] } }).sort(), [
      'spec.name: Invalid value: "string": failed rule: self.startsWith("a")',
      'spec.replicas: Invalid value: "integer": must not be negative',
      'spec.tags: Invalid value: "array": failed rule: size(self) <= 2',
    ]);
    assert.deepEqual(check(s, { spec: { replicas: 11 } }), ['spec: Invalid value: "object": failed rule: self.replicas <= 10']);
  });

  it('root rules see apiVersion, kind and metadata.name; a root failure is reported at <nil>', opts, () => {
    const s: JSONSchemaProps = { type: 'object', ...rule("self.metadata.name.startsWith('x') && self.kind == 'Foo'") };
    assert.deepEqual(check(s, { apiVersion: 'a/v1', kind: 'Foo', metadata: { name: 'xy' } }), []);
    assert.deepEqual(check(s, { apiVersion: 'a/v1', kind: 'Foo', metadata: { name: 'y' } }), [`<nil>: Invalid value: "object": failed rule: self.metadata.name.startsWith('x') && self.kind == 'Foo'`]);
  });

  it('has() and the macros all, exists, exists_one, map, filter', opts, () => {
    const item: JSONSchemaProps = { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } };
    const s = spec({ items: { type: 'array', maxItems: 100, items: item } }, { 'x-kubernetes-validations': [
      { rule: 'has(self.items) && self.items.all(i, has(i.name))', message: 'every item needs a name' },
      { rule: "self.items.exists(i, i.port == 80)" },
      { rule: "self.items.exists_one(i, i.name == 'web')" },
      { rule: 'self.items.map(i, i.port).filter(p, p > 1000).size() == 0' },
    ] });
    assert.deepEqual(check(s, { spec: { items: [{ name: 'web', port: 80 }, { name: 'db', port: 90 }] } }), []);
    assert.deepEqual(check(s, { spec: { items: [{ port: 8080 }, { name: 'web', port: 81 }, { name: 'web', port: 1 }] } }), [
      'spec: Invalid value: "object": every item needs a name',
      'spec: Invalid value: "object": failed rule: self.items.exists(i, i.port == 80)',
      // exists_one does not absorb errors (all and exists do when another element decides).
      "spec: Invalid value: \"object\": no such key: name evaluating rule: self.items.exists_one(i, i.name == 'web')",
      'spec: Invalid value: "object": failed rule: self.items.map(i, i.port).filter(p, p > 1000).size() == 0',
    ]);
  });

  it('rules under lists and maps report the item path; a missing key is an evaluation error', opts, () => {
    const s = spec({
      list: { type: 'array', items: { type: 'object', properties: { a: { type: 'integer' } }, ...rule('self.a > 0') } },
      labels: { type: 'object', additionalProperties: { type: 'string', ...rule('self.size() < 4') } },
    });
    assert.deepEqual(check(s, { spec: { list: [{ a: 1 }, { a: 0 }, {}], labels: { k: 'long!' } } }).sort(), [
      'spec.labels[k]: Invalid value: "string": failed rule: self.size() < 4',
      'spec.list[1]: Invalid value: "object": failed rule: self.a > 0',
      'spec.list[2]: Invalid value: "object": no such key: a evaluating rule: self.a > 0',
    ]);
  });

  it('transition rules run on updates only, with oldSelf correlated by property and list-map key', opts, () => {
    const s = spec({
      mode: { type: 'string', ...rule('self == oldSelf', 'mode is immutable') },
      ports: {
        type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'],
        items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } }, ...rule('self.port >= oldSelf.port', 'port may only grow') },
      },
    }, rule('self == oldSelf || !has(oldSelf.mode) || has(self.mode)', 'mode cannot be removed'));
    const old = { spec: { mode: 'a', ports: [{ name: 'x', port: 10 }, { name: 'y', port: 5 }] } };
    assert.deepEqual(check(s, { spec: { mode: 'b', ports: [{ name: 'y', port: 1 }] } }), []);
    assert.deepEqual(check(s, { spec: { mode: 'b', ports: [{ name: 'y', port: 1 }, { name: 'z', port: 0 }] } }, old), [
      'spec.mode: Invalid value: "string": mode is immutable',
      'spec.ports[0]: Invalid value: "object": port may only grow',
    ]);
    assert.deepEqual(check(s, { spec: { ports: [] } }, old), ['spec: Invalid value: "object": mode cannot be removed']);
  });

  it('int, double and int-or-string typing', opts, () => {
    const s = spec({
      n: { type: 'number', ...rule('self > 1.5') },
      i: { type: 'integer', ...rule('self % 2 == 0') },
      p: { 'x-kubernetes-int-or-string': true, ...rule("type(self) == int ? self < 10 : self.endsWith('%')") },
    });
    assert.deepEqual(check(s, { spec: { n: 2, i: 4, p: 5 } }), []);
    assert.deepEqual(check(s, { spec: { n: 1, i: 3, p: '50' } }).sort(), [
      'spec.i: Invalid value: "integer": failed rule: self % 2 == 0',
      'spec.n: Invalid value: "number": failed rule: self > 1.5',
      `spec.p: Invalid value: "": failed rule: type(self) == int ? self < 10 : self.endsWith('%')`,
    ]);
  });

  it('the Kubernetes library: lists, regex (RE2), urls', opts, () => {
    const s = spec({
      nums: { type: 'array', items: { type: 'integer' }, ...rule('self.isSorted() && self.sum() < 10 && self.min() == 1 && self.max() == 3 && self.indexOf(2) == 1 && self.lastIndexOf(9) == -1') },
      s: { type: 'string', ...rule("self.matches('^[a-z]+-[0-9]+$') && self.find('[0-9]+') == '12' && self.findAll('[a-z]') == ['a', 'b']") },
      u: { type: 'string', ...rule("isURL(self) && url(self).getScheme() == 'https' && url(self).getHostname() == 'example.com' && url(self).getPort() == '8443' && url(self).getEscapedPath() == '/a%20b' && url(self).getQuery()['x'] == ['1', '2']") },
    });
    assert.deepEqual(check(s, { spec: { nums: [1, 2, 3], s: 'ab-12', u: 'https://example.com:8443/a%20b?x=1&x=2' } }), []);
    assert.equal(check(s, { spec: { nums: [3, 1] } }).length, 1);
    assert.deepEqual(check(s, { spec: { s: 'ab-x' } }).length, 1);
    assert.deepEqual(check(s, { spec: { u: 'not a url' } }).length, 1);
  });

  it('escaped property names', opts, () => {
    assert.equal(escapeName('foo-bar'), 'foo__dash__bar');
    assert.equal(escapeName('a.b/c'), 'a__dot__b__slash__c');
    assert.equal(escapeName('x__y'), 'x__underscores__y');
    assert.equal(escapeName('namespace'), '__namespace__');
    assert.equal(escapeName('a b'), undefined);
    const s = spec({ 'foo-bar': { type: 'integer' }, if: { type: 'string' } }, rule("self.foo__dash__bar == 1 && self.__if__ == 'x'"));
    assert.deepEqual(check(s, { spec: { 'foo-bar': 1, if: 'x' } }), []);
  });
});

describe('CEL rules at CRD writes', () => {
  const at = 'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule';
  const errs = (s: JSONSchemaProps) => text(validateVersionSchema(s, 'spec.validation'));

  it('compile errors: syntax, undefined fields, overloads, non-bool', opts, () => {
    const e1 = errs(spec({ a: { type: 'integer' } }, rule('self.a >')));
    assert.equal(e1.length, 1);
    assert.match(e1[0]!, /^spec\.validation\.openAPIV3Schema\.properties\[spec\]\.x-kubernetes-validations\[0\]\.rule: Invalid value: apiextensions\.ValidationRule\{Rule:"self\.a >", Message:""\}: compilation failed: ERROR: <input>:1:\d+: /);
    assert.match(errs(spec({ a: { type: 'integer' } }, rule('self.b == 1')))[0]!, /compilation failed: ERROR: <input>:1:5: undefined field 'b'\n \| self\.b == 1\n \| \.\.\.\.\^$/);
    assert.match(errs(spec({ a: { type: 'integer' } }, rule('self.a == "x"')))[0]!, /found no matching overload for '_==_' applied to '\(int, string\)'/);
    assert.deepEqual(errs(spec({ a: { type: 'integer' } }, rule('self.a + 1'))), [`${at}: Invalid value: apiextensions.ValidationRule{Rule:"self.a + 1", Message:""}: cel expression must evaluate to a bool`]);
    assert.deepEqual(errs(spec({ a: { type: 'string' } }, rule("self.a.matches('(')"))).length, 1);
  });

  it('oldSelf under a list that is not a map list is refused', opts, () => {
    const s = spec({ l: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 10, ...rule('self == oldSelf') } } });
    assert.deepEqual(errs(s), ['spec.validation.openAPIV3Schema.properties[spec].properties[l].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within spec.validation.openAPIV3Schema.properties[spec].properties[l].items']);
  });

  it('estimated cost: unbounded nested lists are refused, bounded ones pass', opts, () => {
    const nested = (bounds: JSONSchemaProps) => spec({ l: { type: 'array', ...bounds, items: { type: 'string', ...(bounds.maxItems ? { maxLength: 10 } : {}) } } }, rule('self.l.all(x, self.l.exists(y, x == y))'));
    const refused = errs(nested({}));
    assert.ok(refused.some((e) => e.startsWith(`${at}: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule`)), refused.join('\n'));
    assert.ok(refused.some((e) => e.startsWith('spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget')));
    assert.deepEqual(errs(nested({ maxItems: 10 })), []);
  });
});

describe('CEL runtime cost', () => {
  it('a rule over its per-call limit stops validation with the reference message', opts, () => {
    const s: JSONSchemaProps = { type: 'object', properties: { l: { type: 'array', maxItems: 2000, items: { type: 'integer' } } }, ...rule('self.l.all(x, self.l.all(y, self.l.all(z, x + y + z >= 0)))') };
    const c = compileSchemaRules(structural(s), '');
    const started = Date.now();
    const out = text(validateRules(c, { l: Array.from({ length: 200 }, (_, i) => i) }));
    assert.deepEqual(out, [`<nil>: Invalid value: "object": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.l.all(x, self.l.all(y, self.l.all(z, x + y + z >= 0)))`]);
    assert.ok(Date.now() - started < 5000);
  });

  it('the budget for one object is shared by all its rules', opts, () => {
    const s = spec({ l: { type: 'array', items: { type: 'integer', ...rule('self >= 0') } } });
    const c = compileSchemaRules(structural(s), '');
    const out = text(validateRules(c, { spec: { l: [1, 2, 3, 4, 5] } }, undefined, 8));
    assert.ok(out.length === 1, out.join('\n'));
    assert.match(out[0]!, /^spec\.l\[[1-4]\]: Invalid value: "integer": validation failed due to running out of cost budget, no further validation rules will be run$/);
  });

  it('validateCustomResource runs the rules after the schema checks', opts, () => {
    const s = spec({ a: { type: 'integer', minimum: 0, ...rule('self != 5') } });
    assert.deepEqual(text(validateCustomResource({ spec: { a: 5 } }, s, structural(s))), ['spec.a: Invalid value: "integer": failed rule: self != 5']);
  });
});
