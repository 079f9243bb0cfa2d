// One priority level's share of the server's concurrency, as 1.25's queueset hands it out by
// fair queuing. Each request is charged its estimated work (work-estimate.ts: seats × 3 ms while
// it runs, plus the seats it holds afterwards × that time) in virtual time R, measured in
// seat-seconds, which advances with real time at min(seats asked for, limit) / busy queues per
// second. A queue's next dispatch is at R = nextDispatchR, and the waiting request with the
// smallest virtual finish (its queue's nextDispatchR + its work) goes first, when its seats (the
// larger of its seats while running and after) are free; a request wider than the whole limit
// runs alone. When a request ends its queue is charged for what it really took. A Reject level
// (no queues) refuses what does not fit (concurrency-limit); a Queue level puts a request in the
// queue of its flow's hand (shuffle sharding) with the least work waiting, refusing it when that
// queue is full and every seat taken (queue-full). A waiting request is refused once it has waited
// the wait limit (time-out), or dropped when its client goes away (cancelled).
// performance from its module, not the global: the global is an accessor, called at each use.
import { performance } from 'node:perf_hooks';
import { maxSeats, ONE_SEAT, type WorkEstimate } from './work-estimate.js';

export type RejectReason = 'concurrency-limit' | 'queue-full' | 'time-out' | 'cancelled';

export interface QueueSetConfig {
  concurrencyLimit: number;
  /** 0: the level rejects instead of queuing. */
  queues: number;
  handSize: number;
  queueLengthLimit: number;
  waitLimitMs: number;
}

/** A request holding its seats: release them when the request is done (its final seats stay a while). */
export interface Seat {
  /** When the seats were taken (performance.now()). */
  readonly startedMs: number;
  /** `nowMs`: the time now when the caller has just read it (performance.now()). */
  release(nowMs?: number): void;
}

/** The reference's estimate of a request's running time, what its seats are charged for until it ends. */
const ESTIMATED_SERVICE_SECONDS = 0.003;

interface Waiter {
  queue: Queue;
  estimate: WorkEstimate;
  seats: number;
  work: number;
  /** R when it arrived: its queue's next dispatch is never set before it. */
  arrivalR: number;
  observer: QueueObserver;
  resolve(outcome: Seat | RejectReason): void;
  timer: NodeJS.Timeout | undefined;
}

interface Queue {
  readonly index: number;
  waiting: Waiter[];
  /** Requests running. */
  executing: number;
  /** Seats held, by requests running or holding their final seats. */
  seatsInUse: number;
  /** Virtual time (seat-seconds) at which the queue's next request starts. */
  nextDispatchR: number;
  /** The work and the seats of the requests waiting. */
  waitingWork: number;
  waitingSeats: number;
  /** Counted among the busy queues (a request waiting or running). */
  busy: boolean;
}

/** The client's connection, whose closing cancels a waiting request. */
export interface ClientGone {
  once(event: 'close', listener: () => void): unknown;
}

/** What the level tells its metrics (each request's flow schema's). */
export interface QueueObserver {
  /** A request entered (+1) or left (-1) a queue; `length` is its queue's length after it entered. */
  queued(delta: 1 | -1, length: number): void;
  /** Seats taken (+) or given back (−), final seats included. */
  seatsInUse?(delta: number): void;
  /** Its request was next but its seats were not free. */
  notAccommodated?(): void;
}

/** A ratio the level keeps up to date (the reference's RatioedGauge: metrics/timing-ratio.ts), told the time just read. */
export interface RatioGauge {
  set(numerator: number, nowMs: number): void;
  setDenominator(denominator: number, nowMs: number): void;
}

/** The level's requests waiting (of its queues' room), running (of its limit), and seats held (of its limit). */
export interface LevelGauges {
  waiting: RatioGauge;
  executing: RatioGauge;
  seats: RatioGauge;
}

