// The Storage interface: a key-value store with one global revision, as etcd's.
// Values are opaque bytes; the layer above decides what they hold.

/** One key's current value. Revisions are plain numbers (2^53 writes is never reached). */
export interface Stored {
  key: string;
  value: Buffer;
  /** Revision of the write that created this key (unchanged by updates). */
  createRevision: number;
  /** Revision of the latest write to this key. */
  modRevision: number;
}

/** Builds a value once its revision is known, so the bytes can carry their own resourceVersion. */
export type Encode = (revision: number) => Buffer;

export interface ListOptions {
  /** Return only keys strictly greater than this one (for paging). */
  afterKey?: string;
  /** At most this many items; `more` tells whether others follow. Absent or 0 means no limit. */
  limit?: number;
  /**
   * Read the store's newest state rather than the state its watchers have been given (they differ
   * only for a store other servers write too: see `latestRevision`).
   */
  latest?: boolean;
  /**
   * Only keys last written at or before this revision. A watch cache starts with it at the
   * compacted revision: the keys written since come with the retained history it replays, so
   * their values are not read twice. For a whole prefix only (no `limit`, not `latest`): etcd
   * filters what its range returned, after the limit, so a page could come back short or empty.
   */
  maxModRevision?: number;
}

export interface ListResult {
  items: Stored[];
  /** The store's revision the list was read at. */
  revision: number;
  more: boolean;
}

export type EventType = 'create' | 'update' | 'delete';

export interface StorageEvent {
  type: EventType;
  key: string;
  /** The new value; for a delete, the tombstone the delete's encoder built (or the last value). */
  value: Buffer;
  /** The value before this write (absent for a create). */
  prevValue?: Buffer;
  createRevision: number;
  /** The revision of this write. */
  modRevision: number;
}

export type WatchListener = (event: StorageEvent) => void;

export interface Watcher {
  stop(): void;
}

export type StorageErrorCode = 'KeyExists' | 'NotFound' | 'Conflict' | 'Compacted' | 'Closed';

export class StorageError extends Error {
  readonly code: StorageErrorCode;
  /** For Conflict: the key's current modRevision. For Compacted: the compacted revision. */
  readonly revision: number | undefined;
  constructor(code: StorageErrorCode, message: string, revision?: number) {
    super(message);
    this.code = code;
    this.revision = revision;
  }
}

/**
 * Ordering promise of every backend: a write's events are queued to watchers before the write's
 * promise settles, so code that awaited a write sees it in any watch-fed cache.
 */
export interface Storage {
  get(key: string): Promise<Stored | undefined>;
  /** Keys that start with `prefix`, in key order. */
  list(prefix: string, options?: ListOptions): Promise<ListResult>;
  /** Number of keys under `prefix`. */
  count(prefix: string): Promise<number>;
  /** Fails with KeyExists when the key is present. Resolves once durable. */
  create(key: string, encode: Encode): Promise<Stored>;
  /** Compare-and-swap on modRevision: NotFound when absent, Conflict when the key's modRevision differs. */
  update(key: string, expectModRevision: number, encode: Encode): Promise<Stored>;
  /**
   * Removes the key. With expectModRevision, Conflict when it differs. `tombstone` builds the value
   * that delete events (and the result) carry, given the delete's revision and the last value.
   */
  delete(key: string, expectModRevision?: number, tombstone?: (revision: number, last: Buffer) => Buffer): Promise<Stored>;
  /**
   * Every change under `prefix` after `fromRevision`, first those in retained history, then live ones,
   * in revision order. Throws Compacted (synchronously) when history before fromRevision+1 is gone.
   */
  watch(prefix: string, fromRevision: number, listener: WatchListener): Watcher;
  /** Forget history at or below `revision`. */
  compact(revision: number): Promise<void>;
  /**
   * The revision of the newest write whose events watchers have been given (what a read at "now"
   * reflects). `prefix`: of the store that keeps the keys under it, where several stores with
   * revisions of their own are routed behind one (routed.ts); other stores have one revision.
   */
  currentRevision(prefix?: string): number;
  /**
   * Only for a store other servers write too (etcd): its revision now, read from it, which
   * currentRevision() reaches once the other servers' writes up to it have arrived. A consistent
   * read waits for that before it reads from the caches.
   */
  latestRevision?(prefix?: string): Promise<number>;
  /**
   * Only for a store whose watch can miss events (etcd, when it compacted past a feed cut off from
   * it): `listener` is told the revision the store moved on to; what was built from its watches
   * must be read again (the registry re-lists its watch caches).
   */
  onHistoryLost?(listener: (revision: number) => void): void;
  /** For a store reached over the network (etcd): why it does not answer now, or undefined when it does. */
  unreachable?(): Promise<string | undefined>;
  compactedRevision(prefix?: string): number;
  close(): Promise<void>;
  /**
   * True when the store holds every current value in memory itself (memory storage): a watch cache
   * then shares those Buffers rather than keeping copies of its own.
   */
  readonly keepsValues?: boolean;
}
