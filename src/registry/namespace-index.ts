// The objects of one namespaced resource, decoded and grouped by namespace, kept current from the
// resource's watch cache: admission plugins and controllers that look up the few objects of a
// namespace on every write (ResourceQuotas, LimitRanges) read them here, from memory, at no cost
// when a namespace has none.
import type { ResourceInfo } from './definitions.js';
import type { CacheEvent } from '../storage/cacher.js';
import type { Registry } from './store.js';
import { type JsonObject, decodeJson } from '../json.js';

/** A change seen by the index: `object` absent when deleted, `previous` absent when added. */
export type IndexListener = (namespace: string, name: string, object: JsonObject | undefined, previous: JsonObject | undefined) => void;

const NONE: readonly JsonObject[] = [];

export class NamespaceIndex {
  private readonly byNamespace = new Map<string, Map<string, JsonObject>>();
  /** Per namespace, the objects sorted by name (built on first read after a change). */
  private readonly sorted = new Map<string, readonly JsonObject[]>();
  private watcher: { stop(): void } | undefined;

  private constructor(private readonly prefix: string, private readonly listener?: IndexListener) {}

  /** Loads the resource's objects (in its storage version) and follows their changes. */
  static async start(registry: Registry, info: ResourceInfo, listener?: IndexListener): Promise<NamespaceIndex> {
    const cacher = await registry.cacher(registry.storageInfo(info));
    const index = new NamespaceIndex(cacher.prefix, listener);
    // List and watch with nothing in between: the watch carries on from the list's revision.
    const listed = cacher.list({ prefix: cacher.prefix });
    for (const value of listed.items) {
      const obj = decodeJson(value);
      const meta = obj['metadata'] as JsonObject | undefined;
      index.put(String(meta?.['namespace'] ?? ''), String(meta?.['name'] ?? ''), obj);
    }
    index.watcher = cacher.watch(listed.revision, (e) => index.onEvent(e));
    return index;
  }

  stop(): void {
    this.watcher?.stop();
  }

  has(namespace: string): boolean {
    return this.byNamespace.has(namespace);
  }

  /** The objects of a namespace, by name. Shared: callers must not change them. */
  in(namespace: string): readonly JsonObject[] {
    const cached = this.sorted.get(namespace);
    if (cached) return cached;
    const objects = this.byNamespace.get(namespace);
    if (!objects) return NONE;
    const list = [...objects.keys()].sort().map((name) => objects.get(name)!);
    this.sorted.set(namespace, list);
    return list;
  }

  namespaces(): string[] {
    return [...this.byNamespace.keys()];
  }

  private onEvent(e: CacheEvent): void {
    const rest = e.key.slice(this.prefix.length);
    const slash = rest.indexOf('/');
    if (slash < 0) return;
    const namespace = rest.slice(0, slash);
    const name = rest.slice(slash + 1);
    const previous = this.byNamespace.get(namespace)?.get(name);
    if (e.type === 'delete') {
      const objects = this.byNamespace.get(namespace);
      objects?.delete(name);
      if (objects?.size === 0) this.byNamespace.delete(namespace);
      this.sorted.delete(namespace);
      this.listener?.(namespace, name, undefined, previous);
      return;
    }
    const obj = decodeJson(e.value);
    this.put(namespace, name, obj);
    this.listener?.(namespace, name, obj, previous);
  }

  private put(namespace: string, name: string, obj: JsonObject): void {
    let objects = this.byNamespace.get(namespace);
    if (!objects) {
      objects = new Map();
      this.byNamespace.set(namespace, objects);
    }
    objects.set(name, obj);
    this.sorted.delete(namespace);
  }
}
