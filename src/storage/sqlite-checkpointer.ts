// Checkpoints of the SQLite store's write-ahead log, run by a connection of their own on a worker
// thread. A checkpoint copies the log's pages into the database file and syncs both: on the
// connection that writes, SQLite's automatic one ran inside a commit every thousand pages and held
// the event loop for 5–30 ms (every request waited). Here the writer only holds its next commit
// while the worker checkpoints (sqlite.ts), so the checkpoint copies the whole log and the next
// commit starts the log over, and the event loop goes on meanwhile.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** The worker: one connection; each message asks for a checkpoint, answered when done (or with its error). */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.library);
const db = new Database(workerData.path);
db.pragma('synchronous = NORMAL');
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({});
  } catch (err) {
    parentPort.postMessage({ error: String(err && err.message || err) });
  }
});
`;

export class WalCheckpointer {
  private worker: Worker | undefined;
  private waiting: Array<{ resolve: () => void; reject: (err: Error) => void }> = [];
  private failed: Error | undefined;
  /** Checkpoints done (for tests and diagnostics). */
  done = 0;

  /** @param path the database file */
  constructor(private readonly path: string) {}

  /** One PASSIVE checkpoint on the worker's connection (the worker is started at the first). */
  checkpoint(): Promise<void> {
    if (this.failed) return Promise.reject(this.failed);
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      const worker = this.started();
      // Writes wait for it: the process stays for the answer (and not for an idle worker).
      worker.ref();
      worker.postMessage('checkpoint');
    });
  }

  /** Stops the worker, letting a checkpoint under way end first. */
  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = undefined;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.ref();
    worker.postMessage('close');
    await exited;
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const library = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(WORKER, { eval: true, workerData: { library, path: this.path } });
    worker.on('message', (m: { error?: string }) => {
      const waiter = this.waiting.shift();
      if (this.waiting.length === 0) worker.unref();
      if (m.error !== undefined) return this.fail(new Error(m.error), waiter);
      this.done++;
      waiter?.resolve();
    });
    worker.on('error', (err) => this.fail(err));
    this.worker = worker;
    return worker;
  }

  /** No more checkpoints here: every one asked for (and every later one) rejects. */
  private fail(err: Error, waiter?: { reject: (err: Error) => void }): void {
    this.failed ??= err;
    waiter?.reject(err);
    for (const w of this.waiting.splice(0)) w.reject(err);
    const worker = this.worker;
    this.worker = undefined;
    void worker?.terminate();
  }
}
