// The JSON helpers values are shared or copied with: copyJson (a deep copy, as structuredClone makes
// one of a JSON value) and deepFreeze (nothing left to change, at any depth).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { copyJson, deepFreeze, type JsonObject } from '../src/json.js';

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
