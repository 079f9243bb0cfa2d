// A watch of one collection as the reference's watch cache serves it. resourceVersion unset or 0:
// the current objects as synthetic ADDED events, then every change; another version: only the
// changes after it (an ERROR event with 410 Expired when that history is gone). With a filter, an
// object that stops matching is DELETED (its previous content at the new revision) and one that
// starts matching ADDED. A watcher that asked for bookmarks gets one about 2 s before its deadline,
// else every minute. The watch ends at its deadline, or when the resource stops being served.
// Events carry bytes (the stored ones when the endpoint's version is the storage version): what
// a client is sent of them (frames, other encodings) is the endpoint's.
import type { Cacher, CacheEvent, TurnWatcher } from '../storage/cacher.js';
import { StorageError } from '../storage/types.js';
import type { StatusError } from '../errors.js';
import { parsedObject } from '../encoding/derived.js';
import { tooOldResourceVersion } from './readoptions.js';
import type { JsonObject } from '../json.js';
import { withResourceVersion } from './objects.js';

/** Shared by the watchers sent the same change: read it, never change it. */
export type WatchEvent =
  | { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly object: Buffer }
  /** Everything up to `revision` has been sent. */
  | { type: 'BOOKMARK'; revision: number }
  /** The watch cannot be served (410 Expired); the watch ends after it. */
  | { type: 'ERROR'; status: StatusError };

export interface WatchSink {
  event(e: WatchEvent): void;
  /** Called once, when the watch ends on its own (deadline, error, resource no longer served). */
  end(): void;
}

export interface Watch {
  /** Ends the watch from the watcher's side (the sink's end is not called). */
  stop(): void;
}

/** The timers a watch uses (injectable, so tests need not wait a minute for a bookmark). */
export interface WatchTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface WatchRequest {
  /** undefined or 0: the current objects first; else the changes after this revision. */
  resourceVersion?: number;
  /** Which objects the watcher sees; reads the object only (a parse shared by every watcher). */
  filter?: (obj: JsonObject) => boolean;
  bookmarks?: boolean;
  /** The watch ends this long after it starts (ms). */
  timeoutMs: number;
  timers?: WatchTimers;
}

export const BOOKMARK_INTERVAL_MS = 60_000;
/** The reference sends a watcher's last bookmark this long before its deadline. */
const BOOKMARK_BEFORE_DEADLINE_MS = 2000;

const NODE_TIMERS: WatchTimers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** When a watcher's first bookmark is due: about 2 s before its deadline (half its time when short), at most a minute on. */
export function firstBookmarkDelay(timeoutMs: number): number {
  return Math.min(BOOKMARK_INTERVAL_MS, Math.max(timeoutMs - BOOKMARK_BEFORE_DEADLINE_MS, timeoutMs / 2));
}

/**
 * Stored bytes as the endpoint's version serves them: at once, or later when the conversion calls
 * out (a conversion webhook); a failed conversion ends the watch, as the reference's encoder does.
 */
export type ServedBytes = (bytes: Buffer) => Buffer | Promise<Buffer>;

/**
 * Watches the keys under `prefix` of a watch cache. `served` turns stored bytes into the bytes of
 * the endpoint's version (absent: the same version). Events may reach the sink before this returns.
 */
export function watchCache(cacher: Cacher, prefix: string, request: WatchRequest, served: ServedBytes | undefined, sink: WatchSink): Watch {
  return new CacheWatch(cacher, prefix, request, served, sink);
}

class CacheWatch implements Watch {
  private watcher: TurnWatcher | undefined;
  private readonly timers: WatchTimers;
  private deadline: unknown;
  private bookmarkTimer: unknown;
  private lastRevision: number;
  private done = false;
  /** Events waiting for a conversion that calls out: they leave in order, after it. */
  private pending: Promise<void> | undefined;

