// A registry over a MemoryStorage serving one resource defined at run time (example.com widgets,
// namespaced), for the informer and watch tests; writes go through the registry, or straight to
// the storage when a test needs a write to be committed but not yet delivered to the watch cache.
import { genericDefinition, ResourceDefinitions, type ResourceInfo } from '../../src/registry/definitions.js';
import { objectKey } from '../../src/registry/keys.js';
import { Registry } from '../../src/registry/store.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import type { JsonObject } from '../../src/json.js';

export const GROUP = 'example.com';
/** Where the widgets are stored (whether or not the resource is served at the moment). */
const keyOf = (namespace: string, name: string) => objectKey({ group: GROUP, resource: 'widgets', namespaced: true }, namespace, name);

export const widgetDefinition = () => genericDefinition({ group: GROUP, resource: 'widgets', kind: 'Widget', namespaced: true, versions: ['v1'] });

export class Widgets {
  readonly storage = new MemoryStorage();
  readonly definitions = new ResourceDefinitions();
  readonly registry: Registry;

  constructor(historyWindowMs = 60_000) {
    this.definitions.add(widgetDefinition());
    this.registry = new Registry(this.definitions, this.storage, { historyWindowMs });
  }

  get info(): ResourceInfo {
    return this.definitions.lookup(GROUP, 'v1', 'widgets')!;
  }

  /** Creates or replaces a widget; its resourceVersion. */
  async put(namespace: string, name: string, labels: Record<string, string> = {}, spec: JsonObject = {}): Promise<number> {
    const body: JsonObject = { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name, labels }, spec };
    const current = await this.registry.getObject(this.info, namespace, name);
    const result = current
      ? await this.registry.update(this.info, namespace, name, { ...body, metadata: { ...(body['metadata'] as JsonObject), resourceVersion: (current['metadata'] as JsonObject)['resourceVersion'] } }, undefined, { manager: 'test' })
      : await this.registry.create(this.info, namespace, body, { manager: 'test' });
    return Number((JSON.parse(result.body.toString()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion);
  }

  async remove(namespace: string, name: string): Promise<void> {
    await this.registry.delete(this.info, namespace, name);
  }

  /** The revision of each key written by storeNow. */
  private readonly stored = new Map<string, number>();

  /**
   * Creates or updates a widget straight in the storage, which applies the write at once and
   * delivers its event to watchers (the watch cache among them) a moment later: on return, the
   * write is committed but not yet seen. Only for widgets no other write touches.
   */
  storeNow(namespace: string, name: string, spec: JsonObject = {}): Promise<unknown> {
    const key = keyOf(namespace, name);
    const bytes = (revision: number) => Buffer.from(JSON.stringify({
      apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name, namespace, resourceVersion: String(revision) }, spec,
    }));
    const revision = this.stored.get(key);
    const write = revision === undefined ? this.storage.create(key, bytes) : this.storage.update(key, revision, bytes);
    this.stored.set(key, this.storage.currentRevision());
    return write;
  }

  /** Deletes a widget written by storeNow, straight in the storage (see there). */
  unstoreNow(namespace: string, name: string): Promise<unknown> {
    const key = keyOf(namespace, name);
    this.stored.delete(key);
    return this.storage.delete(key);
  }
}

/** A widget's name and resourceVersion, as "name@rv". */
export function nameAt(obj: JsonObject): string {
  const meta = obj['metadata'] as JsonObject;
  return `${String(meta['name'])}@${String(meta['resourceVersion'])}`;
}
