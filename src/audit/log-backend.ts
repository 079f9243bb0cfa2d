// The log backend (--audit-log-path): each event one line, JSON (audit.k8s.io/v1 Event, as the
// reference's encoder writes it) or the legacy text, to a rotated file or to standard output.
import { BoundedQueue, type AuditBackend } from './backend.js';
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
async function writeStdout(lines: string[]): Promise<void> {
  if (!process.stdout.write(lines.join(''))) await new Promise<void>((resolve) => process.stdout.once('drain', resolve));
}

export class LogBackend implements AuditBackend {
  private readonly queue: BoundedQueue<string>;
  private readonly file: RotatingFile | undefined;

  constructor(private readonly options: LogBackendOptions) {
    this.file = options.path === '-' ? undefined : new RotatingFile(options.path, options);
    const write = this.file ? (lines: string[]) => this.file!.write(lines) : writeStdout;
    // The file is written a few hundred events at a time however small the batch size: a batch
    // here is one write call, not one event's wait.
    this.queue = new BoundedQueue({ bufferSize: options.bufferSize, maxBatchSize: Math.max(options.maxBatchSize, 512), name: 'log', regather: true }, write);
  }

  /** Creates the file before the server serves (a path that cannot be written fails the start). */
  async open(): Promise<void> {
    await this.file?.ensure();
  }

  get dropped(): number {
    return this.queue.dropped;
  }

  process(record: AuditRecord, stage: Stage, stageMicros: number): boolean {
    return this.queue.push(this.options.format === 'json' ? record.line(stage, stageMicros) : record.legacyLine(stage));
  }

  async close(): Promise<void> {
    await this.queue.close();
    await this.file?.close();
  }
}