  constructor(
    private readonly cacher: Cacher,
    private readonly prefix: string,
    private readonly request: WatchRequest,
    private readonly served: ServedBytes | undefined,
    private readonly sink: WatchSink,
  ) {
    this.timers = request.timers ?? NODE_TIMERS;
    const requested = request.resourceVersion;
    let from: number;
    if (requested === undefined || requested === 0) {
      const now = cacher.snapshot(prefix);
      from = now.revision;
      for (const value of now.values) if (this.matches(value)) this.sendObject('ADDED', value);
    } else {
      from = requested;
    }
    this.lastRevision = from;
    this.deadline = this.timers.setTimeout(() => this.finish(), request.timeoutMs);
    try {
      this.watcher = cacher.watchInTurns(from, (e) => this.onChange(e), () => this.finish());
    } catch (err) {
      if (err instanceof StorageError && err.code === 'Compacted') {
        this.send({ type: 'ERROR', status: tooOldResourceVersion(from, err.revision ?? 0) });
        this.finish();
        return;
      }
      this.stop();
      throw err;
    }
    if (request.bookmarks) this.scheduleBookmark(firstBookmarkDelay(request.timeoutMs));
  }

  stop(): void {
    if (this.done) return;
    this.done = true;
    this.watcher?.stop();
    this.timers.clearTimeout(this.deadline);
    this.timers.clearTimeout(this.bookmarkTimer);
  }

  private finish(): void {
    if (this.done) return;
    this.stop();
    this.sink.end();
  }

  private send(e: WatchEvent): void {
    if (!this.done) this.sink.event(e);
  }

  /** An object event in the endpoint's version; after those still converting, in order. */
  private sendObject(type: ObjectEvent['type'], stored: Buffer): void {
    const bytes = this.served ? this.served(stored) : stored;
    if (!this.pending && Buffer.isBuffer(bytes)) {
      this.send(objectEvent(type, bytes));
      return;
    }
    const converting = Promise.resolve(bytes);
    // Handled here already: a failure must not count as unhandled while earlier events still wait.
    converting.catch(() => undefined);
    const next: Promise<void> = (this.pending ?? Promise.resolve())
      .then(() => converting)
      .then((converted) => this.send(objectEvent(type, converted)))
      .catch(() => this.finish())
      .finally(() => {
        if (this.pending === next) this.pending = undefined;
      });
    this.pending = next;
  }

  private matches(value: Buffer | undefined): boolean {
    const filter = this.request.filter;
    return value !== undefined && (!filter || filter(parsedObject(value)));
  }

  private onChange(e: CacheEvent): void {
    if (!e.key.startsWith(this.prefix)) return;
    this.lastRevision = e.rev;
    const now = e.type !== 'delete' && this.matches(e.value);
    const before = e.type === 'create' ? false : this.request.filter ? this.matches(e.prevValue) : true;
    if (e.type === 'delete') {
      if (before) this.sendObject('DELETED', e.value);
    } else if (now) {
      this.sendObject(before ? 'MODIFIED' : 'ADDED', e.value);
    } else if (before) {
      // It left the selection: the reference sends its previous content at the new version.
      this.sendObject('DELETED', withResourceVersion(e.prevValue!, e.rev));
    }
  }

  private scheduleBookmark(delay: number): void {
    this.bookmarkTimer = this.timers.setTimeout(() => {
      // Never ahead of the events it vouches for: the store's revision only once every change is handed over.
      const bookmark = { type: 'BOOKMARK' as const, revision: this.watcher?.caughtUp() ? Math.max(this.lastRevision, this.cacher.revision()) : this.lastRevision };
      if (this.pending) void this.pending.then(() => this.send(bookmark));
      else this.send(bookmark);
      this.scheduleBookmark(BOOKMARK_INTERVAL_MS);
    }, delay);
  }
}

type ObjectEvent = Extract<WatchEvent, { object: Buffer }>;

/**
 * The event made for these bytes. Each watcher may hold its events a while (a slow client's queue),
 * and a change reaches its watchers in turns, interleaved with other changes: they share one event
 * object, not one each.
 */
const objectEvents = new WeakMap<Buffer, ObjectEvent>();

function objectEvent(type: ObjectEvent['type'], object: Buffer): ObjectEvent {
  const made = objectEvents.get(object);
  if (made?.type === type) return made;
  const event = { type, object };
  objectEvents.set(object, event);
  return event;
}

