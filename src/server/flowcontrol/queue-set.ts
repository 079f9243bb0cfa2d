// One priority level's share of the server's concurrency, as the reference's queueset hands it
// out: a request runs at once while fewer than the level's limit run and nobody waits; otherwise
// a Reject level refuses it (concurrency-limit), and a Queue level puts it in the shortest of
// its flow's hand of queues (shuffle sharding), refusing it when that queue is full (queue-full).
// A waiting request is refused once it has waited the wait limit (time-out), or dropped when its
// client goes away (cancelled). A freed seat goes to the waiting request of the queue with the
// fewest requests running, taken in turns: every request costs one seat here, which makes the
// reference's fair queuing by virtual finish time serve the queues in turn.

export type RejectReason = 'concurrency-limit' | 'queue-full' | 'time-out' | 'cancelled';

export interface QueueSetConfig {
  concurrencyLimit: number;
  /** 0: the level rejects instead of queuing. */
  queues: number;
  handSize: number;
  queueLengthLimit: number;
  waitLimitMs: number;
}

/** A request holding one of the level's seats: release it when the request is done. */
export interface Seat {
  release(): void;
}

interface Waiter {
  queue: Queue;
  resolve(outcome: Seat | RejectReason): void;
  timer: NodeJS.Timeout;
}

interface Queue {
  waiting: Waiter[];
  executing: number;
}

/** The client's connection, whose closing cancels a waiting request. */
export interface ClientGone {
  once(event: 'close', listener: () => void): unknown;
}

class HeldSeat implements Seat {
  private held = true;
  constructor(private readonly set: QueueSet, private readonly queue: Queue | undefined) {}

  release(): void {
    if (!this.held) return;
    this.held = false;
    this.set.freed(this.queue);
  }
}

/** What the level tells its metrics. */
export interface QueueObserver {
  /** A request entered (+1) or left (-1) a queue; `length` is its queue's length after it entered. */
  queued(delta: 1 | -1, length: number): void;
}

export class QueueSet {
  private queues: Queue[] = [];
  private executing = 0;
  private waitingCount = 0;
  /** Where the next turn of dispatching starts looking. */
  private turn = 0;

  constructor(private config: QueueSetConfig) {
    this.resize();
  }

  get limit(): number {
    return this.config.concurrencyLimit;
  }

  /** Takes a new configuration; requests already waiting stay (in queue i mod the new count). */
  reconfigure(config: QueueSetConfig): void {
    this.config = config;
    this.resize();
    this.dispatch();
  }

  /** Whether nothing runs or waits here. */
  idle(): boolean {
    return this.executing === 0 && this.waitingCount === 0;
  }

  /**
   * A seat at once, a refusal at once, or (queued) a promise of either. `hand` is the flow's
   * queues (see dealHand); a request waiting when its client goes away is cancelled.
   */
  admit(hand: readonly number[], observer: QueueObserver, client: ClientGone): Seat | RejectReason | Promise<Seat | RejectReason> {
    if (this.executing < this.config.concurrencyLimit && this.waitingCount === 0) return this.seat(undefined);
    if (this.config.queues === 0 || this.queues.length === 0) return 'concurrency-limit';
    const queue = this.shortest(hand);
    if (queue.waiting.length >= this.config.queueLengthLimit) return 'queue-full';
    return new Promise<Seat | RejectReason>((resolve) => {
      const waiter: Waiter = {
        queue,
        resolve: (outcome) => {
          clearTimeout(waiter.timer);
          observer.queued(-1, queue.waiting.length);
          resolve(outcome);
        },
        timer: setTimeout(() => this.drop(waiter, 'time-out'), this.config.waitLimitMs),
      };
      waiter.timer.unref();
      queue.waiting.push(waiter);
      this.waitingCount++;
      observer.queued(1, queue.waiting.length);
      client.once('close', () => this.drop(waiter, 'cancelled'));
    });
  }

  private seat(queue: Queue | undefined): Seat {
    this.executing++;
    if (queue) queue.executing++;
    return new HeldSeat(this, queue);
  }

  /** A seat given back (see HeldSeat). */
  freed(queue: Queue | undefined): void {
    this.executing--;
    if (queue) queue.executing--;
    if (this.waitingCount > 0) this.dispatch();
  }

  private drop(waiter: Waiter, reason: RejectReason): void {
    const at = waiter.queue.waiting.indexOf(waiter);
    if (at < 0) return;
    waiter.queue.waiting.splice(at, 1);
    this.waitingCount--;
    waiter.resolve(reason);
  }

  /** Hands free seats to waiting requests, the queue with the fewest running first, in turns. */
  private dispatch(): void {
    while (this.waitingCount > 0 && this.executing < this.config.concurrencyLimit) {
      let best: Queue | undefined;
      let bestAt = 0;
      const n = this.queues.length;
      for (let k = 0; k < n; k++) {
        const i = (this.turn + k) % n;
        const q = this.queues[i]!;
        if (q.waiting.length > 0 && (!best || q.executing < best.executing)) {
          best = q;
          bestAt = i;
        }
      }
      if (!best) return;
      this.turn = (bestAt + 1) % n;
      const waiter = best.waiting.shift()!;
      this.waitingCount--;
      waiter.resolve(this.seat(best));
    }
  }

  private shortest(hand: readonly number[]): Queue {
    let best = this.queues[hand[0]! % this.queues.length]!;
    for (const i of hand) {
      const q = this.queues[i % this.queues.length]!;
      if (q.waiting.length + q.executing < best.waiting.length + best.executing) best = q;
    }
    return best;
  }

  private resize(): void {
    const want = this.config.queues;
    if (want === this.queues.length) return;
    const old = this.queues;
    this.queues = Array.from({ length: want }, () => ({ waiting: [], executing: 0 }));
    if (want === 0) {
      // A level that now rejects: whoever waited is refused.
      for (const q of old) for (const w of q.waiting.splice(0)) { this.waitingCount--; w.resolve('concurrency-limit'); }
      return;
    }
    old.forEach((q, i) => {
      const into = this.queues[i % want]!;
      for (const w of q.waiting) { w.queue = into; into.waiting.push(w); }
    });
  }
}

/** A 53-bit hash of a flow (its schema's name and distinguisher), FNV-1a twice over. */
export function flowHash(schema: string, distinguisher: string): number {
  const text = `${schema}\0${distinguisher}`;
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x9e3779b9;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x5bd1e995) >>> 0;
  }
  return a * 0x200000 + (b & 0x1fffff);
}

/** `handSize` distinct queues of `queues`, dealt from the hash as a shuffle-sharding dealer does. */
export function dealHand(hash: number, queues: number, handSize: number): number[] {
  const hand: number[] = [];
  let rest = hash;
  const size = Math.min(handSize, queues);
  for (let i = 0; i < size; i++) {
    let card = rest % (queues - i);
    rest = Math.floor(rest / (queues - i));
    // Skip the cards already dealt (in increasing order), as a deck without them.
    for (const dealt of [...hand].sort((x, y) => x - y)) if (card >= dealt) card++;
    hand.push(card);
  }
  return hand;
}
