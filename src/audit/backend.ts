// Where events go: a bounded queue in front of a writer (the log file, standard output, a
// webhook). A request only ever appends to the queue; the writer drains it in the background. A
// full queue drops the event and counts it (the reference's batch buffer does the same), so a
// slow disk or webhook never holds requests up.
import type { Stage } from './policy.js';
import type { AuditRecord } from './record.js';

/** audit-log-mode / audit-webhook-mode. */
export type BackendMode = 'blocking' | 'batch' | 'blocking-strict';
export const BACKEND_MODES: readonly BackendMode[] = ['batch', 'blocking', 'blocking-strict'];

export interface AuditBackend {
  /** Takes the event at `stage`; false when it could not be taken (queue full, writer broken). */
  process(record: AuditRecord, stage: Stage, stageMicros: number): boolean;
  /** Waits until what was taken is written. */
  close(): Promise<void>;
}

export interface QueueOptions {
  /** Events held at most before new ones are dropped. */
  bufferSize: number;
  /** Events written in one go at most. */
  maxBatchSize: number;
  /** How the warnings name the backend: "log", "webhook". */
  name: string;
  /** How long the first event of a quiet spell waits for others to go with it (unless a batch fills first). */
  gatherMs?: number;
}

/** How long the first event of a quiet spell waits for others to be written with it. */
const GATHER_MS = 10;

export interface SchedulingOptions {
  /** Items held at most before new ones are dropped. */
  bufferSize: number;
  /** Items that, once held, are written without waiting for more. */
  batchSize: number;
  /** How long the first item of a quiet spell waits for others to go with it. */
  gatherMs: number;
  /** How the warnings name the backend: "log", "webhook". */
  name: string;
}

/**
 * What every backend's queue does the same way: a full queue drops the item and counts it, a
 * request never waits for a write, one write runs at a time, and what is held waits `gatherMs`
 * for company unless it makes a batch (a write per event or two costs a request more than
 * everything else auditing does). Subclasses say how items are held and written.
 */
export abstract class BatchingQueue<T> {
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private droppedCount = 0;
  private closing = false;
  protected readonly warn: (message: string) => void;
  /** Set when the writer failed; cleared by its next success. */
  broken = false;

  constructor(private readonly scheduling: SchedulingOptions) {
    this.warn = warnOnce(scheduling.name);
  }

  /** Items held now. */
  protected abstract get held(): number;
  protected abstract hold(item: T): void;
  /** Writes what is held (all of it, or batches until none is left). */
  protected abstract drain(): Promise<void>;

  get dropped(): number {
    return this.droppedCount;
  }

  push(item: T): boolean {
    if (!this.admit()) return false;
    this.hold(item);
    return this.taken();
  }

  /** Whether there is room for one more item; when not, the item is dropped and counted. */
  protected admit(): boolean {
    if (this.held < this.scheduling.bufferSize) return true;
    this.droppedCount++;
    this.warn(`audit buffer queue blocked: ${this.droppedCount} event(s) dropped so far`);
    return false;
  }

  /** After an item was held: its write scheduled; false when the writer is broken. */
  protected taken(): boolean {
    if (!this.running) this.schedule();
    return !this.broken;
  }

  async close(): Promise<void> {
    this.closing = true;
    if (this.held) this.start();
    while (this.running) await this.running;
  }

  /** A write that failed: warned (at most every 10 s), and `broken` until the next success. */
  protected async written(count: number, write: Promise<void>): Promise<void> {
    try {
      await write;
      this.broken = false;
    } catch (err) {
      this.broken = true;
      this.warn(`writing ${count} event(s) failed: ${(err as Error).message}`);
    }
  }

  private schedule(): void {
    if (this.held >= this.scheduling.batchSize || this.closing) this.start();
    else if (this.timer === undefined) this.gather();
  }

  /**
   * The write started once what is held has waited `gatherMs` for company. A function of its own:
   * the arrow's `this` made schedule() allocate a context at every call, timer or not.
   */
  private gather(): void {
    this.timer = setTimeout(() => this.start(), this.scheduling.gatherMs);
  }

  private start(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.running) return;
    const running = this.drain().finally(() => {
      if (this.running === running) this.running = undefined;
      // What came during the write waits for more before its own (unless it makes a batch).
      if (this.held && !this.running) this.schedule();
    });
    this.running = running;
  }
}

export interface QueueOptions {
  /** Events held at most before new ones are dropped. */
  bufferSize: number;
  /** Events written in one go at most. */
  maxBatchSize: number;
  /** How the warnings name the backend: "log", "webhook". */
  name: string;
  /** How long the first event of a quiet spell waits for others to go with it (unless a batch fills first). */
  gatherMs?: number;
}

/** Items held as they are, written a batch at a time. */
export class BoundedQueue<T> extends BatchingQueue<T> {
  private queue: T[] = [];

  constructor(private readonly options: QueueOptions, private readonly write: (batch: T[]) => Promise<void>) {
    super({ bufferSize: options.bufferSize, batchSize: options.maxBatchSize, gatherMs: options.gatherMs ?? GATHER_MS, name: options.name });
  }

  protected get held(): number {
    return this.queue.length;
  }

  protected hold(item: T): void {
    this.queue.push(item);
  }

  protected async drain(): Promise<void> {
    while (this.queue.length) {
      const batch = this.queue.splice(0, this.options.maxBatchSize);
      await this.written(batch.length, this.write(batch));
    }
  }
}

/** A backend's warnings: at most one line every 10 s, so that a flood of drops does not flood the log. */
export function warnOnce(name: string): (message: string) => void {
  let last = 0;
  return (message) => {
    const now = Date.now();
    if (now - last < 10_000) return;
    last = now;
    process.stderr.write(`Error in audit plugin '${name}': ${message}\n`);
  };
}

/** Several backends as one (the log and the webhook). */
export function unionBackend(backends: AuditBackend[]): AuditBackend {
  if (backends.length === 1) return backends[0]!;
  return {
    process: (record, stage, micros) => backends.map((b) => b.process(record, stage, micros)).every(Boolean),
    close: async () => {
      await Promise.all(backends.map((b) => b.close()));
    },
  };
}
