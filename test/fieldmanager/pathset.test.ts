// The in-place set operations (subtract, recursiveSubtract) against the copying ones they stand in
// for (difference, recursiveDifference), on sets of every shape a few path elements make.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PathSet, type Path } from '../../src/fieldmanager/pathset.js';

/** A seeded generator (mulberry32): the same sets on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ELEMENTS = ['f:metadata', 'f:spec', 'f:status', 'f:a', 'k:{"name":"x"}', 'v:1', 'i:0'];

function randomSet(next: () => number): PathSet {
  const paths: Path[] = [];
  const count = Math.floor(next() * 12);
  for (let i = 0; i < count; i++) {
    const depth = Math.floor(next() * 4);
    paths.push(Array.from({ length: depth }, () => ELEMENTS[Math.floor(next() * ELEMENTS.length)]!));
  }
  return PathSet.fromPaths(paths);
}

const paths = (s: PathSet) => s.paths().map((p) => p.join('.'));
/** Every node, members or not: the tree's shape, which `paths` does not show (a node left with no member below it). */
const nodes = (s: PathSet, at = ''): string[] => [`${at}${s.member ? '*' : ''}`, ...[...s.children].flatMap(([k, c]) => nodes(c, `${at}/${k}`))];

describe('PathSet in place', { timeout: 10_000 }, () => {
  it('subtract leaves what difference answers, and changes only the set it is called on', () => {
    const next = random(7);
    for (let i = 0; i < 2000; i++) {
      const a = randomSet(next);
      const b = randomSet(next);
      const expected = nodes(a.difference(b));
      const before = nodes(b);
      a.subtract(b);
      assert.deepEqual(nodes(a), expected);
      assert.deepEqual(nodes(b), before);
    }
  });

  it('recursiveSubtract leaves what recursiveDifference answers', () => {
    const next = random(11);
    for (let i = 0; i < 2000; i++) {
      const a = randomSet(next);
      const b = randomSet(next);
      const expected = nodes(a.recursiveDifference(b));
      a.recursiveSubtract(b);
      assert.deepEqual(nodes(a), expected);
    }
  });

  it('prunes what is left with no member below it', () => {
    const a = PathSet.fromPaths([['f:spec', 'f:a'], ['f:status', 'f:a'], ['f:status', 'f:b']]);
    a.subtract(PathSet.fromPaths([['f:spec', 'f:a']]));
    assert.deepEqual([...a.children.keys()], ['f:status']);
    assert.deepEqual(paths(a), ['f:status.f:a', 'f:status.f:b']);
    a.recursiveSubtract(PathSet.fromPaths([['f:status', 'f:a'], ['f:status', 'f:b']]));
    assert.equal(a.empty(), true);
    assert.equal(a.children.size, 0);
  });
});
