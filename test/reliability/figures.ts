// What every probe reports: figures, each with its bound when it has one, and the item of issue 14
// that owns the bound. The short form (probe.test.ts) asserts the bounds that hold today and
// prints the others as "not yet within bounds: issue 14 item N".
export interface Figure {
  probe: string;
  name: string;
  value: string;
  /** The bound, in words ("0", "<= 300 MiB"). */
  bound?: string;
  met?: boolean;
  /** The item of issue 14 whose fix brings this figure within its bound (not yet done). */
  pending?: number;
}

export class Figures {
  readonly all: Figure[] = [];

  constructor(private readonly probe: string) {}

  /** A measurement without a bound. */
  note(name: string, value: string): void {
    this.all.push({ probe: this.probe, name, value });
  }

  /** A measurement held to a bound; `pending`: the issue 14 item that is to bring it within. */
  check(name: string, value: string, bound: string, met: boolean, pending?: number): void {
    this.all.push({ probe: this.probe, name, value, bound, met, ...(pending !== undefined ? { pending } : {}) });
  }

  /** `count` must be 0. */
  zero(name: string, count: number, detail = '', pending?: number): void {
    this.check(name, `${count}${detail && count ? ` (${detail})` : ''}`, '0', count === 0, pending);
  }
}

export function describeFigure(f: Figure): string {
  const bound = f.bound === undefined ? '' : f.met ? `  [bound ${f.bound}: within]` : f.pending !== undefined ? `  [bound ${f.bound}: not yet within bounds: issue 14 item ${f.pending}]` : `  [bound ${f.bound}: MISSED]`;
  return `${f.probe}: ${f.name}: ${f.value}${bound}`;
}

export function printFigures(figures: readonly Figure[]): void {
  for (const f of figures) console.log(describeFigure(f));
}

/** The bounds that must hold: every bound not waiting for another item's fix. */
export function missed(figures: readonly Figure[]): Figure[] {
  return figures.filter((f) => f.bound !== undefined && !f.met && f.pending === undefined);
}

/** The nearest-rank quantile of numbers (sorted here). */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
export const msText = (v: number) => `${v.toFixed(v < 10 ? 1 : 0)} ms`;
