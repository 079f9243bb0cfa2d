import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../src/errors.js';
import { applyMergePatch, MAX_JSON_DEPTH } from '../../src/fieldmanager/mergepatch.js';

// RFC 7386 Appendix A: [original, patch, result].
const RFC_EXAMPLES: Array<[unknown, unknown, unknown]> = [
  [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
  [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
  [{ a: 'b' }, { a: null }, {}],
  [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
  [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
  [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
  [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
  [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
  [['a', 'b'], ['c', 'd'], ['c', 'd']],
  [{ a: 'b' }, ['c'], ['c']],
  [{ a: 'foo' }, null, null],
  [{ a: 'foo' }, 'bar', 'bar'],
  [{ e: null }, { a: 1 }, { e: null, a: 1 }],
  [[1, 2], { a: 'b', c: null }, { a: 'b' }],
  [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
];

test('RFC 7386 appendix A examples', () => {
  for (const [original, patch, expected] of RFC_EXAMPLES) {
    assert.deepEqual(applyMergePatch(original, patch), expected, `${JSON.stringify(original)} + ${JSON.stringify(patch)}`);
  }
});

test('RFC 7386 section 3 example', () => {
  const target = { title: 'Goodbye!', author: { givenName: 'John', familyName: 'Doe' }, tags: ['example', 'sample'], content: 'This will be unchanged' };
  const patch = { title: 'Hello!', phoneNumber: '+01-123-456-7890', author: { familyName: null }, tags: ['example'] };
  assert.deepEqual(applyMergePatch(target, patch), {
    title: 'Hello!',
    author: { givenName: 'John' },
    tags: ['example'],
    content: 'This will be unchanged',
    phoneNumber: '+01-123-456-7890',
  });
});

test('keys keep the target order, new keys follow', () => {
  const out = applyMergePatch({ a: 1, b: 2, c: 3 }, { d: 4, b: 20 }) as Record<string, unknown>;
  assert.deepEqual(Object.keys(out), ['a', 'b', 'c', 'd']);
});

test('inputs are not mutated and the result shares nothing with them', () => {
  const target = { a: { b: [1, { c: 2 }] }, keep: { x: 1 } };
  const patch = { a: { d: { e: 1 } }, arr: [{ z: 1 }] };
  const t0 = structuredClone(target);
  const p0 = structuredClone(patch);
  const out = applyMergePatch(target, patch) as any;
  assert.deepEqual(target, t0);
  assert.deepEqual(patch, p0);
  assert.notEqual(out.keep, target.keep);
  assert.notEqual(out.a.b, target.a.b);
  assert.notEqual(out.arr, patch.arr);
  assert.notEqual(out.a.d, patch.a.d);
  out.keep.x = 99;
  out.arr[0].z = 99;
  assert.equal(target.keep.x, 1);
  assert.equal(patch.arr[0].z, 1);
});

function assertRefused(fn: () => unknown, pattern: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof StatusError);
    assert.equal(e.code, 400);
    assert.equal(e.reason, 'BadRequest');
    assert.match(e.message, pattern);
    return true;
  });
}

test('prototype pollution keys are refused anywhere in the patch', () => {
  const patches = [
    JSON.parse('{"__proto__":{"polluted":true}}'),
    JSON.parse('{"a":{"__proto__":{"polluted":true}}}'),
    JSON.parse('{"constructor":{"prototype":{"polluted":true}}}'),
    JSON.parse('{"a":{"prototype":1}}'),
    JSON.parse('{"a":[{"__proto__":{"polluted":true}}]}'),
    JSON.parse('{"a":{"b":{"constructor":null}}}'),
  ];
  for (const p of patches) assertRefused(() => applyMergePatch({ a: {} }, p), /is not allowed/);
  assert.equal(({} as any).polluted, undefined);
  assert.equal((Object.prototype as any).polluted, undefined);
});

test('an own __proto__ key of the target is kept as data', () => {
  const target = JSON.parse('{"a":{"__proto__":{"x":1}}}');
  const out = applyMergePatch(target, { b: 1 }) as any;
  assert.ok(Object.hasOwn(out.a, '__proto__'));
  assert.equal(Object.getPrototypeOf(out.a), Object.prototype);
  assert.equal(({} as any).x, undefined);
});

function nested(depth: number, leaf: unknown): unknown {
  let v: unknown = leaf;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

test('nesting depth is bounded', () => {
  assert.doesNotThrow(() => applyMergePatch({}, nested(MAX_JSON_DEPTH, 1)));
  assertRefused(() => applyMergePatch({}, nested(MAX_JSON_DEPTH + 1, 1)), /nesting depth exceeds the limit of 1000/);
  assertRefused(() => applyMergePatch({}, nested(10000, 1)), /nesting depth/);
  let arr: unknown = 1;
  for (let i = 0; i < 10000; i++) arr = [arr];
  assertRefused(() => applyMergePatch({}, { a: arr }), /nesting depth/);
});
