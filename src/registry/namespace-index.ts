// The objects of one namespaced resource, decoded and grouped by namespace, kept current by the
// resource's informer: admission plugins and controllers that look up the few objects of a
// namespace on every write (ResourceQuotas, LimitRanges) read them here, from memory, at no cost
// when a namespace has none.
import type { ResourceInfo } from './definitions.js';
import type { ObjectVersion, Subscription } from './informers.js';
import type { Registry } from './store.js';
import type { JsonObject } from '../json.js';

/** A change seen by the index: `object` absent when deleted, `previous` absent when added. */
export type IndexListener = (namespace: string, name: string, object: JsonObject | undefined, previous: JsonObject | undefined) => void;

const NONE: readonly JsonObject[] = [];

export class NamespaceIndex {
  private readonly byNamespace = new Map<string, Map<string, JsonObject>>();
  /** Per namespace, the objects sorted by name (built on first read after a change). */
  private readonly sorted = new Map<string, readonly JsonObject[]>();
  private subscription: Subscription | undefined;

  private constructor(private readonly listener?: IndexListener) {}

  /** Loads the resource's objects (in its storage version) and follows their changes. */
  static async start(registry: Registry, info: ResourceInfo, listener?: IndexListener): Promise<NamespaceIndex> {
    const informer = await registry.informer(info);
    const index = new NamespaceIndex(listener);
    // The objects there now are loaded without telling the listener; every later change is told.
    index.subscription = informer.subscribe({
      added: (o, initial) => index.onChange(o, !initial),
      updated: (o) => index.onChange(o, true),
      deleted: (o) => index.onDelete(o),
    });
    return index;
  }

  stop(): void {
    this.subscription?.stop();
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

  /** An object added or updated; `tell`: whether the listener hears of it. */
  private onChange(o: ObjectVersion, tell: boolean): void {
    const namespace = o.namespace;
    if (namespace === undefined) return;
    const previous = this.byNamespace.get(namespace)?.get(o.name);
    const obj = o.object;
    this.put(namespace, o.name, obj);
    if (tell) this.listener?.(namespace, o.name, obj, previous);
  }

  private onDelete(o: ObjectVersion): void {
    const namespace = o.namespace;
    if (namespace === undefined) return;
    const objects = this.byNamespace.get(namespace);
    const previous = objects?.get(o.name);
    objects?.delete(o.name);
    if (objects?.size === 0) this.byNamespace.delete(namespace);
    this.sorted.delete(namespace);
    this.listener?.(namespace, o.name, undefined, previous);
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
