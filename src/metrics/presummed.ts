// Counters and histograms for the per-request path. prom-client's own children still validate and
// hash their labels on every call (a few µs per request across the request families); these keep
// each series as plain numbers that the caller holds on to, and hand them to prom-client's
// registry only when it is scraped (they are prom-client metrics whose `get` reads the series).
import { Counter, Histogram, type Registry } from 'prom-client';

type Labels<L extends string> = Readonly<Record<L, string>>;

export interface Exported {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

/** One histogram series as the registry writes it: cumulative buckets up to +Inf (`counts` per bucket, not cumulative), then _sum and _count. */
export function pushHistogramSeries(values: Exported[], name: string, labels: Readonly<Record<string, string>>, bounds: readonly number[], counts: ArrayLike<number>, sum: number): void {
  let cumulative = 0;
  for (let i = 0; i <= bounds.length; i++) {
    cumulative += counts[i]!;
    values.push({ labels: { ...labels, le: i < bounds.length ? bounds[i]! : '+Inf' }, value: cumulative, metricName: `${name}_bucket` });
  }
  values.push({ labels: { ...labels }, value: sum, metricName: `${name}_sum` });
  values.push({ labels: { ...labels }, value: cumulative, metricName: `${name}_count` });
}

/** One counter series: `inc` is a field update. */
export class CounterSeries<L extends string> {
  value = 0;
  /** Shown once counted (reset hides it again, as prom-client's reset drops a series). */
  touched = false;
  constructor(readonly labels: Labels<L>) {}

  inc(): void {
    this.value++;
    this.touched = true;
  }
}

/** One histogram series: counts per bucket (not cumulative until exported), sum and count. */
export class HistogramSeries<L extends string> {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  touched = false;
  constructor(readonly labels: Labels<L>, private readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += value;
    this.count++;
    this.touched = true;
  }
}

interface Definition<L extends string> {
  name: string;
  help: string;
  labelNames: readonly L[];
  registry: Registry;
}

export class PresummedCounter<L extends string> extends Counter<L> {
  private readonly all: Array<CounterSeries<L>> = [];
  private readonly family: { name: string; help: string };

  constructor(d: Definition<L>) {
    super({ name: d.name, help: d.help, labelNames: d.labelNames, registers: [d.registry] });
    this.family = { name: d.name, help: d.help };
  }

  /** A new series (the caller keeps it: one per label set). */
  series(labels: Labels<L>): CounterSeries<L> {
    const s = new CounterSeries(labels);
    this.all.push(s);
    return s;
  }

  override async get(): Promise<Awaited<ReturnType<Counter<L>['get']>>> {
    const values = this.all.filter((s) => s.touched).map((s) => ({ labels: { ...s.labels }, value: s.value }));
    return { ...this.family, type: 'counter', values, aggregator: 'sum' } as unknown as Awaited<ReturnType<Counter<L>['get']>>;
  }

  override reset(): void {
    // prom-client's constructor may reset before this class's fields exist.
    for (const s of this.all ?? []) {
      s.value = 0;
      s.touched = false;
    }
  }
}

export class PresummedHistogram<L extends string> extends Histogram<L> {
  private readonly all: Array<HistogramSeries<L>> = [];
  private readonly bounds: readonly number[];
  private readonly family: { name: string; help: string };

  constructor(d: Definition<L> & { buckets: readonly number[] }) {
    super({ name: d.name, help: d.help, labelNames: d.labelNames, buckets: [...d.buckets], registers: [d.registry] });
    this.bounds = [...d.buckets];
    this.family = { name: d.name, help: d.help };
  }

  /** A new series (the caller keeps it: one per label set). */
  series(labels: Labels<L>): HistogramSeries<L> {
    const s = new HistogramSeries(labels, this.bounds);
    this.all.push(s);
    return s;
  }

  /** What the registry writes: per series, cumulative buckets up to +Inf, then _sum and _count. */
  async getForPromString(): Promise<{ name: string; help: string; type: 'histogram'; values: Exported[]; aggregator: 'sum' }> {
    const values: Exported[] = [];
    for (const s of this.all) if (s.touched) pushHistogramSeries(values, this.family.name, s.labels, this.bounds, s.counts, s.sum);
    return { ...this.family, type: 'histogram', values, aggregator: 'sum' };
  }

  override async get(): Promise<Awaited<ReturnType<Histogram<L>['get']>>> {
    return (await this.getForPromString()) as unknown as Awaited<ReturnType<Histogram<L>['get']>>;
  }

  override reset(): void {
    for (const s of this.all ?? []) {
      s.counts.fill(0);
      s.sum = 0;
      s.count = 0;
      s.touched = false;
    }
  }
}
