// Work done in turns of the event loop. Fanning one change out to a thousand watchers is a
// thousand small tasks twice over: handing the change to each watch (the watch cache), then
// writing (encrypting) it for each client (the watch's output). A request that arrives meanwhile
// must not wait for all of them: each turn runs ready tasks for at most SLICE_MS, then gives the
// loop back (setImmediate), so that the I/O waiting is read before the next turn.
import { performance } from 'node:perf_hooks';

/** A task with work waiting: `flush` does some or all of it (and adds itself again for the rest). */
export interface TurnTask {
  flush(): void;
  /** Whether it waits for a turn: set and cleared by the turns only. */
  inTurns: boolean;
}

/** How long one turn may run tasks before other work gets the loop. */
const SLICE_MS = 2;

class Turns {
  /**
   * The tasks in the order they became ready, in a ring that only grows; a task added during a turn
   * may run in it. Not a Set: a Set that lives long is in the old generation, and V8 makes each
   * table it grows or shrinks to there too; a hundred watches taking their turns at 220 changes/s
   * made ~2.7 MB/s of old garbage that way, and a full collection every ~5 s.
   */
  private ring: Array<TurnTask | undefined> = new Array<TurnTask | undefined>(64).fill(undefined);
  private head = 0;
  private count = 0;
  private scheduled = false;

  add(task: TurnTask): void {
    if (task.inTurns) return;
    task.inTurns = true;
    if (this.count === this.ring.length) this.grow();
    this.ring[(this.head + this.count) & (this.ring.length - 1)] = task;
    this.count++;
    this.schedule();
  }

  /** The task no longer waits: its place in the ring is passed over. */
  delete(task: TurnTask): void {
    task.inTurns = false;
  }

  private readonly run = (): void => {
    this.scheduled = false;
    const until = performance.now() + SLICE_MS;
    while (this.count > 0) {
      const task = this.ring[this.head]!;
      this.ring[this.head] = undefined;
      this.head = (this.head + 1) & (this.ring.length - 1);
      this.count--;
      if (!task.inTurns) continue;
      task.inTurns = false;
      task.flush();
      if (performance.now() >= until) break;
    }
    if (this.count > 0) this.schedule();
  };

  /** Twice the room, the waiting tasks first in it. */
  private grow(): void {
    const ring = new Array<TurnTask | undefined>(this.ring.length * 2).fill(undefined);
    for (let i = 0; i < this.count; i++) ring[i] = this.ring[(this.head + i) & (this.ring.length - 1)];
    this.ring = ring;
    this.head = 0;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.run);
  }
}

/** The process's one set of turns: tasks of the watch cache and of watch outputs share them. */
export const turns = new Turns();
