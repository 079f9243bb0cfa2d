// Histograms of a ratio over time, as the reference's TimingRatioHistogram (component-base's
// TimingHistogram of numerator ÷ denominator): every nanosecond is one observation of the ratio's
// value then, so each bucket holds how many nanoseconds the ratio spent at or below its bound, the
// count is the nanoseconds since the series was made, and the sum is the ratio's integral over
// them. A change costs a bucket search and two additions, with the time the caller has just read.
import { Histogram, type Registry } from 'prom-client';
// performance from its module, not the global: the global is an accessor, called at each use.
import { performance } from 'node:perf_hooks';
import { pushHistogramSeries, type Exported } from './presummed.js';

type Labels<L extends string> = Readonly<Record<L, string>>;

/** One series: the ratio numerator ÷ denominator, accrued into its buckets as time passes. */
export class TimingRatio<L extends string = string> {
  /** Nanoseconds the ratio spent in each bucket (not cumulative), the last one above every bound. */
  readonly bucketNs: Float64Array;
  // Every numeric field starts as a number (none declared bare, nor a constructor's parameter
  // property): a field that is first undefined holds each new double in a fresh box, allocated and
  // recorded by the write barrier (a series outlives many scavenges) at every change.
  sum = 0;
  private numerator = 0;
  private denominator = 1;
  private value = 0;
  /** The bucket of `value`, found when it changes (not at every accrual). */
  private bucket = 0;
  private lastMs = 0;

  constructor(readonly labels: Labels<L>, private readonly bounds: readonly number[], numerator: number, denominator: number, nowMs = performance.now()) {
    this.bucketNs = new Float64Array(bounds.length + 1);
    this.numerator = numerator;
    this.denominator = denominator;
    this.value = numerator / denominator;
    this.bucket = this.search(this.value);
    this.lastMs = nowMs;
  }

  /** The numerator changes at `nowMs` (performance.now()). */
  set(numerator: number, nowMs: number): void {
    this.accrue(nowMs);
    this.numerator = numerator;
    this.value = numerator / this.denominator;
    this.bucket = this.search(this.value);
  }

  setDenominator(denominator: number, nowMs: number): void {
    this.accrue(nowMs);
    this.denominator = denominator;
    this.value = this.numerator / denominator;
    this.bucket = this.search(this.value);
  }

  /** Counts the time since the last change (or scrape) at the value it had. */
  accrue(nowMs: number): void {
    const ns = (nowMs - this.lastMs) * 1e6;
    if (!(ns > 0)) return;
    this.lastMs = nowMs;
    this.bucketNs[this.bucket]! += ns;
    this.sum += this.value * ns;
  }

  /** The first bucket whose bound `value` does not exceed (the last: above every bound). */
  private search(value: number): number {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    return i;
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
    for (const s of this.all ?? []) {
      s.bucketNs.fill(0);
      s.sum = 0;
    }
  }
}
