// API Priority and Fairness's metrics: per (priority level, flow schema) pair, numbers the filter
// and the queue sets add to (counted and summed in place, read at scrape time), and per level its
// concurrency limit and virtual time.
import type { Registry } from 'prom-client';
import {
  APF_CONCURRENCY_IN_USE, APF_CONCURRENCY_LIMIT, APF_CURRENT_EXECUTING, APF_CURRENT_INQUEUE, APF_CURRENT_R, APF_DISPATCHED, APF_EXECUTION_DURATION,
  APF_NO_ACCOMMODATION, APF_QUEUE_LENGTH, APF_REJECTED, APF_WAIT_DURATION, APF_WATCH_COUNT_SAMPLES, APF_WORK_ESTIMATED_SEATS, gauge, presummedCounter,
  presummedHistogram,
} from './families.js';
import type { CounterSeries, HistogramSeries } from './presummed.js';

/** What one (priority level, flow schema) pair's requests add to. */
export class FlowMetrics {
  inQueue = 0;
  executing = 0;
  /** Seats held by this pair's requests (a request takes several, and a write's final seats outlast it). */
  seats = 0;
  private readonly rejections = new Map<string, CounterSeries<string>>();
  private readonly waits = new Map<boolean, HistogramSeries<string>>();
  private readonly executions = new Map<boolean, HistogramSeries<string>>();

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
    let s = this.waits.get(executed);
    if (!s) this.waits.set(executed, s = this.owner.waitSeries(this, executed));
    s.observe(seconds);
  }

  /** How long a request ran (a watch: until it was initialized). */
  ran(seconds: number, watch: boolean): void {
    let s = this.executions.get(watch);
    if (!s) this.executions.set(watch, s = this.owner.executionSeries(this, watch));
    s.observe(seconds);
  }

  queued(delta: 1 | -1, length: number): void {
    this.inQueue += delta;
    if (delta > 0) this.queueLengths.observe(length);
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
  /** Each level's virtual time, read when scraped. */
  private readonly virtualTimes = new Map<string, () => number>();

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
    const virtualTimes = this.virtualTimes;
    gauge(registry, APF_CURRENT_R, function collect() {
      for (const [priority_level, r] of virtualTimes) this.set({ priority_level }, r());
    });
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

  /** A limited level's share of the server's concurrency and its virtual time; undefined: the level is gone. */
  setLimit(priorityLevel: string, limit: number | undefined, virtualTime?: () => number): void {
    if (limit === undefined) {
      this.limits.delete(priorityLevel);
      this.virtualTimes.delete(priorityLevel);
    } else {
      this.limits.set(priorityLevel, limit);
      if (virtualTime) this.virtualTimes.set(priorityLevel, virtualTime);
    }
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
