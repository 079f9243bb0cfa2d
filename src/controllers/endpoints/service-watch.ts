// How the endpoint controllers follow Services and pods: every Service change queues that Service;
// a pod change queues the Services of its namespace whose selectors match the pod's labels (before
// or after the change). Keys are gathered for a moment and handed over together, so a burst of pod
// changes syncs each Service once. Pods are read by namespace, decoded once per change of the set.
import type { ResourceInfo } from '../../registry/definitions.js';
import type { ObjectVersion, Informer, Subscription } from '../../registry/informers.js';
import type { Registry } from '../../registry/store.js';
import type { JsonObject } from '../../json.js';
import { metadataOf } from '../../registry/objects.js';
import { keyOf } from '../kit/work-queue.js';
import { labelsOf, selectorMatches, serviceSelector } from './pods.js';

const BATCH_MS = 10;

export class ServicePodFollower {
  /** namespace → Service name → selector, for Services with one. */
  private readonly selectors = new Map<string, Map<string, Record<string, string>>>();
  private readonly subscriptions: Subscription[] = [];
  private readonly pending = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private podCache = new Map<string, JsonObject[]>();
  private podCacheChange = -1;
  services!: Informer;
  pods!: Informer;
  readonly serviceInfo: ResourceInfo;
  readonly podInfo: ResourceInfo;

  constructor(private readonly registry: Registry, private readonly queue: (key: string) => void) {
    this.serviceInfo = registry.definitions.lookup('', 'v1', 'services')!;
    this.podInfo = registry.definitions.lookup('', 'v1', 'pods')!;
  }

  async start(): Promise<void> {
    this.services = await this.registry.informer(this.serviceInfo);
    this.pods = await this.registry.informer(this.podInfo);
    const serviceChanged = (o: ObjectVersion) => {
      this.remember(o);
      this.add(keyOf(o.namespace, o.name));
    };
    this.subscriptions.push(this.services.subscribe({
      added: serviceChanged,
      updated: serviceChanged,
      deleted: (o) => {
        this.selectors.get(o.namespace!)?.delete(o.name);
        this.add(keyOf(o.namespace, o.name));
      },
    }));
    this.subscriptions.push(this.pods.subscribe({
      added: (o) => this.podChanged(o),
      updated: (o, old) => this.podChanged(o, old),
      deleted: (o) => this.podChanged(o),
    }, { replay: false }));
  }

  stop(): void {
    for (const s of this.subscriptions) s.stop();
    clearTimeout(this.timer);
    this.pending.clear();
  }

  /** Queues a key with the next batch. */
  add(key: string): void {
    this.pending.add(key);
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const keys = [...this.pending];
      this.pending.clear();
      for (const k of keys) this.queue(k);
    }, BATCH_MS);
    this.timer.unref();
  }

  /** The pods of a namespace (shared copies: read, never change them). */
  podsOf(namespace: string): JsonObject[] {
    const change = this.pods.changeNumber();
    if (change !== this.podCacheChange) {
      this.podCache = new Map();
      this.podCacheChange = change;
    }
    let pods = this.podCache.get(namespace);
    if (!pods) {
      pods = this.pods.list(namespace);
      this.podCache.set(namespace, pods);
    }
    return pods;
  }

  /** The pods of the Service's namespace its selector matches. */
  selectedPods(service: JsonObject, selector: Record<string, string>): JsonObject[] {
    return this.podsOf(String(metadataOf(service)['namespace'])).filter((p) => selectorMatches(selector, labelsOf(p)));
  }

  private remember(o: ObjectVersion): void {
    const namespace = o.namespace!;
    const selector = serviceSelector(o.object);
    let names = this.selectors.get(namespace);
    if (!selector) {
      names?.delete(o.name);
      return;
    }
    if (!names) this.selectors.set(namespace, (names = new Map()));
    names.set(o.name, selector);
  }

  /** Queues the Services selecting the pod before or after; pods of namespaces without such Services are not even decoded. */
  private podChanged(pod: ObjectVersion, old?: ObjectVersion): void {
    const names = this.selectors.get(pod.namespace!);
    if (!names || names.size === 0) return;
    const labelSets = [labelsOf(pod.object)];
    if (old) labelSets.push(labelsOf(old.object));
    for (const [name, selector] of names) {
      if (labelSets.some((labels) => selectorMatches(selector, labels))) this.add(keyOf(pod.namespace, name));
    }
  }
}
