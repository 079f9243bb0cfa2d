// The JSON helpers values are shared, copied or compared with: copyJson (a deep copy, as
// structuredClone makes one of a JSON value), deepFreeze (nothing left to change, at any depth) and
// jsonEqual (equality with key order ignored, absent fields as the field manager sees them).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { copyJson, deepFreeze, jsonEqual, type JsonObject } from '../src/json.js';

const SAMPLES = [
  '{"metadata":{"name":"a","labels":{"app":"x"}},"spec":{"containers":[{"name":"c","ports":[{"containerPort":80}]}]},"status":null}',
  '[1,"two",true,null,{"a":[[],{}]},[{"b":{"c":[0.5]}}]]',
  '{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}},"k":{"__proto__":[1]}}',
  '"text"',
  '42',
  'null',
];

describe('copyJson and deepFreeze', { timeout: 10_000 }, () => {
  it('copyJson: equal to what structuredClone makes, sharing no object or array, keys such as __proto__ its own', () => {
    for (const text of SAMPLES) {
      const value = JSON.parse(text) as unknown;
      const copy = copyJson(value);
      assert.deepEqual(copy, structuredClone(value), text);
      assert.equal(JSON.stringify(copy), text);
      const shared: string[] = [];
      const walk = (a: unknown, b: unknown, at: string) => {
        if (typeof a !== 'object' || a === null) return;
        if (a === b) shared.push(at);
        for (const k of Object.keys(a)) walk((a as JsonObject)[k], (b as JsonObject)[k], `${at}.${k}`);
      };
      walk(value, copy, '');
      assert.deepEqual(shared, [], text);
    }
    const copy = copyJson(JSON.parse(SAMPLES[2]!) as JsonObject);
    assert.equal(Object.getPrototypeOf(copy), Object.prototype);
    assert.equal(Object.hasOwn(copy, '__proto__'), true);
    assert.equal(({} as JsonObject)['polluted'], undefined);
  });

  it('copyJson of a frozen value: a copy to change at any depth, the original as it was (what copies of informers\' objects rely on)', () => {
    const frozen = deepFreeze(JSON.parse(SAMPLES[0]!) as JsonObject);
    const copy = copyJson(frozen);
    const spec = copy['spec'] as { containers: Array<{ ports: Array<{ containerPort: number }> }> };
    spec.containers[0]!.ports[0]!.containerPort = 8080;
    spec.containers.push({ ports: [] });
    (copy['metadata'] as JsonObject)['name'] = 'b';
    assert.equal(Object.isFrozen(spec.containers), false);
    assert.equal(JSON.stringify(frozen), SAMPLES[0]);
    assert.equal((copy['metadata'] as JsonObject)['name'], 'b');
  });

  it('deepFreeze: every object and array at any depth frozen, the value the same', () => {
    for (const text of SAMPLES) {
      const value = deepFreeze(JSON.parse(text) as unknown);
      assert.equal(JSON.stringify(value), text);
      const thawed: string[] = [];
      const walk = (v: unknown, at: string) => {
        if (typeof v !== 'object' || v === null) return;
        if (!Object.isFrozen(v)) thawed.push(at);
        for (const k of Object.keys(v)) walk((v as JsonObject)[k], `${at}.${k}`);
      };
      walk(value, '');
      assert.deepEqual(thawed, [], text);
    }
    const pod = deepFreeze(JSON.parse(SAMPLES[0]!) as JsonObject);
    assert.throws(() => { ((pod['spec'] as JsonObject)['containers'] as JsonObject[]).push({}); }, TypeError);
  });
});

/** The obvious definition: both written out with absent fields dropped and keys sorted, then compared as text. */
function canonical(v: unknown, nullIsAbsent: boolean): string {
  if (Array.isArray(v)) return `[${v.map((x) => canonical(x, nullIsAbsent)).join(',')}]`;
  if (typeof v !== 'object' || v === null) return JSON.stringify(v);
  const keys = Object.keys(v).filter((k) => (v as JsonObject)[k] !== undefined && !(nullIsAbsent && (v as JsonObject)[k] === null)).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((v as JsonObject)[k], nullIsAbsent)}`).join(',')}}`;
}

/** A small random JSON value (with undefined and null fields, shared shapes so that pairs are often equal). */
function randomValue(random: () => number, depth: number): unknown {
  const r = random();
  if (depth <= 0 || r < 0.3) return [0, 1, 'a', 'b', null, true, undefined][Math.floor(random() * 7)];
  if (r < 0.5) return Array.from({ length: Math.floor(random() * 3) }, () => randomValue(random, depth - 1));
  const o: JsonObject = {};
  // Own keys, as JSON.parse makes them (__proto__ included).
  for (const k of ['x', 'y', 'z', '__proto__']) if (random() < 0.5) Object.defineProperty(o, k, { value: randomValue(random, depth - 1), enumerable: true, writable: true, configurable: true });
  return o;
}

describe('jsonEqual', { timeout: 10_000 }, () => {
  it('agrees with comparing canonical forms, key order ignored, undefined (and with nullIsAbsent null) fields absent', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    let equal = 0;
    for (let i = 0; i < 20_000; i++) {
      const a = randomValue(random, 3);
      const b = random() < 0.3 ? (JSON.parse(JSON.stringify(a ?? null)) as unknown) : randomValue(random, 3);
      for (const nullIsAbsent of [false, true]) {
        const expected = canonical(a, nullIsAbsent) === canonical(b, nullIsAbsent);
        if (expected) equal++;
        assert.equal(jsonEqual(a, b, nullIsAbsent), expected, `${canonical(a, false)} vs ${canonical(b, false)} nullIsAbsent=${nullIsAbsent}`);
        assert.equal(jsonEqual(b, a, nullIsAbsent), expected);
      }
    }
    assert.ok(equal > 2000, `only ${equal} equal pairs`);
    assert.equal(jsonEqual({ a: 1, b: 2 }, { b: 2, a: 1 }), true);
    assert.equal(jsonEqual({ a: 1, b: undefined }, { a: 1 }), true);
    assert.equal(jsonEqual({ a: 1, b: null }, { a: 1 }), false);
    assert.equal(jsonEqual({ a: 1, b: null }, { a: 1 }, true), true);
    assert.equal(jsonEqual(JSON.parse('{"__proto__":1}'), {}), false);
  });
});
