import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { StatusError } from '../../src/errors.js';
import { applyJsonPatch, MAX_JSON_PATCH_OPERATIONS } from '../../src/fieldmanager/jsonpatch.js';
import { referenceDir } from '../helpers.js';

function fixture(name: string): any {
  return JSON.parse(readFileSync(path.join(referenceDir, name), 'utf8'));
}

const GENERIC = 'the server rejected our request due to an error in our request';

function statusOf(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof StatusError, `expected a StatusError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected an error');
}

function assertInvalid(fn: () => unknown, cause?: RegExp): StatusError {
  const e = statusOf(fn);
  assert.equal(e.code, 422);
  assert.equal(e.reason, 'Invalid');
  assert.equal(e.message, GENERIC);
  if (cause) assert.match(e.details?.causes?.[0]?.message ?? '', cause);
  return e;
}

// RFC 6902 appendix A: [document, patch, result] (result undefined: the patch fails).
const RFC_EXAMPLES: Array<[string, unknown, unknown, unknown]> = [
  ['A.1 add object member', { foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux' }], { baz: 'qux', foo: 'bar' }],
  ['A.2 add array element', { foo: ['bar', 'baz'] }, [{ op: 'add', path: '/foo/1', value: 'qux' }], { foo: ['bar', 'qux', 'baz'] }],
  ['A.3 remove object member', { baz: 'qux', foo: 'bar' }, [{ op: 'remove', path: '/baz' }], { foo: 'bar' }],
  ['A.4 remove array element', { foo: ['bar', 'qux', 'baz'] }, [{ op: 'remove', path: '/foo/1' }], { foo: ['bar', 'baz'] }],
  ['A.5 replace a value', { baz: 'qux', foo: 'bar' }, [{ op: 'replace', path: '/baz', value: 'boo' }], { baz: 'boo', foo: 'bar' }],
  [
    'A.6 move a value',
    { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } },
    [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }],
    { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } },
  ],
  ['A.7 move an array element', { foo: ['all', 'grass', 'cows', 'eat'] }, [{ op: 'move', from: '/foo/1', path: '/foo/3' }], { foo: ['all', 'cows', 'eat', 'grass'] }],
  [
    'A.8 testing a value: success',
    { baz: 'qux', foo: ['a', 2, 'c'] },
    [
      { op: 'test', path: '/baz', value: 'qux' },
      { op: 'test', path: '/foo/1', value: 2 },
    ],
    { baz: 'qux', foo: ['a', 2, 'c'] },
  ],
  ['A.10 add a nested member object', { foo: 'bar' }, [{ op: 'add', path: '/child', value: { grandchild: {} } }], { foo: 'bar', child: { grandchild: {} } }],
  ['A.11 ignore unrecognized elements', { foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux', xyz: 123 }], { foo: 'bar', baz: 'qux' }],
  ['A.14 ~ escape ordering', { '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: 10 }], { '/': 9, '~1': 10 }],
  ['A.16 add an array value', { foo: ['bar'] }, [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }], { foo: ['bar', ['abc', 'def']] }],
  ['copy', { a: { b: [1, 2] } }, [{ op: 'copy', from: '/a/b', path: '/c' }], { a: { b: [1, 2] }, c: [1, 2] }],
  ['copy to array end', { a: [1], b: 'x' }, [{ op: 'copy', from: '/b', path: '/a/-' }], { a: [1, 'x'], b: 'x' }],
  ['escaped keys', { 'a/b': 1, 'm~n': 2 }, [{ op: 'replace', path: '/a~1b', value: 3 }, { op: 'remove', path: '/m~0n' }], { 'a/b': 3 }],
  ['add replaces an existing member', { a: 1 }, [{ op: 'add', path: '/a', value: 2 }], { a: 2 }],
  ['whole document replace', { a: 1 }, [{ op: 'replace', path: '', value: { b: 2 } }], { b: 2 }],
  ['test is deep and key-order independent', { a: { x: [1, { y: 2 }], z: null } }, [{ op: 'test', path: '/a', value: { z: null, x: [1, { y: 2 }] } }], { a: { x: [1, { y: 2 }], z: null } }],
  ['negative index counts from the end', { a: [1, 2, 3] }, [{ op: 'remove', path: '/a/-1' }, { op: 'add', path: '/a/-1', value: 9 }], { a: [1, 2, 9] }],
  ['move to the same place is a no-op', { a: 1 }, [{ op: 'move', from: '/a', path: '/a' }], { a: 1 }],
  ['operations apply in order', { a: [] }, [{ op: 'add', path: '/a/-', value: 1 }, { op: 'add', path: '/a/0', value: 0 }, { op: 'test', path: '/a', value: [0, 1] }], { a: [0, 1] }],
];

test('RFC 6902 appendix A examples and other successes', () => {
  for (const [name, doc, patch, expected] of RFC_EXAMPLES) {
    assert.deepEqual(applyJsonPatch(doc, patch), expected, name);
  }
});

test('failing RFC 6902 examples', () => {
  // A.9: failed test; A.15: strings and numbers differ.
  assertInvalid(() => applyJsonPatch({ baz: 'qux' }, [{ op: 'test', path: '/baz', value: 'bar' }]));
  assertInvalid(() => applyJsonPatch({ '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: '10' }]));
  // A.12: adding to a nonexistent target.
  assertInvalid(() => applyJsonPatch({ foo: 'bar' }, [{ op: 'add', path: '/baz/bat', value: 'qux' }]), /does not exist/);
});

test('replace of a missing key adds it, as the reference does', () => {
  const f = fixture('errors/patch-json-patch-missing-path.json');
  const doc = { data: { key: 'value' } };
  const out = applyJsonPatch(doc, f.request.body) as any;
  assert.deepEqual(out.data, f.response.body.data);
  assert.equal(f.response.status, 200);
  // ...but the parent must exist.
  assertInvalid(() => applyJsonPatch({}, f.request.body), /does not exist/);
});

test('a failed test answers exactly like the reference', () => {
  const f = fixture('errors/patch-invalid-json-patch.json');
  const e = statusOf(() => applyJsonPatch({ kind: 'ConfigMap', data: { key: 'value' } }, f.request.body));
  assert.equal(e.code, f.response.status);
  assert.deepEqual(e.toStatus(), f.response.body);
  assert.equal(JSON.stringify(e.toStatus()) + '\n', f.response.rawBody);
  // A test of a missing path fails the same way.
  assert.deepEqual(statusOf(() => applyJsonPatch({}, [{ op: 'test', path: '/nope', value: null }])).toStatus(), f.response.body);
});

test('other failures are 422 Invalid with a cause', () => {
  const doc = { a: [1, 2], o: { k: 'v' }, s: 'str' };
  const cases: Array<[unknown[], RegExp]> = [
    [[{ op: 'remove', path: '/nope' }], /does not exist/],
    [[{ op: 'remove', path: '/a/2' }], /out of range/],
    [[{ op: 'replace', path: '/a/5', value: 1 }], /out of range/],
    [[{ op: 'add', path: '/a/3', value: 1 }], /out of range/],
    [[{ op: 'add', path: '/a/-4', value: 1 }], /out of range/],
    [[{ op: 'add', path: '/a/x', value: 1 }], /not an array index/],
    [[{ op: 'remove', path: '/a/-' }], /not an array index/],
    [[{ op: 'add', path: '/s/x', value: 1 }], /not an object or array/],
    [[{ op: 'add', path: '/a' }], /missing "value"/],
    [[{ op: 'test', path: '/a' }], /missing "value"/],
    [[{ op: 'add', value: 1 }], /missing "path"/],
    [[{ op: 'add', path: 5, value: 1 }], /"path" must be a string/],
    [[{ op: 'add', path: 'a', value: 1 }], /not a JSON pointer/],
    [[{ op: 'add', path: '/a~2', value: 1 }], /invalid '~' escape/],
    [[{ op: 'move', path: '/b' }], /missing "from"/],
    [[{ op: 'move', from: '/nope', path: '/b' }], /does not exist/],
    [[{ op: 'move', from: '/o', path: '/o/k2' }], /own children/],
    [[{ op: 'copy', from: '/nope', path: '/b' }], /does not exist/],
    [[{ op: 'remove', path: '' }], /whole document/],
    [[{ op: 'frobnicate', path: '/a' }], /unknown op "frobnicate"/],
    [[{ path: '/a' }], /missing "op"/],
    [[null], /missing "op"/],
    [[{ op: 'add', path: '/o/k', value: 1 }, { op: 'remove', path: '/zzz' }], /operation 1 \(remove\)/],
  ];
  for (const [patch, cause] of cases) {
    const e = assertInvalid(() => applyJsonPatch(doc, patch), cause);
    assert.equal(e.details?.causes?.length, 1, JSON.stringify(patch));
  }
});

test('a body that is not an array is 400 BadRequest', () => {
  for (const [body, type] of [
    [{ op: 'add' }, 'object'],
    ['x', 'string'],
    [5, 'number'],
    [true, 'bool'],
  ] as const) {
    const e = statusOf(() => applyJsonPatch({}, body));
    assert.equal(e.code, 400);
    assert.equal(e.reason, 'BadRequest');
    assert.equal(e.message, `json: cannot unmarshal ${type} into Go value of type jsonpatch.Patch`);
  }
  const e = statusOf(() => applyJsonPatch({}, ['x']));
  assert.equal(e.code, 400);
  assert.equal(e.message, 'json: cannot unmarshal string into Go value of type jsonpatch.Operation');
  // null decodes to an empty patch, as in Go.
  assert.deepEqual(applyJsonPatch({ a: 1 }, null), { a: 1 });
  assert.deepEqual(applyJsonPatch({ a: 1 }, []), { a: 1 });
});

test('at most 10,000 operations', () => {
  const op = { op: 'test', path: '/a', value: 1 };
  assert.deepEqual(applyJsonPatch({ a: 1 }, Array(MAX_JSON_PATCH_OPERATIONS).fill(op)), { a: 1 });
  const e = statusOf(() => applyJsonPatch({ a: 1 }, Array(MAX_JSON_PATCH_OPERATIONS + 1).fill(op)));
  assert.equal(e.code, 413);
  assert.equal(e.reason, 'RequestEntityTooLarge');
  assert.equal(e.message, 'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001');
});

test('copies cannot blow up the document', () => {
  // Each copy of /a into its own end doubles it: 2^40 elements without the cap.
  const patch = Array(40).fill({ op: 'copy', from: '/a', path: '/a/-' });
  assertInvalid(() => applyJsonPatch({ a: ['x'.repeat(1000)] }, patch), /copied values exceed the limit of 10485760 bytes/);
  // Ordinary copies are fine.
  assert.deepEqual(applyJsonPatch({ a: 'v' }, Array(100).fill({ op: 'copy', from: '/a', path: '/b' })), { a: 'v', b: 'v' });
});

test('prototype pollution keys are refused in paths', () => {
  const paths = ['/__proto__/polluted', '/constructor/prototype/polluted', '/a/__proto__', '/prototype', '/__proto__'];
  for (const p of paths) {
    for (const op of ['add', 'replace']) assertInvalid(() => applyJsonPatch({ a: {} }, [{ op, path: p, value: true }]), /is not allowed/);
    assertInvalid(() => applyJsonPatch({ a: {} }, [{ op: 'copy', from: '/a', path: p }]), /is not allowed/);
    assertInvalid(() => applyJsonPatch({ a: {} }, [{ op: 'move', from: p, path: '/b' }]), /is not allowed/);
  }
  assert.equal(({} as any).polluted, undefined);
  assert.equal((Object.prototype as any).polluted, undefined);
});

test('inherited properties are not reachable', () => {
  assertInvalid(() => applyJsonPatch({}, [{ op: 'remove', path: '/toString' }]), /does not exist/);
  assertInvalid(() => applyJsonPatch({}, [{ op: 'copy', from: '/hasOwnProperty', path: '/x' }]), /does not exist/);
  assertInvalid(() => applyJsonPatch({}, [{ op: 'test', path: '/toString', value: null }]));
});

test('values are copied as data, including an own __proto__ key', () => {
  const value = JSON.parse('{"__proto__":{"polluted":true}}');
  const out = applyJsonPatch({}, [{ op: 'add', path: '/v', value }]) as any;
  assert.ok(Object.hasOwn(out.v, '__proto__'));
  assert.equal(Object.getPrototypeOf(out.v), Object.prototype);
  assert.equal(out.v.polluted, undefined);
  assert.equal(({} as any).polluted, undefined);
});

test('inputs are not mutated', () => {
  const doc = { a: [1, { b: 2 }], o: { k: 'v' } };
  const value = { deep: [1] };
  const patch = [
    { op: 'add', path: '/a/1/c', value },
    { op: 'remove', path: '/o/k' },
    { op: 'move', from: '/a/0', path: '/m' },
    { op: 'copy', from: '/a/0/c', path: '/cp' },
    { op: 'add', path: '/cp/deep/-', value: 2 },
  ];
  const d0 = structuredClone(doc);
  const p0 = structuredClone(patch);
  const out = applyJsonPatch(doc, patch) as any;
  assert.deepEqual(doc, d0);
  assert.deepEqual(patch, p0);
  assert.deepEqual(out, { a: [{ b: 2, c: { deep: [1] } }], o: {}, m: 1, cp: { deep: [1, 2] } });
  assert.notEqual(out.a[0].c, value);
  assert.notEqual(out.cp, out.a[0].c);
});

test('nesting depth is bounded', () => {
  let deep: unknown = 1;
  for (let i = 0; i < 10000; i++) deep = { a: deep };
  assertInvalid(() => applyJsonPatch({}, [{ op: 'add', path: '/x', value: deep }]), /nested deeper than 1000/);
  let ok: unknown = 1;
  for (let i = 0; i < 999; i++) ok = { a: ok };
  assert.doesNotThrow(() => applyJsonPatch({}, [{ op: 'add', path: '/x', value: ok }]));
  // Adding at a deep path must not build a document deeper than the limit.
  const deepPath = '/x' + '/a'.repeat(998);
  assertInvalid(() => applyJsonPatch({}, [{ op: 'add', path: '/x', value: ok }, { op: 'add', path: deepPath, value: { b: { c: 1 } } }]), /patched document is nested deeper/);
});
