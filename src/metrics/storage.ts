// etcd_request_duration_seconds for the store's operations (whatever the backend: the storage is
// wrapped, see storage/instrumented.ts) and apiserver_storage_objects, counted when scraped.
import type { Registry } from 'prom-client';
import { ETCD_REQUEST_DURATION, gauge, presummedHistogram, STORAGE_OBJECTS } from './families.js';
import { innerMap } from '../maps.js';
import type { HistogramSeries, PresummedHistogram } from './presummed.js';

/** The reference's operation names: get, create, update, delete, list, listWithCount. */
export type StorageOperation = 'get' | 'create' | 'update' | 'delete' | 'list' | 'listWithCount';

/** How many objects each stored resource holds ("configmaps", "deployments.apps"); -1 when it cannot be counted. */
export type ObjectCounts = () => Promise<ReadonlyArray<readonly [resource: string, count: number]>>;

export class StorageMetrics {
  private readonly latency: PresummedHistogram<'operation' | 'type'>;
  /** Each series, by type then operation: every read of one object from the store adds to one. */
  private readonly byType = new Map<string, Map<StorageOperation, HistogramSeries<'operation' | 'type'>>>();
  private counts: ObjectCounts | undefined;

  constructor(registry: Registry) {
    this.latency = presummedHistogram(registry, ETCD_REQUEST_DURATION);
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

  /** The series of one operation on objects of `type`, to observe its seconds in. */
  series(operation: StorageOperation, type: string): HistogramSeries<'operation' | 'type'> {
    const byOperation = innerMap(this.byType, type);
    let series = byOperation.get(operation);
    if (series === undefined) byOperation.set(operation, (series = this.latency.series({ operation, type })));
    return series;
  }
}
