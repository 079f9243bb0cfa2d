// API Priority and Fairness's metrics: per (priority level, flow schema) pair, numbers the filter
// and the queue sets add to (counted and summed in place, read at scrape time); per level its
// concurrency limit, virtual time and last dispatch's figures, and the timing ratio histograms of
// its requests waiting and running and its seats held; for the whole server, read-only and
// mutating requests waiting and running.
import type { Registry } from 'prom-client';
// performance from its module, not the global: the global is an accessor, called at each use.
import { performance } from 'node:perf_hooks';
import {
  APF_CONCURRENCY_IN_USE, APF_CONCURRENCY_LIMIT, APF_CURRENT_EXECUTING, APF_CURRENT_INQUEUE, APF_CURRENT_R, APF_DISPATCHED, APF_EXECUTION_DURATION,
  APF_DISPATCH_R, APF_LATEST_S, APF_NEXT_DISCOUNTED_S_BOUNDS, APF_NEXT_S_BOUNDS, APF_NO_ACCOMMODATION, APF_QUEUE_LENGTH, APF_READ_VS_WRITE, APF_REJECTED,
  APF_REQUEST_UTILIZATION, APF_SEAT_UTILIZATION, APF_WAIT_DURATION, APF_WATCH_COUNT_SAMPLES, APF_WORK_ESTIMATED_SEATS, gauge, presummedCounter,
  presummedHistogram, timingRatioHistogram,
} from './families.js';
import type { CounterSeries, HistogramSeries } from './presummed.js';
import type { TimingRatio } from './timing-ratio.js';

/** What a limited level's queue set shows at scrape time (server/flowcontrol/queue-set.ts). */
export interface LevelState {
  readonly virtualTime: number;
  readonly dispatchFigures: { dispatched: boolean; r: number; s: number; sMin: number; sMax: number; discountedMin: number; discountedMax: number };
}

/** A level's timing ratios: requests waiting of its queues' room, running of its limit, seats held of its limit. */
export interface LevelRatios {
  waiting: TimingRatio;
  executing: TimingRatio;
  seats: TimingRatio;
}

/** The server's requests by kind and phase, each of the sum of the limited levels' limits or queues' room. */
export interface ReadWriteRatios {
  waiting: { readOnly: TimingRatio; mutating: TimingRatio };
  executing: { readOnly: TimingRatio; mutating: TimingRatio };
}

/** What one (priority level, flow schema) pair's requests add to. */
export class FlowMetrics {
  inQueue = 0;
  executing = 0;
  /** Seats held by this pair's requests (a request takes several, and a write's final seats outlast it). */
  seats = 0;
  private readonly rejections = new Map<string, CounterSeries<string>>();
  /** The wait and execution series, by `execute` and by `type`: made when first observed. */
  private waitsExecuted: HistogramSeries<string> | undefined;
  private waitsRefused: HistogramSeries<string> | undefined;
  private regularExecutions: HistogramSeries<string> | undefined;
  private watchExecutions: HistogramSeries<string> | undefined;

  private estimatedSeats: HistogramSeries<string> | undefined;
  private watchCounts: HistogramSeries<string> | undefined;
  private noAccommodation: CounterSeries<string> | undefined;

  constructor(private readonly owner: FlowControlMetrics, readonly priorityLevel: string, readonly flowSchema: string, readonly exempt: boolean, private readonly dispatchedSeries: CounterSeries<string>, private readonly queueLengths: HistogramSeries<string>) {}

  /** A request's estimated seats (the larger of while it runs and after). */
  estimated(seats: number): void {
    (this.estimatedSeats ??= this.owner.pairSeries(this, 'estimatedSeats')).observe(seats);
  }

  /** The watches a mutating request's event reaches. */
  watchCount(count: number): void {
    (this.watchCounts ??= this.owner.pairSeries(this, 'watchCounts')).observe(count);
  }

  notAccommodated(): void {
    (this.noAccommodation ??= this.owner.noAccommodationSeries(this)).inc();
  }

  seatsInUse(delta: number): void {
    this.seats += delta;
  }

