// The watchers' queue: entries come out in the order they went in, across chunk boundaries, when
// the queue empties and fills again, and after clear(); checked against an array for a long
// seeded run of pushes and shifts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChunkedFifo } from '../../src/endpoints/chunked-fifo.js';

const LIMIT = { timeout: 10_000 };

test('first in, first out across chunks, emptied and filled again', LIMIT, () => {
  const q = new ChunkedFifo<number>();
  assert.equal(q.shift(), undefined, 'empty');
  for (let i = 0; i < 200; i++) q.push(i);
  assert.equal(q.size, 200);
  for (let i = 0; i < 200; i++) assert.equal(q.shift(), i);
  assert.equal(q.size, 0);
  assert.equal(q.shift(), undefined);
  // Exactly one chunk's worth, emptied, then more.
  for (let i = 0; i < 64; i++) q.push(i);
  for (let i = 0; i < 64; i++) assert.equal(q.shift(), i);
  q.push(1000);
  q.push(1001);
  assert.deepEqual([q.shift(), q.shift(), q.shift()], [1000, 1001, undefined]);
  for (let i = 0; i < 70; i++) q.push(i);
  q.clear();
  assert.equal(q.size, 0);
  assert.equal(q.shift(), undefined, 'cleared');
  q.push(7);
  assert.equal(q.shift(), 7);
});

test('the same as an array for a long run of pushes and shifts (seeded)', LIMIT, () => {
  let seed = 42;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const q = new ChunkedFifo<number>();
  const model: number[] = [];
  let next = 0;
  for (let step = 0; step < 50_000; step++) {
    // Bursts of pushes, then runs of shifts, sometimes to empty.
    const r = random();
    if (r < 0.5) {
      for (let n = Math.floor(random() * 150); n > 0; n--) {
        q.push(next);
        model.push(next++);
      }
    } else if (r < 0.98) {
      for (let n = Math.floor(random() * 150); n > 0; n--) assert.equal(q.shift(), model.shift());
    } else {
      q.clear();
      model.length = 0;
    }
    assert.equal(q.size, model.length);
  }
});
