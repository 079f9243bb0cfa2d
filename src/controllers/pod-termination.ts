// Ends graceful pod deletions: a pod on a node keeps its deletionTimestamp for its grace period
// (the node agent stops it meanwhile); when the period is over, it is deleted with grace 0, as the
// node agent does once its containers are gone. Without node agents, this stands in for them.
import { StatusError } from '../errors.js';
import { metadataOf } from '../registry/objects.js';
import type { Subscription } from '../registry/informers.js';
import type { Registry } from '../registry/store.js';
import { type JsonObject } from '../json.js';

export class PodTermination {
  private subscription: Subscription | undefined;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private stopped = false;

  constructor(private readonly registry: Registry) {}

  async start(): Promise<void> {
    const pods = this.registry.definitions.lookup('', 'v1', 'pods')!;
    // Read only: the decoding every pod controller shares (a timer keeps the metadata, and only reads it).
    this.subscription = (await this.registry.informer(pods)).subscribe({
      added: (pod) => this.observe(pod.frozen),
      updated: (pod) => this.observe(pod.frozen),
      deleted: (pod) => this.cancel(this.keyOf(metadataOf(pod.frozen))),
    });
  }

  stop(): void {
    this.stopped = true;
    this.subscription?.stop();
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }

  private keyOf(meta: JsonObject): string {
    return `${String(meta['namespace'])}/${String(meta['name'])}`;
  }

  private cancel(key: string): void {
    const t = this.timers.get(key);
    if (t) clearTimeout(t);
    this.timers.delete(key);
  }

  private observe(pod: JsonObject): void {
    const meta = metadataOf(pod);
    const deadline = typeof meta['deletionTimestamp'] === 'string' ? Date.parse(meta['deletionTimestamp']) : NaN;
    const grace = meta['deletionGracePeriodSeconds'];
    if (Number.isNaN(deadline) || typeof grace !== 'number' || grace <= 0) return;
    const key = this.keyOf(meta);
    const existing = this.timers.get(key);
    if (existing) clearTimeout(existing);
    // A shortened grace period moves the deadline; the timer follows the latest one.
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.finish(String(meta['namespace']), String(meta['name']), String(meta['uid'])).catch((err: unknown) => console.error('pod termination:', err));
    }, Math.max(0, deadline - Date.now()));
    timer.unref();
    this.timers.set(key, timer);
  }

  private async finish(namespace: string, name: string, uid: string): Promise<void> {
    if (this.stopped) return;
    const pods = this.registry.definitions.lookup('', 'v1', 'pods')!;
    try {
      await this.registry.delete(pods, namespace, name, { gracePeriodSeconds: 0, preconditions: { uid } });
    } catch (err) {
      // Gone already, or replaced by a new pod of the same name.
      if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return;
      throw err;
    }
  }
}
