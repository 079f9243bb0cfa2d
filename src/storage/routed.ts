// Several stores behind one: each key goes to the store of the first route whose prefix it starts
// with, the rest to the primary (the reference's --etcd-servers-overrides: Events, say, in an etcd
// of their own). Each store keeps its own revisions, as the reference's per-resource storage does:
// what asks about revisions names the prefix it reads (a resource's), and gets that store's.
// A read over a prefix that spans stores (the whole registry) merges them; its revision is the
// primary's, and a watch of it follows the other stores live.
import { compareKeys } from './keys.js';
import type { Encode, ListOptions, ListResult, Storage, Stored, WatchListener, Watcher } from './types.js';

export interface StorageRoute {
  /** Keys that start with this (a resource's /registry/<…>/) go to `storage`. */
  prefix: string;
  storage: Storage;
}

export class RoutedStorage implements Storage {
  readonly latestRevision?: (prefix?: string) => Promise<number>;
  readonly unreachable?: () => Promise<string | undefined>;
  readonly onHistoryLost?: (listener: (revision: number) => void) => void;
  /** When any store keeps its values: a cache sharing them costs nothing where copies would double them. */
  readonly keepsValues?: boolean;
  /** Each route's revision at the previous compact(): what it is compacted to at the next one. */
  private readonly compactTo = new Map<Storage, number>();

  constructor(private readonly primary: Storage, private readonly routes: readonly StorageRoute[]) {
    if (primary.latestRevision) {
      this.latestRevision = (prefix) => {
        const store = this.storeOf(prefix);
        return store.latestRevision ? store.latestRevision() : Promise.resolve(store.currentRevision());
      };
    }
    if ([primary, ...routes.map((r) => r.storage)].some((s) => s.keepsValues)) this.keepsValues = true;
    if ([primary, ...routes.map((r) => r.storage)].some((s) => s.onHistoryLost)) {
      // Any store's lost history makes the registry read its caches again.
      this.onHistoryLost = (listener) => {
        for (const store of this.stores()) store.onHistoryLost?.(listener);
      };
    }
    if ([primary, ...routes.map((r) => r.storage)].some((s) => s.unreachable)) {
      this.unreachable = async () => {
        for (const store of this.stores()) {
          const why = await store.unreachable?.();
          if (why !== undefined) return why;
        }
        return undefined;
      };
    }
  }

  private stores(): Storage[] {
    return [this.primary, ...new Set(this.routes.map((r) => r.storage))];
  }

  /** The store of a key, or of every key under a prefix that lies within one route. */
  private storeOf(key: string | undefined): Storage {
    if (key === undefined) return this.primary;
    return this.routes.find((r) => key.startsWith(r.prefix))?.storage ?? this.primary;
  }

  /** Routes under `prefix` (it spans them), none when the prefix lies within one store. */
  private spanned(prefix: string): StorageRoute[] {
    if (this.routes.some((r) => prefix.startsWith(r.prefix))) return [];
    return this.routes.filter((r) => r.prefix.startsWith(prefix));
  }

  get(key: string): Promise<Stored | undefined> {
    return this.storeOf(key).get(key);
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    const spanned = this.spanned(prefix);
    if (spanned.length === 0) return this.storeOf(prefix).list(prefix, options);
    const parts = await Promise.all([this.primary.list(prefix, options), ...spanned.map((r) => r.storage.list(r.prefix, options))]);
    const mine = (key: string): boolean => !spanned.some((r) => key.startsWith(r.prefix));
    const items = [parts[0]!.items.filter((i) => mine(i.key)), ...parts.slice(1).map((p) => p.items)].flat().sort((a, b) => compareKeys(a.key, b.key));
    const limit = options.limit !== undefined && options.limit > 0 ? options.limit : items.length;
    return { items: items.slice(0, limit), revision: parts[0]!.revision, more: items.length > limit || parts.some((p) => p.more) };
  }

  async count(prefix: string): Promise<number> {
    const spanned = this.spanned(prefix);
    if (spanned.length === 0) return this.storeOf(prefix).count(prefix);
    const counts = await Promise.all([this.primary.count(prefix), ...spanned.map((r) => r.storage.count(r.prefix))]);
    return counts.reduce((a, b) => a + b, 0);
  }

  create(key: string, encode: Encode): Promise<Stored> {
    return this.storeOf(key).create(key, encode);
  }

  update(key: string, expectModRevision: number, encode: Encode): Promise<Stored> {
    return this.storeOf(key).update(key, expectModRevision, encode);
  }

  delete(key: string, expectModRevision?: number, tombstone?: (revision: number, last: Buffer) => Buffer): Promise<Stored> {
    return this.storeOf(key).delete(key, expectModRevision, tombstone);
  }

  watch(prefix: string, fromRevision: number, listener: WatchListener): Watcher {
    const spanned = this.spanned(prefix);
    if (spanned.length === 0) return this.storeOf(prefix).watch(prefix, fromRevision, listener);
    const watchers = [
      this.primary.watch(prefix, fromRevision, (e) => {
        if (!spanned.some((r) => e.key.startsWith(r.prefix))) listener(e);
      }),
      ...spanned.map((r) => r.storage.watch(r.prefix, r.storage.currentRevision(), listener)),
    ];
    return { stop: () => watchers.forEach((w) => w.stop()) };
  }

  /**
   * The primary to `revision` (the server's compactor picks it from the primary's revisions); the
   * others to what their revision was at the previous call, one compaction period ago.
   */
  async compact(revision: number): Promise<void> {
    await this.primary.compact(revision);
    for (const store of this.stores().slice(1)) {
      const to = this.compactTo.get(store);
      this.compactTo.set(store, store.currentRevision());
      if (to !== undefined && to > store.compactedRevision()) await store.compact(to);
    }
  }

  currentRevision(prefix?: string): number {
    return this.storeOf(prefix).currentRevision();
  }

  compactedRevision(prefix?: string): number {
    return this.storeOf(prefix).compactedRevision();
  }

  async close(): Promise<void> {
    await Promise.all(this.stores().map((s) => s.close()));
  }
}