/** The reference's dispatch gauges (seat-seconds), as of the last request dispatched from a queue. */
export interface DispatchFigures {
  dispatched: boolean;
  /** R then (dispatch_r), and the request's queue's S (latest_s). */
  r: number;
  s: number;
  /** Over the queues with a request waiting, the least and greatest S, and S less the work their running requests are estimated still to do. */
  sMin: number;
  sMax: number;
  discountedMin: number;
  discountedMax: number;
}

class HeldSeat implements Seat {
  private held = true;
  constructor(private readonly set: QueueSet, private readonly queue: Queue | undefined, private readonly estimate: WorkEstimate, private readonly seats: number, readonly startedMs: number, private readonly observer: QueueObserver) {}

  release(nowMs?: number): void {
    if (!this.held) return;
    this.held = false;
    this.set.finished(this.queue, this.estimate, this.seats, this.startedMs, this.observer, nowMs);
  }
}

export class QueueSet {
  private queues: Queue[] = [];
  /** Requests running, seats held (final seats included). */
  private executing = 0;
  private seatsInUse = 0;
  private waitingCount = 0;
  private waitingSeats = 0;
  /** Queues with a request waiting or running. */
  private busyQueues = 0;
  /** Virtual time, in seat-seconds, as of `lastRealMs`. */
  private currentR = 0;
  private lastRealMs = performance.now();
  /** Where the next search for the queue to dispatch from starts (ties go to the queue after the last chosen). */
  private robinIndex = -1;
  /** Enqueues so far: where in the hand the search for the emptiest queue starts. */
  private enqueues = 0;
  readonly dispatchFigures: DispatchFigures = { dispatched: false, r: 0, s: 0, sMin: 0, sMax: 0, discountedMin: 0, discountedMax: 0 };

  constructor(private config: QueueSetConfig, private readonly gauges?: LevelGauges) {
    this.resize();
    this.setDenominators();
  }

  get limit(): number {
    return this.config.concurrencyLimit;
  }

  /** Virtual time now (seat-seconds; apiserver_flowcontrol_current_r). */
  get virtualTime(): number {
    this.syncTime();
    return this.currentR;
  }

  /** Takes a new configuration; requests already waiting stay (in queue i mod the new count). */
  reconfigure(config: QueueSetConfig): void {
    this.syncTime();
    this.config = config;
    this.resize();
    this.setDenominators();
    this.dispatch();
  }

  /** Whether nothing runs, waits or holds seats here. */
  idle(): boolean {
    return this.executing === 0 && this.waitingCount === 0 && this.seatsInUse === 0;
  }

  /**
   * Seats at once, a refusal at once, or (queued) a promise of either. `hand` is the flow's queues
   * (see dealHand); a request waiting when its client goes away is cancelled. `nowMs`: the time
   * now when the caller has just read it (performance.now()).
   */
  admit(hand: readonly number[], observer: QueueObserver, client: ClientGone, estimate: WorkEstimate = ONE_SEAT, nowMs?: number): Seat | RejectReason | Promise<Seat | RejectReason> {
    this.syncTime(nowMs);
    const seats = maxSeats(estimate);
    if (this.config.queues === 0 || this.queues.length === 0) {
      return this.fits(seats) ? this.seat(undefined, estimate, seats, observer) : 'concurrency-limit';
    }
    // With nothing waiting every queue's waiting work is 0: the hand's next queue, without comparing them.
    const queue = this.leastLoaded(hand, this.waitingCount > 0);
    const work = totalWork(estimate);
    // Nothing waits and the seats are free: the request is dispatched as it is queued.
    if (this.waitingCount === 0 && this.fits(seats)) {
      this.wake(queue);
      const s = queue.nextDispatchR;
      const discounted = s - queue.seatsInUse * ESTIMATED_SERVICE_SECONDS;
      this.dispatchedFrom(s, s, s, discounted, discounted);
      const seat = this.seat(queue, estimate, seats, observer);
      queue.nextDispatchR += work;
      return seat;
    }
    if (this.seatsInUse >= this.config.concurrencyLimit && queue.waiting.length >= this.config.queueLengthLimit) return 'queue-full';
    return new Promise<Seat | RejectReason>((resolve) => {
      const waiter: Waiter = {
        queue, estimate, seats, work, arrivalR: this.currentR, observer,
        resolve: (outcome) => {
          clearTimeout(waiter.timer);
          observer.queued(-1, waiter.queue.waiting.length);
          resolve(outcome);
        },
        timer: undefined,
      };
      this.wake(queue);
      queue.waiting.push(waiter);
      queue.waitingWork += work;
      queue.waitingSeats += seats;
      this.waitingCount++;
      this.waitingSeats += seats;
      this.gauges?.waiting.set(this.waitingCount, this.lastRealMs);
      observer.queued(1, queue.waiting.length);
      this.dispatch();
      this.boundNextDispatch(queue);
      // Dispatched at once (others waited, but this one's virtual finish came first).
      if (!queue.waiting.includes(waiter)) return;
      waiter.timer = setTimeout(() => this.drop(waiter, 'time-out'), this.config.waitLimitMs);
      waiter.timer.unref();
      client.once('close', () => this.drop(waiter, 'cancelled'));
    });
  }

