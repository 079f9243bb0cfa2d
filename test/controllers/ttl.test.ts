// The node ttl by cluster size, as the reference's ttl controller: 0 s up to 100 nodes, 15 s
// above, and back to 0 only below 90 (the steps overlap so the value does not flap).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nextStep, ttlOfStep } from '../../src/controllers/ttl.js';

function walk(counts: number[]): number[] {
  let step = 0;
  let previous = 0;
  const ttls: number[] = [];
  for (const count of counts) {
    // One node at a time, as the informer tells them.
    const by = count > previous ? 1 : -1;
    for (let n = previous + by; by > 0 ? n <= count : n >= count; n += by) step = nextStep(step, n, by > 0);
    previous = count;
    ttls.push(ttlOfStep(step));
  }
  return ttls;
}

describe('ttl by cluster size', { timeout: 5_000 }, () => {
  it('grows at the step tops and shrinks below the overlaps', () => {
    assert.deepEqual(walk([1, 100, 101, 95, 89, 501, 1001, 2001, 1799]), [0, 0, 15, 15, 0, 30, 60, 300, 60]);
  });
});