  dispatched(): void {
    this.dispatchedSeries.inc();
  }

  rejected(reason: string): void {
    let s = this.rejections.get(reason);
    if (!s) this.rejections.set(reason, s = this.owner.rejectedSeries(this, reason));
    s.inc();
  }

  /** A queued request's wait, whether it then ran or not. */
  waited(seconds: number, executed: boolean): void {
    const s = executed ? (this.waitsExecuted ??= this.owner.waitSeries(this, true)) : (this.waitsRefused ??= this.owner.waitSeries(this, false));
    s.observe(seconds);
  }

  /** A request dispatched as it came, without waiting: a wait of 0 that then ran. */
  waitedNone(): void {
    (this.waitsExecuted ??= this.owner.waitSeries(this, true)).observe(0);
  }

  /** How long a request ran (a watch: until it was initialized). */
  ran(seconds: number, watch: boolean): void {
    const s = watch ? (this.watchExecutions ??= this.owner.executionSeries(this, true)) : (this.regularExecutions ??= this.owner.executionSeries(this, false));
    s.observe(seconds);
  }

  queued(delta: 1 | -1, length: number): void {
    this.inQueue += delta;
    if (delta > 0) this.queueLengths.observe(length);
  }

  /** A request of this pair starts (+1) or stops (−1) waiting in a queue, at `nowMs`: the server's read-only or mutating count. */
  kindWaiting(mutating: boolean, delta: 1 | -1, nowMs: number): void {
    this.owner.requestsOfKind.waiting(mutating, delta, nowMs);
  }

  /** A request of this pair starts (+1) or stops (−1) running (a watch: starting), at `nowMs`. */
  kindExecuting(mutating: boolean, delta: 1 | -1, nowMs: number): void {
    this.owner.requestsOfKind.executing(mutating, delta, nowMs);
  }
}

/** One count of the server's requests (of a kind, in a phase) and its ratio. */
class KindCount {
  count = 0;
  constructor(readonly ratio: TimingRatio) {}

  add(delta: number, nowMs: number): void {
    this.ratio.set((this.count += delta), nowMs);
  }
}

/** The server's requests waiting and running, read-only and mutating, each counted into its ratio. */
class RequestsOfKind {
  private readonly waitingReadOnly: KindCount;
  private readonly waitingMutating: KindCount;
  private readonly executingReadOnly: KindCount;
  private readonly executingMutating: KindCount;

  constructor(ratios: ReadWriteRatios) {
    this.waitingReadOnly = new KindCount(ratios.waiting.readOnly);
    this.waitingMutating = new KindCount(ratios.waiting.mutating);
    this.executingReadOnly = new KindCount(ratios.executing.readOnly);
    this.executingMutating = new KindCount(ratios.executing.mutating);
  }

  waiting(mutating: boolean, delta: 1 | -1, nowMs: number): void {
    (mutating ? this.waitingMutating : this.waitingReadOnly).add(delta, nowMs);
  }

  executing(mutating: boolean, delta: 1 | -1, nowMs: number): void {
    (mutating ? this.executingMutating : this.executingReadOnly).add(delta, nowMs);
  }
}

export class FlowControlMetrics {
  private readonly pairs = new Map<string, FlowMetrics>();
  private readonly limits = new Map<string, number>();
  private readonly dispatchedCounter;
  private readonly rejectedCounter;
  private readonly waitHistogram;
  private readonly executionHistogram;
  private readonly queueLengthHistogram;
  private readonly estimatedSeatsHistogram;
  private readonly watchCountHistogram;
  private readonly noAccommodationCounter;
  /** Each limited level's queue set, read when scraped. */
  private readonly levelStates = new Map<string, LevelState>();
  private readonly levelRatios = new Map<string, LevelRatios>();
  private readonly seatUtilization;
  private readonly requestUtilization;
  readonly readWrite: ReadWriteRatios;
  readonly requestsOfKind: RequestsOfKind;