  /** A request that started at `startedMs` ended (see HeldSeat): its queue charged for the time it really took, its seats freed. */
  finished(queue: Queue | undefined, estimate: WorkEstimate, seats: number, startedMs: number, observer: QueueObserver, nowMs?: number): void {
    this.syncTime(nowMs);
    const seconds = (this.lastRealMs - startedMs) / 1000;
    this.executing--;
    this.gauges?.executing.set(this.executing, this.lastRealMs);
    if (queue) {
      queue.executing--;
      queue.nextDispatchR -= estimate.initialSeats * (ESTIMATED_SERVICE_SECONDS - seconds);
      this.boundNextDispatch(queue);
    }
    // A write's watch events keep its final seats busy a while after it answered.
    if (estimate.finalSeats > 0 && estimate.additionalLatencyMs > 0) {
      if (queue) this.settle(queue);
      const timer = setTimeout(() => {
        this.syncTime();
        this.releaseSeats(queue, seats, observer);
      }, estimate.additionalLatencyMs);
      timer.unref();
    } else {
      this.releaseSeats(queue, seats, observer);
    }
  }

  /** A finished request's seats given back (its final seats, when it had some, once their time is over). */
  private releaseSeats(queue: Queue | undefined, seats: number, observer: QueueObserver): void {
    this.seatsInUse -= seats;
    this.gauges?.seats.set(this.seatsInUse, this.lastRealMs);
    if (queue) queue.seatsInUse -= seats;
    observer.seatsInUse?.(-seats);
    if (queue) this.settle(queue);
    this.dispatch();
  }

  /** Whether `seats` can be taken now: within the limit, or alone when wider than all of it. */
  private fits(seats: number): boolean {
    if (seats > this.config.concurrencyLimit) return this.executing === 0;
    return this.seatsInUse + seats <= this.config.concurrencyLimit;
  }

  private seat(queue: Queue | undefined, estimate: WorkEstimate, seats: number, observer: QueueObserver): Seat {
    this.executing++;
    this.seatsInUse += seats;
    const gauges = this.gauges;
    if (gauges) {
      gauges.executing.set(this.executing, this.lastRealMs);
      gauges.seats.set(this.seatsInUse, this.lastRealMs);
    }
    if (queue) {
      queue.executing++;
      queue.seatsInUse += seats;
    }
    observer.seatsInUse?.(seats);
    // Every caller has just read the clock (syncTime).
    return new HeldSeat(this, queue, estimate, seats, this.lastRealMs, observer);
  }

