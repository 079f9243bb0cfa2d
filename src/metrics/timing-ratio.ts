// Histograms of a ratio over time, as the reference's TimingRatioHistogram (component-base's
// TimingHistogram of numerator ÷ denominator): every nanosecond is one observation of the ratio's
// value then, so each bucket holds how many nanoseconds the ratio spent at or below its bound, the
// count is the nanoseconds since the series was made, and the sum is the ratio's integral over
// them. A change of the numerator (a request starting or ending: several per request) only adds
// the time since the last change to the time spent at the numerator it had, with the time the
// caller has just read; those times are put in their buckets (a division and a bucket search each)
// when the series is read or its denominator changes.
import { Histogram, type Registry } from 'prom-client';
// performance from its module, not the global: the global is an accessor, called at each use.
import { performance } from 'node:perf_hooks';
import { pushHistogramSeries, type Exported } from './presummed.js';

type Labels<L extends string> = Readonly<Record<L, string>>;

/** Numerators (whole numbers from 0) whose time is kept apart until read: beyond, a change is put in its bucket at once. */
const MAX_SLOTS = 4096;

/** One series: the ratio numerator ÷ denominator, accrued into its buckets as time passes. */
export class TimingRatio<L extends string = string> {
  /** Nanoseconds the ratio spent in each bucket (not cumulative), the last one above every bound: up to date after accrue(). */
  readonly bucketNs: Float64Array;
  // Every numeric field starts as a number (none declared bare, nor a constructor's parameter
  // property): a field that is first undefined holds each new double in a fresh box, allocated and
  // recorded by the write barrier (a series outlives many scavenges) at every change.
  sum = 0;
  private numerator = 0;
  private denominator = 1;
  private lastMs = 0;
  /** Milliseconds spent at each whole numerator since the last accrue() (grown as numerators reach further). */
  private slots = new Float64Array(16);

  constructor(readonly labels: Labels<L>, private readonly bounds: readonly number[], numerator: number, denominator: number, nowMs = performance.now()) {
    this.bucketNs = new Float64Array(bounds.length + 1);
    this.numerator = numerator;
    this.denominator = denominator;
    this.lastMs = nowMs;
  }

  /** The numerator changes at `nowMs` (performance.now()). */
  set(numerator: number, nowMs: number): void {
    this.pass(nowMs);
    this.numerator = numerator;
  }

  setDenominator(denominator: number, nowMs: number): void {
    this.accrue(nowMs);
    this.denominator = denominator;
  }

  /** Counts the time since the last change (or scrape) at the value it had, into the buckets. */
  accrue(nowMs: number): void {
    this.pass(nowMs);
    const slots = this.slots;
    for (let n = 0; n < slots.length; n++) {
      const ms = slots[n]!;
      if (ms === 0) continue;
      slots[n] = 0;
      this.add(n, ms);
    }
  }

  /** Drops what was counted (prom-client's reset). */
  clear(): void {
    this.bucketNs.fill(0);
    this.slots.fill(0);
    this.sum = 0;
  }

  /** The time since the last reading, at the numerator it had. */
  private pass(nowMs: number): void {
    const ms = nowMs - this.lastMs;
    // Time never runs backwards: an older reading adds nothing.
    if (!(ms > 0)) return;
    this.lastMs = nowMs;
    const n = this.numerator;
    if (n >= 0 && n < this.slots.length && (n | 0) === n) {
      this.slots[n]! += ms;
      return;
    }
    if (n >= 0 && n < MAX_SLOTS && (n | 0) === n) {
      const grown = new Float64Array(Math.min(MAX_SLOTS, Math.max(n + 1, this.slots.length * 2)));
      grown.set(this.slots);
      this.slots = grown;
      this.slots[n]! += ms;
      return;
    }
    this.add(n, ms);
  }

  /** `ms` spent at `numerator` (of the present denominator), into its bucket and the sum. */
  private add(numerator: number, ms: number): void {
    const value = numerator / this.denominator;
    const ns = ms * 1e6;
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    this.bucketNs[i]! += ns;
    this.sum += value * ns;
  }
}

/** A family of TimingRatio series, written as a histogram (whole nanoseconds, as the reference's counts). */
export class TimingRatioHistogram<L extends string> extends Histogram<L> {
  private readonly all: Array<TimingRatio<L>> = [];
  private readonly bounds: readonly number[];
  private readonly family: { name: string; help: string };

  constructor(d: { name: string; help: string; labelNames: readonly L[]; buckets: readonly number[]; registry: Registry }) {
    super({ name: d.name, help: d.help, labelNames: d.labelNames, buckets: [...d.buckets], registers: [d.registry] });
    this.bounds = [...d.buckets];
    this.family = { name: d.name, help: d.help };
  }

  /** A new series (the caller keeps it), shown from now on: numerator and denominator to start with. */
  series(labels: Labels<L>, numerator = 0, denominator = 1): TimingRatio<L> {
    const s = new TimingRatio(labels, this.bounds, numerator, denominator);
    this.all.push(s);
    return s;
  }

  /** What the registry writes: per series, cumulative buckets up to +Inf, then _sum and _count. */
  async getForPromString(): Promise<{ name: string; help: string; type: 'histogram'; values: Exported[]; aggregator: 'sum' }> {
    const now = performance.now();
    const values: Exported[] = [];
    for (const s of this.all) {
      s.accrue(now);
      pushHistogramSeries(values, this.family.name, s.labels, this.bounds, s.bucketNs.map(Math.round), s.sum);
    }
    return { ...this.family, type: 'histogram', values, aggregator: 'sum' };
  }

  override async get(): Promise<Awaited<ReturnType<Histogram<L>['get']>>> {
    return (await this.getForPromString()) as unknown as Awaited<ReturnType<Histogram<L>['get']>>;
  }

  override reset(): void {
    // prom-client's constructor may reset before this class's fields exist.
    for (const s of this.all ?? []) s.clear();
  }
}
