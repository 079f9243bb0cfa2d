// The log backend (--audit-log-path): each event one line, JSON (audit.k8s.io/v1 Event, as the
// reference's encoder writes it) or the legacy text, to a rotated file or to standard output.
import type { AuditBackend } from './backend.js';
import { EncodedLineQueue, type EncodedLines } from './encoded-queue.js';
import { RotatingFile, type RotationOptions } from './log-file.js';
import type { Stage } from './policy.js';
import type { AuditRecord } from './record.js';

export type LogFormat = 'json' | 'legacy';
export const LOG_FORMATS: readonly LogFormat[] = ['legacy', 'json'];

export interface LogBackendOptions extends RotationOptions {
  /** A file, or "-" for standard output. */
  path: string;
  format: LogFormat;
  bufferSize: number;
  maxBatchSize: number;
}

/** Lines to standard output, waiting for it to drain when it pushes back. */
async function writeStdout(chunks: EncodedLines[]): Promise<void> {
  let drained = true;
  // A copy: the queue reuses its buffers once this returns, and a stream may hold on to what it was given.
  for (const c of chunks) drained = process.stdout.write(Buffer.from(c.buffer));
  if (!drained) await new Promise<void>((resolve) => process.stdout.once('drain', resolve));
}

/**
 * How long the first event of a quiet spell waits for others to be written with it. Each write
 * goes through libuv's thread pool, and handing one over costs about 50 µs of CPU on a small VM
 * (the threads' wake-ups) whatever its size: at 10 ms, with the server busy, that was half a
 * microsecond of every audited GET.
 */
const GATHER_MS = 50;
/** The most a line written in place may take (lineRoom's bound): past it, made as text. */
const MAX_IN_PLACE = 256 * 1024;
/** Events that are written at once without waiting for more. */
const BATCH_LINES = 2048;

export class LogBackend implements AuditBackend {
  private readonly queue: EncodedLineQueue;
  private readonly file: RotatingFile | undefined;

  constructor(private readonly options: LogBackendOptions) {
    this.file = options.path === '-' ? undefined : new RotatingFile(options.path, options);
    const write = this.file ? (chunks: EncodedLines[]) => this.file!.write(chunks) : writeStdout;
    // The file is written up to a couple of thousand events at a time however small the batch
    // size (a write costs about the same whatever its size): a batch here is one write call, not
    // one event's wait. A quarter of the buffer at most, so that events keep coming in while it is written.
    const batchLines = Math.max(options.maxBatchSize, Math.min(BATCH_LINES, Math.floor(options.bufferSize / 4)));
    this.queue = new EncodedLineQueue({ bufferSize: options.bufferSize, batchLines, gatherMs: GATHER_MS, name: 'log' }, write);
  }

  /** Creates the file before the server serves (a path that cannot be written fails the start). */
  async open(): Promise<void> {
    await this.file?.ensure();
  }

  get dropped(): number {
    return this.queue.dropped;
  }

  process(record: AuditRecord, stage: Stage, stageMicros: number): boolean {
    const queue = this.queue;
    if (this.options.format !== 'json') return queue.push(record.legacyLine(stage));
    // Written as bytes straight into the queue's buffer (no line made as a string), unless it is huge.
    return record.writeTo(queue, stage, stageMicros, MAX_IN_PLACE);
  }

  async close(): Promise<void> {
    await this.queue.close();
    await this.file?.close();
  }
}