  /** R advances by min(seats asked for, limit) / busy queues per second since it was last read. */
  private syncTime(now = performance.now()): void {
    const elapsed = (now - this.lastRealMs) / 1000;
    this.lastRealMs = now;
    if (this.busyQueues === 0) return;
    this.currentR += (Math.min(this.seatsInUse + this.waitingSeats, this.config.concurrencyLimit) / this.busyQueues) * elapsed;
  }

  /** A queue about to take a request: an idle one starts at the present virtual time. */
  private wake(queue: Queue): void {
    if (queue.waiting.length === 0 && queue.executing === 0) queue.nextDispatchR = this.currentR;
    if (!queue.busy) {
      queue.busy = true;
      this.busyQueues++;
    }
  }

  /** A queue that may have become idle stops counting as busy. */
  private settle(queue: Queue): void {
    if (queue.busy && queue.waiting.length === 0 && queue.executing === 0) {
      queue.busy = false;
      // A queue dropped by a reconfiguration was no longer counted.
      if (this.queues[queue.index] === queue) this.busyQueues--;
    }
  }

  private countBusy(): number {
    let n = 0;
    for (const q of this.queues) {
      q.busy = q.waiting.length > 0 || q.executing > 0;
      if (q.busy) n++;
    }
    return n;
  }

  /** A queue's next dispatch is never before its oldest waiting request arrived. */
  private boundNextDispatch(queue: Queue): void {
    const oldest = queue.waiting[0];
    if (oldest && queue.nextDispatchR < oldest.arrivalR) queue.nextDispatchR = oldest.arrivalR;
  }

  private drop(waiter: Waiter, reason: RejectReason): void {
    const queue = waiter.queue;
    const at = queue.waiting.indexOf(waiter);
    if (at < 0) return;
    this.syncTime();
    this.unqueue(waiter, at);
    this.settle(queue);
    waiter.resolve(reason);
    // A wide request that could not start may have held back narrower ones behind it.
    this.dispatch();
  }

  private unqueue(waiter: Waiter, at: number): void {
    const queue = waiter.queue;
    queue.waiting.splice(at, 1);
    // An empty queue's sums set to 0, not left with what the subtractions' rounding leaves.
    queue.waitingWork = queue.waiting.length === 0 ? 0 : queue.waitingWork - waiter.work;
    queue.waitingSeats = queue.waiting.length === 0 ? 0 : queue.waitingSeats - waiter.seats;
    this.waitingCount--;
    this.waitingSeats -= waiter.seats;
    this.gauges?.waiting.set(this.waitingCount, this.lastRealMs);
  }

  /**
   * Hands free seats to waiting requests: the oldest request of the queue whose virtual finish
   * (next dispatch + its work) is smallest, if its seats are free; else nobody (the wide request
   * waits for seats to free rather than be passed over for ever).
   */
  private dispatch(): void {
    while (this.waitingCount > 0 && this.seatsInUse < this.config.concurrencyLimit) {
      const n = this.queues.length;
      let best: Queue | undefined;
      let bestAt = -1;
      let bestFinish = Number.POSITIVE_INFINITY;
      let sMin = Number.POSITIVE_INFINITY;
      let sMax = Number.NEGATIVE_INFINITY;
      let discountedMin = Number.POSITIVE_INFINITY;
      let discountedMax = Number.NEGATIVE_INFINITY;
      for (let k = 0; k < n; k++) {
        const i = (this.robinIndex + 1 + k) % n;
        const q = this.queues[i]!;
        const oldest = q.waiting[0];
        if (!oldest) continue;
        const discounted = q.nextDispatchR - q.seatsInUse * ESTIMATED_SERVICE_SECONDS;
        sMin = Math.min(sMin, q.nextDispatchR);
        sMax = Math.max(sMax, q.nextDispatchR);
        discountedMin = Math.min(discountedMin, discounted);
        discountedMax = Math.max(discountedMax, discounted);
        const finish = q.nextDispatchR + oldest.work;
        if (finish < bestFinish) {
          bestFinish = finish;
          best = q;
          bestAt = i;
        }
      }
      if (!best) return;
      const waiter = best.waiting[0]!;
      if (!this.fits(waiter.seats)) {
        waiter.observer.notAccommodated?.();
        return;
      }
      this.robinIndex = bestAt;
      this.dispatchedFrom(best.nextDispatchR, sMin, sMax, discountedMin, discountedMax);
      this.unqueue(waiter, 0);
      const seat = this.seat(best, waiter.estimate, waiter.seats, waiter.observer);
      best.nextDispatchR += waiter.work;
      this.boundNextDispatch(best);
      waiter.resolve(seat);
    }
  }

