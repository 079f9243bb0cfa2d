// The turns of the event loop that the watch cache's hand-over and the watch outputs' writes share
// (src/turns.ts): ready tasks run in the order they became ready, once per time they were added,
// not at all once deleted, and a turn gives the loop back after a few milliseconds.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { turns, type TurnTask } from '../src/turns.js';

/** A task that notes its runs in `log`, running `then` (once) when it does. */
function task(name: string, log: string[], then?: () => void): TurnTask {
  let next = then;
  return {
    inTurns: false,
    flush() {
      log.push(name);
      const f = next;
      next = undefined;
      f?.();
    },
  };
}

const settled = () => new Promise<void>((resolve) => setTimeout(resolve, 20));

describe('turns', { timeout: 10_000 }, () => {
  it('runs ready tasks in the order they became ready, each once however often it was added', async () => {
    const log: string[] = [];
    // More than the ring's first room, so that it grows with tasks waiting.
    const tasks = Array.from({ length: 200 }, (_, i) => task(`t${i}`, log));
    for (const t of tasks) turns.add(t);
    for (const t of tasks.slice(0, 50)) turns.add(t);
    await settled();
    assert.deepEqual(log, tasks.map((_, i) => `t${i}`));
    assert.ok(tasks.every((t) => !t.inTurns));
  });

  it('does not run a deleted task, and runs one added again after its delete at its first place', async () => {
    const log: string[] = [];
    const [a, b, c] = [task('a', log), task('b', log), task('c', log)];
    turns.add(a);
    turns.add(b);
    turns.add(c);
    turns.delete(b);
    turns.delete(a);
    turns.add(a);
    await settled();
    assert.deepEqual(log, ['a', 'c']);
  });

  it('runs a task that adds itself again during its run in a later place, after the others', async () => {
    const log: string[] = [];
    const again: TurnTask = task('again', log, () => turns.add(again));
    turns.add(again);
    turns.add(task('other', log));
    await settled();
    assert.deepEqual(log, ['again', 'other', 'again']);
  });

  it('gives the loop back after a slice: a timer due meanwhile runs between two turns', async () => {
    const log: string[] = [];
    const busy = (name: string) => task(name, log, () => {
      const until = performance.now() + 1.5;
      while (performance.now() < until);
    });
    let timerAt = -1;
    // Set in the first turn, due before it ends.
    const tasks = [task('first', log, () => setTimeout(() => (timerAt = log.length), 0)), ...Array.from({ length: 6 }, (_, i) => busy(`b${i}`))];
    for (const t of tasks) turns.add(t);
    await settled();
    assert.equal(log.length, 7);
    assert.ok(timerAt > 1 && timerAt < 7, `the timer ran after ${timerAt} of 7 tasks`);
  });
});