  constructor(registry: Registry) {
    this.rejectedCounter = presummedCounter(registry, APF_REJECTED);
    this.dispatchedCounter = presummedCounter(registry, APF_DISPATCHED);
    const pairs = this.pairs;
    const limits = this.limits;
    gauge(registry, APF_CURRENT_INQUEUE, function collect() {
      for (const p of pairs.values()) if (!p.exempt) this.set({ flow_schema: p.flowSchema, priority_level: p.priorityLevel }, p.inQueue);
    });
    this.queueLengthHistogram = presummedHistogram(registry, APF_QUEUE_LENGTH);
    gauge(registry, APF_CONCURRENCY_LIMIT, function collect() {
      for (const [priority_level, limit] of limits) this.set({ priority_level }, limit);
    });
    gauge(registry, APF_CURRENT_EXECUTING, function collect() {
      for (const p of pairs.values()) if (!p.exempt) this.set({ flow_schema: p.flowSchema, priority_level: p.priorityLevel }, p.executing);
    });
    gauge(registry, APF_CONCURRENCY_IN_USE, function collect() {
      for (const p of pairs.values()) if (!p.exempt) this.set({ flow_schema: p.flowSchema, priority_level: p.priorityLevel }, p.seats);
    });
    const levelStates = this.levelStates;
    gauge(registry, APF_CURRENT_R, function collect() {
      for (const [priority_level, state] of levelStates) this.set({ priority_level }, state.virtualTime);
    });
    // The dispatch gauges, shown once a level has dispatched from its queues (as the reference sets them).
    const dispatched = () => [...levelStates].filter(([, state]) => state.dispatchFigures.dispatched).map(([level, state]) => [level, state.dispatchFigures] as const);
    gauge(registry, APF_DISPATCH_R, function collect() {
      for (const [priority_level, f] of dispatched()) this.set({ priority_level }, f.r);
    });
    gauge(registry, APF_LATEST_S, function collect() {
      for (const [priority_level, f] of dispatched()) this.set({ priority_level }, f.s);
    });
    gauge(registry, APF_NEXT_S_BOUNDS, function collect() {
      for (const [priority_level, f] of dispatched()) {
        this.set({ bound: 'max', priority_level }, f.sMax);
        this.set({ bound: 'min', priority_level }, f.sMin);
      }
    });
    gauge(registry, APF_NEXT_DISCOUNTED_S_BOUNDS, function collect() {
      for (const [priority_level, f] of dispatched()) {
        this.set({ bound: 'max', priority_level }, f.discountedMax);
        this.set({ bound: 'min', priority_level }, f.discountedMin);
      }
    });
    this.seatUtilization = timingRatioHistogram(registry, APF_SEAT_UTILIZATION);
    this.requestUtilization = timingRatioHistogram(registry, APF_REQUEST_UTILIZATION);
    const readWrite = timingRatioHistogram(registry, APF_READ_VS_WRITE);
    const kinds = (phase: string) => ({ readOnly: readWrite.series({ phase, request_kind: 'readOnly' }), mutating: readWrite.series({ phase, request_kind: 'mutating' }) });
    this.readWrite = { executing: kinds('executing'), waiting: kinds('waiting') };
    this.requestsOfKind = new RequestsOfKind(this.readWrite);
    this.estimatedSeatsHistogram = presummedHistogram(registry, APF_WORK_ESTIMATED_SEATS);
    this.watchCountHistogram = presummedHistogram(registry, APF_WATCH_COUNT_SAMPLES);
    this.noAccommodationCounter = presummedCounter(registry, APF_NO_ACCOMMODATION);
    this.waitHistogram = presummedHistogram(registry, APF_WAIT_DURATION);
    this.executionHistogram = presummedHistogram(registry, APF_EXECUTION_DURATION);
  }

  /** The numbers of one pair (made once, kept while the server runs); an Exempt level's requests are neither queued nor counted executing. */
  of(priorityLevel: string, flowSchema: string, exempt: boolean): FlowMetrics {
    const key = `${priorityLevel}\0${flowSchema}`;
    let m = this.pairs.get(key);
    if (!m) {
      const labels = { flow_schema: flowSchema, priority_level: priorityLevel };
      m = new FlowMetrics(this, priorityLevel, flowSchema, exempt, this.dispatchedCounter.series(labels), this.queueLengthHistogram.series(labels));
      this.pairs.set(key, m);
    }
    return m;
  }

