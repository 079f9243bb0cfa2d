// The storage with etcd_request_duration_seconds recorded around each operation that reaches it
// (the reference records its etcd calls so), whatever the backend: SQLite, memory, or another.
// performance from its module, not the global: the global is an accessor, called at each use.
import { performance } from 'node:perf_hooks';
import type { StorageMetrics, StorageOperation } from '../metrics/storage.js';
import type { Encode, ListOptions, ListResult, Storage, Stored, WatchListener, Watcher } from './types.js';

/**
 * The type label of an operation on `key` (for a list, on the collection under it), as the
 * reference names its Go types: "*core.ConfigMap", "*core.ConfigMapList".
 */
export type TypeOfKey = (key: string, list: boolean) => string;

export class InstrumentedStorage implements Storage {
  readonly latestRevision?: (prefix?: string) => Promise<number>;
  readonly unreachable?: () => Promise<string | undefined>;
  readonly onHistoryLost?: (listener: (revision: number) => void) => void;
  readonly keepsValues?: boolean;

  constructor(
    private readonly inner: Storage,
    private readonly metrics: StorageMetrics,
    private readonly typeOf: TypeOfKey,
  ) {
    const latest = inner.latestRevision;
    if (latest) this.latestRevision = (prefix) => latest.call(inner, prefix);
    const unreachable = inner.unreachable;
    if (unreachable) this.unreachable = () => unreachable.call(inner);
    const onHistoryLost = inner.onHistoryLost;
    if (onHistoryLost) this.onHistoryLost = (listener) => onHistoryLost.call(inner, listener);
    if (inner.keepsValues) this.keepsValues = true;
  }

  /**
   * The operation's promise, its seconds observed once it settles. Returned as it is, not awaited in
   * an async wrapper: every read of one object from the store passes here, and the wrapper's promise
   * and its await cost each more than the observation.
   */
  private timed<T>(operation: StorageOperation, type: string, running: Promise<T>, started: number): Promise<T> {
    const series = this.metrics.series(operation, type);
    const observe = (): void => series.observe((performance.now() - started) / 1000);
    running.then(observe, observe);
    return running;
  }

  get(key: string): Promise<Stored | undefined> {
    const started = performance.now();
    return this.timed('get', this.typeOf(key, false), this.inner.get(key), started);
  }

  list(prefix: string, options?: ListOptions): Promise<ListResult> {
    const started = performance.now();
    return this.timed('list', this.typeOf(prefix, true), this.inner.list(prefix, options), started);
  }

  /** The reference labels its counts by the key prefix counted. */
  count(prefix: string): Promise<number> {
    const started = performance.now();
    return this.timed('listWithCount', prefix, this.inner.count(prefix), started);
  }

  create(key: string, encode: Encode): Promise<Stored> {
    const started = performance.now();
    return this.timed('create', this.typeOf(key, false), this.inner.create(key, encode), started);
  }

  update(key: string, expectModRevision: number, encode: Encode): Promise<Stored> {
    const started = performance.now();
    return this.timed('update', this.typeOf(key, false), this.inner.update(key, expectModRevision, encode), started);
  }

  delete(key: string, expectModRevision?: number, tombstone?: (revision: number, last: Buffer) => Buffer): Promise<Stored> {
    const started = performance.now();
    return this.timed('delete', this.typeOf(key, false), this.inner.delete(key, expectModRevision, tombstone), started);
  }

  watch(prefix: string, fromRevision: number, listener: WatchListener): Watcher {
    return this.inner.watch(prefix, fromRevision, listener);
  }

  compact(revision: number): Promise<void> {
    return this.inner.compact(revision);
  }

  currentRevision(prefix?: string): number {
    return this.inner.currentRevision(prefix);
  }

  compactedRevision(prefix?: string): number {
    return this.inner.compactedRevision(prefix);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
