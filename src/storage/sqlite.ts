// Storage in an SQLite database file (better-sqlite3), durable on every write.
//
// better-sqlite3 is synchronous, so writes are queued and committed together ("group commit"): the
// first queued write schedules a flush with setImmediate, and the flush applies every queued write,
// in order, inside one transaction. Each write checks its own precondition, so one failing write
// does not fail the others. The commit itself only appends to the write-ahead log (WAL,
// synchronous = NORMAL); the log is then flushed to disk with fdatasync on libuv's thread pool, so
// the event loop never waits for the disk, and only then do watchers get the events (in revision
// order) and the writers their answers: what is acknowledged survives power loss, as with
// synchronous = FULL. Writes that come while one flush is under way are committed together when it
// ends (one transaction per flush, however many turns of the event loop they came in), and share
// the next flush. Every thousand pages or so the log is checkpointed between two commits, not by
// SQLite inside one: SQLite copies the log's pages into the database file without syncing it (a
// fraction of a millisecond), and the file is synced on libuv's thread pool before the next commit
// may start the log over. (A checkpoint that synced on the event loop held it for 5–30 ms; one on a
// worker thread's connection cost the process a second V8 isolate, ~15 MiB.)

import { closeSync, fdatasync, fsync, openSync, readSync } from 'node:fs';
import { endianness } from 'node:os';
import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';
import { compareKeys, effectiveLimit, prefixEnd } from './keys.js';
import { applyWrite, checkPrecondition, closedError, compactedError, type Tombstone, type WriteOp, type WriteOutcome } from './ops.js';
import type {
  Encode,
  EventType,
  ListOptions,
  ListResult,
  Storage,
  Stored,
  StorageEvent,
  WatchListener,
  Watcher,
} from './types.js';
import { WatchHub } from './watch-hub.js';
import { createPrivateFile } from './private-file.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS kv (
  key TEXT PRIMARY KEY,
  value BLOB NOT NULL,
  create_rev INTEGER NOT NULL,
  mod_rev INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
  rev INTEGER PRIMARY KEY,
  key TEXT NOT NULL,
  type INTEGER NOT NULL,
  value BLOB NOT NULL,
  prev_value BLOB,
  create_rev INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL
);
`;

// events.type column values.
const EVENT_TYPES: readonly EventType[] = ['create', 'update', 'delete'];

/**
 * Rows of kv and of events come as arrays, in the SELECT's column order (better-sqlite3's raw
 * mode): an object per row, its properties set one by one, cost ~12 ms of the ~100 ms read of
 * 10,000 changes of 1 KiB here.
 */
type KvTuple = [key: string, value: Buffer, createRev: number, modRev: number];
type EventTuple = [rev: number, key: string, type: number, value: Buffer, prevValue: Buffer | null, createRev: number];

type Params = Record<string, string | number>;

interface Pending {
  op: WriteOp;
  resolve: (stored: Stored) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; result: Stored } | { ok: false; error: unknown };

function toStored([key, value, createRevision, modRevision]: KvTuple): Stored {
  return { key, value, createRevision, modRevision };
}

function toEvent([rev, key, type, value, prevValue, createRevision]: EventTuple): StorageEvent {
  const event: StorageEvent = {
    type: EVENT_TYPES[type] ?? 'update',
    key,
    value,
    createRevision,
    modRevision: rev,
  };
  if (prevValue !== null) event.prevValue = prevValue;
  return event;
}

/** The page cache (KiB when negative): SQLite's own default, 2 MiB (see open()). */
const PAGE_CACHE = -2000;
/**
 * The page cache while a whole table or prefix is read (scanning()): such a read visits each page
 * once, so a larger cache only keeps what it read, for good (the allocator rarely gives it back).
 */
const SCAN_CACHE = -64;

/** How long historySince keeps what it read after its last use. */
const HISTORY_KEPT_MS = 200;

/** Pages (frames) in the log at which it is checkpointed, as SQLite's own automatic checkpoint does. */
const CHECKPOINT_FRAMES = 1000;
/**
 * Where the shared-memory file (-shm) holds the number of frames in the log: `mxFrame` of the
 * WAL-index header (https://www.sqlite.org/walformat.html), in the machine's byte order.
 */
const MX_FRAME_OFFSET = 16;

let sqlite: typeof Database | undefined;

/** better-sqlite3 (and its native addon), loaded when a database is first opened: memory storage never needs it. */
function sqliteLibrary(): typeof Database {
  return (sqlite ??= createRequire(import.meta.url)('better-sqlite3') as typeof Database);
}

/** A key's first two segments ("/registry/pods/" of "/registry/pods/ns/name"), or undefined when it has fewer. */
function headOf(key: string): string | undefined {
  const first = key.indexOf('/', 1);
  const second = first < 0 ? -1 : key.indexOf('/', first + 1);
  return second < 0 ? undefined : key.slice(0, second + 1);
}

/**
 * The changes after a revision, as historySince read them, grouped by their keys' first two
 * segments when a watch first asks: each of the ~60 watch caches of a start is handed its group,
 * not every change to test (10,000 changes: 600,000 prefix tests, ~13 ms).
 */
class ReadHistory {
  private groups: Map<string | undefined, StorageEvent[]> | undefined;

  constructor(
    readonly from: number,
    /** The store's revision when read: the changes are all there is while it stays the same. */
    readonly at: number,
    readonly events: StorageEvent[],
    readonly release: NodeJS.Timeout,
  ) {}

  /** The changes that may be under `prefix` (all of them for a prefix shorter than two segments). */
  groupOf(prefix: string): readonly StorageEvent[] {
    const head = headOf(prefix);
    if (head === undefined) return this.events;
    if (!this.groups) {
      const groups = new Map<string | undefined, StorageEvent[]>();
      // Changes to one resource tend to come together: a key that starts with the last head has it.
      let lastHead: string | undefined;
      let group: StorageEvent[] | undefined;
      for (const e of this.events) {
        if (lastHead === undefined || !e.key.startsWith(lastHead)) {
          lastHead = headOf(e.key);
          group = groups.get(lastHead);
          if (!group) groups.set(lastHead, (group = []));
        }
        group!.push(e);
      }
      this.groups = groups;
    }
    return this.groups.get(head) ?? [];
  }
}

export class SqliteStorage implements Storage {
  private readonly hub = new WatchHub();
  private readonly statements = new Map<string, Database.Statement<[Params], unknown>>();
  private queue: Pending[] = [];
  private flushTimer: NodeJS.Immediate | undefined;
  /** The newest revision committed (the next write takes the one after). */
  private revision: number;
  /** The newest revision whose events watchers have been given: committed and on disk (currentRevision). */
  private published: number;
  private compacted: number;
  private closed = false;
  private commits = 0;
  /** Committed batches waiting for the WAL to reach the disk, and whether a flush of it is under way. */
  private committed: Array<() => void> = [];
  private syncing: Promise<void> | undefined;
  private shmFd: number | undefined;
  private readonly mxFrame = Buffer.alloc(4);
  private walFd: number | undefined;
  /** The changes after a revision, as historySince last read them. */
  private history: ReadHistory | undefined;
  private dbFd: number | undefined;
  private readonly walPath: string | undefined;
  /** Whether this store checkpoints its log itself (a database file, until a checkpoint failed). */
  private checkpoints: boolean;
  private checkpointsDone = 0;
  /** A failed flush of the WAL: nothing committed since can be acknowledged. */
  private broken: Error | undefined;

  private readonly selectKv;
  private readonly upsertKv;
  private readonly deleteKv;
  private readonly insertEvent;
  private readonly setMeta;
  private readonly runBatch: (batch: readonly Pending[], events: StorageEvent[]) => Outcome[];
  private readonly runCompact: (revision: number) => void;

  /** Opens (creating if needed, mode 0600) the database file at `path`. */
  static open(path: string): SqliteStorage {
    // Private from the start: SQLite makes the -wal and -shm files with this file's mode.
    if (path !== ':memory:' && path !== '') createPrivateFile(path);
    const Sqlite = sqliteLibrary();
    const db = new Sqlite(path);
    try {
      db.pragma('journal_mode = WAL');
      // NORMAL: a COMMIT does not wait for the disk; the WAL is flushed before a write is acknowledged (see above).
      db.pragma('synchronous = NORMAL');
      // SQLite's own default page cache (2 MiB), not better-sqlite3's 16 MiB: reads are served by
      // the watch caches, so the pages mostly serve writes, whose B-tree interiors fit in it. The
      // larger one only held a start's read of every row: +16 MB of RSS for good, and ~55 ms more
      // to read 10,000 objects (its buffers allocated fresh as they fill).
      db.pragma(`cache_size = ${PAGE_CACHE}`);
      db.exec(SCHEMA);
      if (path === ':memory:' || path === '') return new SqliteStorage(db);
      // Checkpoints between commits (checkpoint()); should one fail, SQLite's own again.
      db.pragma('wal_autocheckpoint = 0');
      return new SqliteStorage(db, path);
    } catch (err) {
      db.close();
      throw err;
    }
  }

  private constructor(
    private readonly db: Database.Database,
    /** The database file (none in memory). */
    private readonly path?: string,
  ) {
    this.walPath = path === undefined ? undefined : `${path}-wal`;
    this.checkpoints = path !== undefined;
    this.selectKv = db.prepare<[string], KvTuple>('SELECT key, value, create_rev, mod_rev FROM kv WHERE key = ?').raw(true);
    this.upsertKv = db.prepare<[string, Buffer, number, number]>(
      'INSERT INTO kv (key, value, create_rev, mod_rev) VALUES (?, ?, ?, ?) ' +
        'ON CONFLICT (key) DO UPDATE SET value = excluded.value, mod_rev = excluded.mod_rev',
    );
    this.deleteKv = db.prepare<[string]>('DELETE FROM kv WHERE key = ?');
    this.insertEvent = db.prepare<[number, string, number, Buffer, Buffer | null, number]>(
      'INSERT INTO events (rev, key, type, value, prev_value, create_rev) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.setMeta = db.prepare<[string, number]>(
      'INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
    );
    const getMeta = db.prepare<[string], number>('SELECT value FROM meta WHERE name = ?').pluck();
    this.revision = getMeta.get('revision') ?? 0;
    this.published = this.revision;
    this.compacted = getMeta.get('compacted') ?? 0;

    const batchTx = db.transaction((batch: readonly Pending[], events: StorageEvent[]) => this.applyBatch(batch, events));
    // IMMEDIATE takes the write lock up front rather than upgrading mid-transaction.
    this.runBatch = (batch, events) => batchTx.immediate(batch, events);
    const deleteEvents = db.prepare<[number]>('DELETE FROM events WHERE rev <= ?');
    const compactTx = db.transaction((revision: number) => {
      deleteEvents.run(revision);
      this.setMeta.run('compacted', revision);
    });
    this.runCompact = (revision) => compactTx.immediate(revision);
  }

  /** Number of write transactions committed by this instance (group commit makes it < writes). */
  get commitCount(): number {
    return this.commits;
  }

  /** Checkpoints of the log done between commits (for tests and diagnostics). */
  get checkpointCount(): number {
    return this.checkpointsDone;
  }

  /** The page cache's size as set now (KiB when negative, as `PRAGMA cache_size` gives it). */
  get pageCacheSize(): number {
    return this.db.pragma('cache_size', { simple: true }) as number;
  }

  async get(key: string): Promise<Stored | undefined> {
    this.assertOpen();
    // Reads of served objects go through the watch cache; this path serves writes and start-up.
    const row = this.selectKv.get(key);
    return row ? toStored(row) : undefined;
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    this.assertOpen();
    const limit = effectiveLimit(options.limit);
    // Paging from a key before the prefix is the same as not paging.
    const after = options.afterKey !== undefined && compareKeys(options.afterKey, prefix) >= 0 ? options.afterKey : undefined;
    const { sql, params } = this.range(
      'SELECT key, value, create_rev, mod_rev FROM kv WHERE',
      prefix,
      after,
      `${options.maxModRevision === undefined ? '' : 'AND mod_rev <= @maxMod '}ORDER BY key LIMIT @limit`,
    );
    if (options.maxModRevision !== undefined) params['maxMod'] = options.maxModRevision;
    // LIMIT -1 is "no limit" in SQLite; one extra row tells whether more follow.
    params['limit'] = limit === undefined ? -1 : limit + 1;
    const read = () => this.stmt(sql).raw(true).all(params) as KvTuple[];
    const rows = limit === undefined ? this.scanning(read) : read();
    const more = limit !== undefined && rows.length > limit;
    if (more) rows.length = limit;
    return { items: rows.map(toStored), revision: this.revision, more };
  }

  async count(prefix: string): Promise<number> {
    this.assertOpen();
    const { sql, params } = this.range('SELECT COUNT(*) FROM kv WHERE', prefix, undefined, '');
    return this.stmt(sql).pluck().get(params) as number;
  }

  create(key: string, encode: Encode): Promise<Stored> {
    return this.enqueue({ kind: 'create', key, encode });
  }

  update(key: string, expectModRevision: number, encode: Encode): Promise<Stored> {
    return this.enqueue({ kind: 'update', key, expectModRevision, encode });
  }

  delete(key: string, expectModRevision?: number, tombstone?: Tombstone): Promise<Stored> {
    return this.enqueue({ kind: 'delete', key, expectModRevision, tombstone });
  }

  watch(prefix: string, fromRevision: number, listener: WatchListener): Watcher {
    this.assertOpen();
    if (fromRevision < this.compacted) throw compactedError(fromRevision, this.compacted);
    // Read synchronously: no commit can land between this read and the registration below. The
    // hub takes the changes under the prefix (a startsWith test) from those of its group.
    return this.hub.add(prefix, fromRevision, this.historySince(fromRevision).groupOf(prefix), listener);
  }

  /**
   * Every retained change after `revision`, read in one pass over the table and kept while no
   * commit comes (and for a moment after the last use): at a start every watch cache watches from
   * the compacted revision, one after another, and each reading the table for its own keys scanned
   * every change again (the table has no index by key: one would cost every write).
   */
  private historySince(revision: number): ReadHistory {
    const kept = this.history;
    if (kept?.from === revision && kept.at === this.revision) {
      kept.release.refresh();
      return kept;
    }
    const rows = this.scanning(() => this.stmt('SELECT rev, key, type, value, prev_value, create_rev FROM events WHERE rev > @rev ORDER BY rev').raw(true).all({ rev: revision }) as EventTuple[]);
    if (kept) clearTimeout(kept.release);
    const release = setTimeout(() => (this.history = undefined), HISTORY_KEPT_MS).unref();
    this.history = new ReadHistory(revision, this.revision, rows.map(toEvent), release);
    return this.history;
  }

  async compact(revision: number): Promise<void> {
    this.assertOpen();
    const target = Math.min(revision, this.published);
    if (target <= this.compacted) return;
    this.runCompact(target);
    this.compacted = target;
  }

  currentRevision(): number {
    return this.published;
  }

  compactedRevision(): number {
    return this.compacted;
  }

  /** Commits queued writes, then closes the database. Later calls reject with Closed. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    while (this.syncing) await this.syncing;
    this.db.close();
    if (this.walFd !== undefined) closeSync(this.walFd);
    if (this.dbFd !== undefined) closeSync(this.dbFd);
    if (this.shmFd !== undefined) closeSync(this.shmFd);
  }

  private assertOpen(): void {
    if (this.closed) throw closedError();
  }

  private enqueue(op: WriteOp): Promise<Stored> {
    if (this.closed) return Promise.reject(closedError());
    if (this.broken) return Promise.reject(this.broken);
    return new Promise<Stored>((resolve, reject) => {
      this.queue.push({ op, resolve, reject });
      // While the WAL is being flushed, writes wait for that flush to end and are committed then,
      // all in one transaction (see syncWal): they could not be acknowledged sooner anyway.
      if (!this.syncing) this.flushTimer ??= setImmediate(() => this.flush());
    });
  }

  /** Commits every queued write in one transaction, then settles their promises and notifies. */
  private flush(): void {
    if (this.flushTimer) clearImmediate(this.flushTimer);
    this.flushTimer = undefined;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;

    const before = this.revision;
    const events: StorageEvent[] = [];
    let outcomes: Outcome[];
    try {
      outcomes = this.runBatch(batch, events);
      this.commits++;
    } catch (err) {
      // The transaction was rolled back: none of these revisions exist.
      this.revision = before;
      for (const p of batch) p.reject(err);
      return;
    }
    const committed = this.revision;
    this.whenDurable(() => {
      // Watchers first: their deliveries are queued before the writers' continuations, so a caller
      // that awaited a write finds every watch cache already holding it.
      this.published = committed;
      this.hub.publish(events);
      batch.forEach((p, i) => {
        const o = outcomes[i] as Outcome;
        if (o.ok) p.resolve(o.result);
        else p.reject(o.error);
      });
    }, batch);
  }

  /** Runs `settle` once what is committed so far is on disk (at once for a database in memory). */
  private whenDurable(settle: () => void, batch: readonly Pending[]): void {
    if (this.walPath === undefined) return settle();
    this.committed.push(() => {
      if (this.broken) for (const p of batch) p.reject(this.broken);
      else settle();
    });
    if (!this.syncing) this.syncing = this.syncWal();
  }

  /**
   * Flushes the WAL to disk until no committed batch waits for it, settling each batch in order.
   * Writes queued during a flush are committed when it ends, in one transaction, and the next
   * flush is under way before the batches the last one covered are settled: one commit per flush
   * of the WAL, however many turns of the event loop the writes came in.
   */
  private async syncWal(): Promise<void> {
    let covered = this.committed;
    this.committed = [];
    let flushing = this.flushWal();
    while (covered.length > 0) {
      await flushing;
      if (this.checkpoints && this.framesInLog() >= CHECKPOINT_FRAMES) {
        // What is on disk is acknowledged first; what came meanwhile waits for the checkpoint, so
        // that no commit comes during it: it copies the whole log, and the next commit starts the
        // log over (one beside commits would copy only what was there when it began).
        for (const settle of covered) settle();
        covered = [];
        await this.checkpoint();
      }
      if (this.queue.length > 0) this.flush();
      const next = this.committed;
      this.committed = [];
      if (next.length > 0) flushing = this.flushWal();
      for (const settle of covered) settle();
      covered = next;
    }
    this.syncing = undefined;
    // Writes queued while the last batches were settled (by their watchers, say) commit as usual.
    if (this.queue.length > 0) this.flushTimer ??= setImmediate(() => this.flush());
  }

  /** How many frames the log holds (better-sqlite3 does not say; the -shm file does). */
  private framesInLog(): number {
    try {
      this.shmFd ??= openSync(`${this.path!}-shm`, 'r');
      readSync(this.shmFd, this.mxFrame, 0, 4, MX_FRAME_OFFSET);
      return endianness() === 'LE' ? this.mxFrame.readUInt32LE(0) : this.mxFrame.readUInt32BE(0);
    } catch {
      return 0;
    }
  }

  /**
   * Checkpoints the log: SQLite copies its pages into the database file with synchronous OFF (no
   * sync, so a fraction of a millisecond here), then the file is synced on libuv's thread pool.
   * No commit comes meanwhile (syncWal waits for this), so the log is not started over before the
   * pages it holds are on disk in the file: the order a synchronous checkpoint keeps. Should the
   * checkpoint fail, SQLite checkpoints itself from then on; should the sync, the store breaks.
   */
  private async checkpoint(): Promise<void> {
    try {
      this.db.pragma('synchronous = OFF');
      try {
        this.db.pragma('wal_checkpoint(PASSIVE)');
      } finally {
        this.db.pragma('synchronous = NORMAL');
      }
    } catch {
      this.checkpoints = false;
      if (this.db.open) this.db.pragma(`wal_autocheckpoint = ${CHECKPOINT_FRAMES}`);
      return;
    }
    try {
      this.dbFd ??= openSync(this.path!, 'r');
      const fd = this.dbFd;
      await new Promise<void>((resolve, reject) => fsync(fd, (err) => (err ? reject(err) : resolve())));
      this.checkpointsDone++;
    } catch (err) {
      this.broken ??= new Error(`storage: syncing the database file after a checkpoint failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** One fdatasync of the WAL (what is committed so far); a failure breaks the store, never rejects. */
  private async flushWal(): Promise<void> {
    try {
      this.walFd ??= openSync(this.walPath!, 'r');
      const fd = this.walFd;
      await new Promise<void>((resolve, reject) => fdatasync(fd, (err) => (err ? reject(err) : resolve())));
    } catch (err) {
      // The disk refused: what is committed may not survive, so nothing more is acknowledged.
      this.broken ??= new Error(`storage: flushing the write-ahead log failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** Body of the batch transaction. Op failures are returned; SQL failures throw (abort all). */
  private applyBatch(batch: readonly Pending[], events: StorageEvent[]): Outcome[] {
    const outcomes = batch.map(({ op }): Outcome => {
      const row = this.selectKv.get(op.key);
      const current = row ? toStored(row) : undefined;
      const failed = checkPrecondition(op, current);
      if (failed) return { ok: false, error: failed };
      let outcome: WriteOutcome;
      try {
        outcome = applyWrite(op, current, this.revision + 1);
      } catch (error) {
        return { ok: false, error }; // the encoder threw: skip this op, keep the revision unused
      }
      const { result, event, next } = outcome;
      this.revision = event.modRevision;
      if (next) this.upsertKv.run(next.key, next.value, next.createRevision, next.modRevision);
      else this.deleteKv.run(op.key);
      this.insertEvent.run(
        event.modRevision,
        event.key,
        EVENT_TYPES.indexOf(event.type),
        event.value,
        event.prevValue ?? null,
        event.createRevision,
      );
      events.push(event);
      return { ok: true, result };
    });
    if (events.length > 0) this.setMeta.run('revision', this.revision);
    return outcomes;
  }

  /**
   * A key-range query over `prefix`: `key >= prefix` (or `key > after` when paging) and, unless the
   * prefix has no upper bound, `key < prefixEnd`, so the primary-key index serves it.
   */
  private range(head: string, prefix: string, after: string | undefined, tail: string): { sql: string; params: Params } {
    const params: Params = {};
    let where: string;
    if (after !== undefined) {
      where = 'key > @lo';
      params['lo'] = after;
    } else {
      where = 'key >= @lo';
      params['lo'] = prefix;
    }
    const end = prefixEnd(prefix);
    if (end !== undefined) {
      where += ' AND key < @hi';
      params['hi'] = end;
    }
    return { sql: `${head} ${where} ${tail}`, params };
  }

  /**
   * Runs a read of a whole prefix or table with a small page cache, SQLite's usual one restored
   * after it: the pages it fills are then those writes use, as they use them. A start reads every
   * row so, and left 2 MiB of pages it will not read again in the server's RSS.
   */
  private scanning<T>(read: () => T): T {
    this.db.pragma(`cache_size = ${SCAN_CACHE}`);
    try {
      return read();
    } finally {
      this.db.pragma(`cache_size = ${PAGE_CACHE}`);
    }
  }

  /** Prepared statements for the few range-query shapes, built once each. */
  private stmt(sql: string): Database.Statement<[Params], unknown> {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.db.prepare<[Params], unknown>(sql);
      this.statements.set(sql, s);
    }
    return s;
  }
}