  /** A limited level's share of the server's concurrency and its queue set; undefined: the level is gone. */
  setLimit(priorityLevel: string, limit: number | undefined, state?: LevelState): void {
    if (limit === undefined) {
      this.limits.delete(priorityLevel);
      this.levelStates.delete(priorityLevel);
    } else {
      this.limits.set(priorityLevel, limit);
      if (state) this.levelStates.set(priorityLevel, state);
    }
  }

  /**
   * A level's timing ratios, made when the level first appears (the exempt one's stay at zero) and
   * kept after it is gone, as the reference's; a queue set keeps them up to date.
   */
  ratiosOf(priorityLevel: string): LevelRatios {
    let r = this.levelRatios.get(priorityLevel);
    if (!r) {
      r = {
        waiting: this.requestUtilization.series({ phase: 'waiting', priority_level: priorityLevel }),
        executing: this.requestUtilization.series({ phase: 'executing', priority_level: priorityLevel }),
        seats: this.seatUtilization.series({ phase: 'executing', priority_level: priorityLevel }),
      };
      this.levelRatios.set(priorityLevel, r);
    }
    return r;
  }

  /**
   * The limits of the read-only and mutating ratios: the limited levels' concurrency limits and
   * queues' room, summed. None (no level queues, as before the bootstrap levels exist) counts as
   * one: nothing can wait then, and 0 ÷ 0 would make the sums NaN for good.
   */
  setServerLimits(executing: number, waiting: number): void {
    executing = Math.max(executing, 1);
    waiting = Math.max(waiting, 1);
    const now = performance.now();
    for (const r of Object.values(this.readWrite.executing)) r.setDenominator(executing, now);
    for (const r of Object.values(this.readWrite.waiting)) r.setDenominator(waiting, now);
  }

  /**
   * With API Priority and Fairness off, the max-in-flight filter's share of these figures, as the
   * reference's: the read-only and the mutating requests executing, each a fraction of its own
   * limit (--max-requests-inflight, --max-mutating-requests-inflight). The ratios of the limited
   * kinds, their numerators the filter's own counts; an unlimited kind has none (not counted).
   */
  inFlightRatios(limits: { readOnly: number; mutating: number }): { readOnly?: TimingRatio; mutating?: TimingRatio } {
    const now = performance.now();
    const ratios: { readOnly?: TimingRatio; mutating?: TimingRatio } = {};
    for (const kind of ['readOnly', 'mutating'] as const) {
      if (limits[kind] === 0) continue;
      ratios[kind] = this.readWrite.executing[kind];
      ratios[kind].setDenominator(limits[kind], now);
    }
    return ratios;
  }

  pairSeries(p: FlowMetrics, which: 'estimatedSeats' | 'watchCounts'): HistogramSeries<string> {
    const labels = { flow_schema: p.flowSchema, priority_level: p.priorityLevel };
    return (which === 'estimatedSeats' ? this.estimatedSeatsHistogram : this.watchCountHistogram).series(labels);
  }

  noAccommodationSeries(p: FlowMetrics): CounterSeries<string> {
    return this.noAccommodationCounter.series({ flow_schema: p.flowSchema, priority_level: p.priorityLevel });
  }

  rejectedSeries(p: FlowMetrics, reason: string): CounterSeries<string> {
    return this.rejectedCounter.series({ flow_schema: p.flowSchema, priority_level: p.priorityLevel, reason });
  }

  waitSeries(p: FlowMetrics, executed: boolean): HistogramSeries<string> {
    return this.waitHistogram.series({ execute: String(executed), flow_schema: p.flowSchema, priority_level: p.priorityLevel });
  }

  executionSeries(p: FlowMetrics, watch: boolean): HistogramSeries<string> {
    return this.executionHistogram.series({ flow_schema: p.flowSchema, priority_level: p.priorityLevel, type: watch ? 'watch' : 'regular' });
  }
}
