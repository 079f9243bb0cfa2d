// Work done in turns of the event loop. Fanning one change out to a thousand watchers is a
// thousand small tasks twice over: handing the change to each watch (the watch cache), then
// writing (encrypting) it for each client (the watch's output). A request that arrives meanwhile
// must not wait for all of them: each turn runs ready tasks for at most SLICE_MS, then gives the
// loop back (setImmediate), so that the I/O waiting is read before the next turn.
import { performance } from 'node:perf_hooks';

/** A task with work waiting: `flush` does some or all of it (and adds itself again for the rest). */
export interface TurnTask {
  flush(): void;
}

/** How long one turn may run tasks before other work gets the loop. */
const SLICE_MS = 2;

class Turns {
  /** In the order they became ready; a task added during a turn may run in it. */
  private readonly ready = new Set<TurnTask>();
  private scheduled = false;

  add(task: TurnTask): void {
    this.ready.add(task);
    this.schedule();
  }

  delete(task: TurnTask): void {
    this.ready.delete(task);
  }

  private readonly run = (): void => {
    this.scheduled = false;
    const until = performance.now() + SLICE_MS;
    for (const task of this.ready) {
      this.ready.delete(task);
      task.flush();
      if (performance.now() >= until) break;
    }
    if (this.ready.size > 0) this.schedule();
  };

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.run);
  }
}

/** The process's one set of turns: tasks of the watch cache and of watch outputs share them. */
export const turns = new Turns();
