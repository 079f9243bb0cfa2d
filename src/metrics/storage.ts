// etcd_request_duration_seconds for the store's operations (whatever the backend: the storage is
// wrapped, see storage/instrumented.ts) and apiserver_storage_objects, counted when scraped.
import type { Histogram, Registry } from 'prom-client';
import { ETCD_REQUEST_DURATION, gauge, histogram, STORAGE_OBJECTS } from './families.js';

/** The reference's operation names: get, create, update, delete, list, listWithCount. */
export type StorageOperation = 'get' | 'create' | 'update' | 'delete' | 'list' | 'listWithCount';

/** How many objects each stored resource holds ("configmaps", "deployments.apps"); -1 when it cannot be counted. */
export type ObjectCounts = () => Promise<ReadonlyArray<readonly [resource: string, count: number]>>;

export class StorageMetrics {
  private readonly latency: Histogram<string>;
  private readonly children = new Map<string, Histogram.Internal<string>>();
  private counts: ObjectCounts | undefined;

  constructor(registry: Registry) {
    this.latency = histogram(registry, ETCD_REQUEST_DURATION);
    const metrics = this;
    gauge(registry, STORAGE_OBJECTS, async function collect() {
      if (!metrics.counts) return;
      // Resources that went away leave no series behind.
      this.reset();
      for (const [resource, count] of await metrics.counts()) this.labels({ resource }).set(count);
    });
  }

  /** Where apiserver_storage_objects reads its counts from (set once the registry exists). */
  countObjectsWith(counts: ObjectCounts): void {
    this.counts = counts;
  }

  /** One storage operation on objects of `type` took `seconds`. */
  observe(operation: StorageOperation, type: string, seconds: number): void {
    const key = `${operation}\0${type}`;
    let child = this.children.get(key);
    if (!child) {
      child = this.latency.labels({ operation, type });
      this.children.set(key, child);
    }
    child.observe(seconds);
  }
}
