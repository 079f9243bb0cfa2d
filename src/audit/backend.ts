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

/** Drains queued items into `write`, a batch at a time. */
export class BoundedQueue<T> {
  private queue: T[] = [];
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private droppedCount = 0;
  private readonly warn: (message: string) => void;
  /** Set when the writer failed; cleared by its next success. */
  broken = false;

  constructor(private readonly options: QueueOptions, private readonly write: (batch: T[]) => Promise<void>) {
    this.warn = warnOnce(options.name);
  }

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
    if (this.queue.length) this.start();
    while (this.running) await this.running;
  }

  private start(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.running) return;
    this.running = this.drain().finally(() => {
      this.running = undefined;
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length) {
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
