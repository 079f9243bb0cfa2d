// The TTL-after-finished controller (kube-controller-manager 1.25's `ttl-after-finished`): a
// finished Job (Complete or Failed) with spec.ttlSecondsAfterFinished is deleted that many seconds
// after its finishing condition's lastTransitionTime, with its pods first (Foreground, as the
// reference), checked once more against the stored Job just before.
import { StatusError } from '../errors.js';
import { metadataOf } from '../registry/objects.js';
import type { ResourceInfo } from '../registry/definitions.js';
import type { Subscription } from '../registry/informers.js';
import type { Registry } from '../registry/store.js';
import { type JsonObject, isObject } from '../json.js';
import { WorkQueue, keyOf, splitKey } from './kit/work-queue.js';
import { controllerWriter } from './kit/writer.js';

/** When the Job may go (ms), if it is finished, has a TTL and is not being deleted. */
export function expiresAt(job: JsonObject): number | undefined {
  const spec = isObject(job['spec']) ? job['spec'] : {};
  const ttl = spec['ttlSecondsAfterFinished'];
  if (typeof ttl !== 'number' || metadataOf(job)['deletionTimestamp']) return undefined;
  const status = isObject(job['status']) ? job['status'] : {};
  const conditions = Array.isArray(status['conditions']) ? (status['conditions'] as JsonObject[]) : [];
  const finished = conditions.find((c) => (c['type'] === 'Complete' || c['type'] === 'Failed') && c['status'] === 'True');
  const at = finished ? Date.parse(String(finished['lastTransitionTime'] ?? '')) : NaN;
  return Number.isFinite(at) ? at + ttl * 1000 : undefined;
}

export class TtlAfterFinishedController {
  private readonly writer = controllerWriter('ttl-after-finished-controller');
  private readonly queue = new WorkQueue((key) => this.process(key), { baseDelayMs: 5, maxDelayMs: 1000_000 });
  private subscription: Subscription | undefined;
  /** Per Job: when it is queued again for (one timer per expiry, however often it is updated). */
  private readonly due = new Map<string, number>();
  private info!: ResourceInfo;

  constructor(private readonly registry: Registry) {}

  async start(): Promise<void> {
    const info = this.registry.definitions.lookup('batch', 'v1', 'jobs');
    if (!info) return;
    this.info = info;
    const consider = (job: JsonObject) => {
      if (expiresAt(job) !== undefined) this.queue.add(keyOf(String(metadataOf(job)['namespace']), String(metadataOf(job)['name'])));
    };
    this.subscription = (await this.registry.informer(info)).subscribe({ added: (j) => consider(j.object), updated: (j) => consider(j.object) });
  }

  stop(): void {
    this.subscription?.stop();
    this.queue.stop();
  }

  private async process(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    // The stored Job, not a cached copy: its TTL may just have changed.
    const job = await this.registry.getObject(this.info, namespace, name);
    if (!job) return;
    const expires = expiresAt(job);
    if (expires === undefined) return;
    const left = expires - Date.now();
    if (left > 0) {
      // Timers cannot wait past ~24 days; a far expiry is looked at again daily.
      const wait = Math.min(left, 86_400_000);
      if (this.due.get(key) !== Date.now() + wait) {
        this.due.set(key, Date.now() + wait);
        this.queue.addAfter(key, wait);
      }
      return;
    }
    this.due.delete(key);
    try {
      await this.registry.delete(this.info, namespace, name, { propagationPolicy: 'Foreground', preconditions: { uid: String(metadataOf(job)['uid']) }, user: this.writer.user });
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return;
      throw err;
    }
  }
}
