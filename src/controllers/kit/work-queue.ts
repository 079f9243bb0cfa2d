// A keyed work queue, as the reference's controllers use: a key queued many times is worked once;
// a key queued while it is being worked is worked again after; a failed key is retried with a
// growing delay; a few keys are worked at a time. Keys are usually `namespace/name`.
import { StatusError } from '../../errors.js';

export interface WorkQueueOptions {
  /** How many keys are worked at once. */
  workers?: number;
  /** The first retry's delay (ms); it doubles on each failure of the same key, up to maxDelayMs. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Called with a key's error (other than a conflict or a missing object, which are just retried). */
  onError?: (key: string, err: unknown) => void;
}

/**
 * An onError that logs only the unexpected: a write the API refused (admission, validation) is a
 * Status, which the controller records as an Event instead.
 */
export function logUnlessRefused(controller: string): (key: string, err: unknown) => void {
  return (key, err) => {
    if (!(err instanceof StatusError)) console.error(`${controller}: ${key}:`, err);
  };
}

export class WorkQueue {
  private readonly queued = new Set<string>();
  private readonly order: string[] = [];
  private readonly active = new Set<string>();
  /** Keys queued again while being worked: worked once more when their turn ends. */
  private readonly again = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private running = 0;
  private stopped = false;
  private idleWaiters: Array<() => void> = [];
  private readonly workers: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;

  constructor(private readonly work: (key: string) => Promise<void>, private readonly options: WorkQueueOptions = {}) {
    this.workers = options.workers ?? 5;
    this.baseDelayMs = options.baseDelayMs ?? 5;
    this.maxDelayMs = options.maxDelayMs ?? 60_000;
  }

  add(key: string): void {
    if (this.stopped) return;
    if (this.active.has(key)) {
      this.again.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.order.push(key);
    this.pump();
  }

  /** Queues the key after a delay (a deadline, a backoff). */
  addAfter(key: string, delayMs: number): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.add(key);
    }, Math.max(0, delayMs));
    timer.unref();
    this.timers.add(timer);
  }

  /** Forgets a key's failures (after it was worked without error). */
  forget(key: string): void {
    this.failures.delete(key);
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.queued.clear();
    this.order.length = 0;
  }

  /** Resolves once nothing is queued or being worked (tests and benchmarks wait on it). */
  idle(): Promise<void> {
    if (this.running === 0 && this.order.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private pump(): void {
    while (!this.stopped && this.running < this.workers && this.order.length > 0) {
      const key = this.order.shift()!;
      this.queued.delete(key);
      this.active.add(key);
      this.running++;
      void this.run(key);
    }
    if (this.running === 0 && this.order.length === 0 && this.idleWaiters.length) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  private async run(key: string): Promise<void> {
    try {
      await this.work(key);
      this.failures.delete(key);
    } catch (err) {
      this.retry(key, err);
    } finally {
      this.active.delete(key);
      this.running--;
      if (this.again.delete(key)) this.add(key);
      this.pump();
    }
  }

  private retry(key: string, err: unknown): void {
    const expected = err instanceof StatusError && (err.code === 409 || err.code === 404);
    if (!expected) this.options.onError?.(key, err);
    const n = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, n);
    this.addAfter(key, Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (n - 1)));
  }
}

/** The key of a namespaced object, as the reference's cache keys. */
export function keyOf(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/** A key split back into namespace and name. */
export function splitKey(key: string): { namespace: string | undefined; name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { namespace: undefined, name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
