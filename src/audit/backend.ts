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
  /**
   * After a write, a partial batch left waits to gather again rather than going at once: a write
   * costs the request thread about the same whatever its size, and draining as fast as writes
   * complete makes a write of a few events each time.
   */
  regather?: boolean;
}

/** How long the first event of a quiet spell waits for others to be written with it. */
const GATHER_MS = 10;

/** Drains queued items into `write`, a batch at a time. */
export class BoundedQueue<T> {
  private queue: T[] = [];
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private droppedCount = 0;
  private closing = false;
  private lastWarning = 0;
  /** Set when the writer failed; cleared by its next success. */
  broken = false;

  constructor(private readonly options: QueueOptions, private readonly write: (batch: T[]) => Promise<void>) {}

  get dropped(): number {
    return this.droppedCount;
  }

  push(item: T): boolean {
    if (this.queue.length >= this.options.bufferSize) {
      this.droppedCount++;
      this.warn(`audit buffer queue blocked: ${this.droppedCount} event(s) dropped so far`);
      return false;
    }
    this.queue.push(item);
    if (!this.running) {
      // A wait gathers many events into one write: a write per event or two costs a request more
      // than everything else auditing does.
      if (this.queue.length >= this.options.maxBatchSize) this.start();
      else this.timer ??= setTimeout(() => this.start(), this.options.gatherMs ?? GATHER_MS);
    }
    return !this.broken;
  }

  async close(): Promise<void> {
    this.closing = true;
    if (this.queue.length) this.start();
    while (this.running) await this.running;
  }

  private start(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.running) return;
    const running = this.drain().finally(() => {
      if (this.running === running) this.running = undefined;
      // A partial batch left (regather) waits for more before its write.
      if (this.queue.length && !this.running) this.timer ??= setTimeout(() => this.start(), this.options.gatherMs ?? GATHER_MS);
    });
    this.running = running;
  }

  private async drain(): Promise<void> {
    let first = true;
    while (this.queue.length) {
      if (!first && this.options.regather && !this.closing && this.queue.length < this.options.maxBatchSize) return;
      first = false;
      const batch = this.queue.splice(0, this.options.maxBatchSize);
      try {
        await this.write(batch);
        this.broken = false;
      } catch (err) {
        this.broken = true;
        this.warn(`writing ${batch.length} event(s) failed: ${(err as Error).message}`);
      }
    }
  }

  /** At most one line every 10 s, so that a flood of drops does not flood the log. */
  private warn(message: string): void {
    const now = Date.now();
    if (now - this.lastWarning < 10_000) return;
    this.lastWarning = now;
    process.stderr.write(`Error in audit plugin '${this.options.name}': ${message}\n`);
  }
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
