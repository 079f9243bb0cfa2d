// Watcher fan-out shared by both backends. Each watcher has its own queue, fed first with the
// history replay and then with live events, and drained asynchronously; so a watcher sees every
// event exactly once, in revision order, and a slow or throwing listener affects no other one.

import type { StorageEvent, WatchListener, Watcher } from './types.js';

class Subscription implements Watcher {
  private queue: StorageEvent[] = [];
  private head = 0;
  /** Highest revision queued: drops an event that arrives both by replay and live. */
  private cursor: number;
  private scheduled = false;
  private stopped = false;

  constructor(
    private readonly prefix: string,
    fromRevision: number,
    private readonly listener: WatchListener,
    private readonly onStop: (s: Subscription) => void,
  ) {
    this.cursor = fromRevision;
  }

  offer(event: StorageEvent): void {
    if (this.stopped || event.modRevision <= this.cursor || !event.key.startsWith(this.prefix)) return;
    this.cursor = event.modRevision;
    this.queue.push(event);
    if (!this.scheduled) {
      this.scheduled = true;
      queueMicrotask(() => this.drain());
    }
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.queue = [];
    this.head = 0;
    this.onStop(this);
  }

  private drain(): void {
    // Events offered by a listener while draining join this same loop, keeping their order.
    while (!this.stopped && this.head < this.queue.length) {
      const event = this.queue[this.head++] as StorageEvent;
      try {
        this.listener(event);
      } catch (err) {
        // A broken listener must not break delivery to the others (nor crash the server).
        process.emitWarning(`storage watch listener threw: ${err instanceof Error ? err.stack ?? err.message : String(err)}`, 'StorageWarning');
      }
    }
    this.queue = [];
    this.head = 0;
    this.scheduled = false;
  }
}

export class WatchHub {
  private readonly subscriptions = new Set<Subscription>();

  /**
   * Registers a listener for keys under `prefix` with revisions above `fromRevision`. `replay` is
   * the retained history read at this same moment (so nothing committed later can be missing from
   * both it and the live feed); it is delivered before any live event.
   */
  add(prefix: string, fromRevision: number, replay: Iterable<StorageEvent>, listener: WatchListener): Watcher {
    const s = new Subscription(prefix, fromRevision, listener, (x) => this.subscriptions.delete(x));
    for (const event of replay) s.offer(event);
    this.subscriptions.add(s);
    return s;
  }

  /** Fans committed events (in revision order) out to every matching watcher. */
  publish(events: readonly StorageEvent[]): void {
    if (events.length === 0) return;
    for (const s of this.subscriptions) {
      for (const event of events) s.offer(event);
    }
  }

  get size(): number {
    return this.subscriptions.size;
  }
}