  /** Notes a dispatch from a queue whose next dispatch was at `s` (the reference's SetDispatchMetrics). */
  private dispatchedFrom(s: number, sMin: number, sMax: number, discountedMin: number, discountedMax: number): void {
    const f = this.dispatchFigures;
    f.dispatched = true;
    f.r = this.currentR;
    f.s = s;
    f.sMin = sMin;
    f.sMax = sMax;
    f.discountedMin = discountedMin;
    f.discountedMax = discountedMax;
  }

  /** The gauges' limits: the queues' room (at least one), the concurrency limit. */
  private setDenominators(): void {
    const gauges = this.gauges;
    if (!gauges) return;
    const c = this.config;
    gauges.waiting.setDenominator(Math.max(c.queueLengthLimit, 1) * (c.queues > 0 ? c.queues : 1), this.lastRealMs);
    gauges.executing.setDenominator(c.concurrencyLimit, this.lastRealMs);
    gauges.seats.setDenominator(c.concurrencyLimit, this.lastRealMs);
  }

  /**
   * The queue of the hand with the least work waiting, looked at from a point that moves along the
   * hand; `compare` false when no queue has any (the point's queue, then).
   */
  private leastLoaded(hand: readonly number[], compare: boolean): Queue {
    const n = this.queues.length;
    const size = hand.length;
    if (size === 0) return this.queues[0]!;
    const offset = this.enqueues++ % size;
    let best = this.queues[hand[offset]! % n]!;
    if (!compare) return best;
    for (let k = 1; k < size; k++) {
      const q = this.queues[hand[(offset + k) % size]! % n]!;
      if (q.waitingWork < best.waitingWork) best = q;
    }
    return best;
  }

  private resize(): void {
    const want = this.config.queues;
    if (want === this.queues.length) return;
    const old = this.queues;
    this.queues = Array.from({ length: want }, (_, index) => ({ index, waiting: [], executing: 0, seatsInUse: 0, nextDispatchR: this.currentR, waitingWork: 0, waitingSeats: 0, busy: false }));
    if (want === 0) {
      // A level that now rejects: whoever waited is refused.
      for (const q of old) {
        q.busy = false;
        for (const w of q.waiting.splice(0)) {
          this.waitingCount--;
          this.waitingSeats -= w.seats;
          w.resolve('concurrency-limit');
        }
        this.gauges?.waiting.set(this.waitingCount, this.lastRealMs);
      }
      this.busyQueues = 0;
      return;
    }
    old.forEach((q, i) => {
      // The old queue's running requests settle on it, no longer counted.
      q.busy = false;
      const into = this.queues[i % want]!;
      for (const w of q.waiting) {
        w.queue = into;
        into.waiting.push(w);
        into.waitingWork += w.work;
        into.waitingSeats += w.seats;
      }
    });
    this.busyQueues = this.countBusy();
  }
}

/** What a request is charged in seat-seconds: its seats while it runs for the estimated time, and its final seats' time. */
function totalWork(e: WorkEstimate): number {
  return e.initialSeats * ESTIMATED_SERVICE_SECONDS + (e.finalSeats * e.additionalLatencyMs) / 1000;
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
