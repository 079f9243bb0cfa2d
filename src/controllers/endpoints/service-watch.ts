// How the endpoint controllers follow Services and pods: every Service change queues that Service;
// a pod change queues the Services of its namespace whose selectors match the pod's labels (before
// or after the change). Keys are gathered for a moment and handed over together, so a burst of pod
// changes syncs each Service once. Pods are kept by namespace, as the few fields read of them
// (each version decoded once); a change to none of those fields queues nothing.
import type { ResourceInfo } from '../../registry/definitions.js';
import type { ObjectVersion, Informer, Subscription } from '../../registry/informers.js';
import type { Registry } from '../../registry/store.js';
import { type JsonObject, jsonEqual } from '../../json.js';
import { metadataOf } from '../../registry/objects.js';
import { keyOf } from '../kit/work-queue.js';
import { labelsOf, podView, selectorMatches, serviceSelector } from './pods.js';

const BATCH_MS = 10;

export class ServicePodFollower {
  /** namespace → Service name → selector, for Services with one. */
  private readonly selectors = new Map<string, Map<string, Record<string, string>>>();
  private readonly subscriptions: Subscription[] = [];
  private readonly pending = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  /** namespace → pod name → its view (see podView). */
  private readonly podViews = new Map<string, Map<string, JsonObject>>();
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
      added: (o) => this.podChanged(o, false),
      updated: (o) => this.podChanged(o, false),
      deleted: (o) => this.podChanged(o, true),
    }));
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

  /** The views of the pods of the Service's namespace its selector matches, by name (shared: read, never change them). */
  selectedPods(service: JsonObject, selector: Record<string, string>): JsonObject[] {
    const views = this.podViews.get(String(metadataOf(service)['namespace']));
    if (!views) return [];
    const selected: Array<[string, JsonObject]> = [];
    for (const entry of views) if (selectorMatches(selector, labelsOf(entry[1]))) selected.push(entry);
    return selected.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([, view]) => view);
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

  /** Keeps the pod's view; queues the Services selecting it before or after, when the view changed. */
  private podChanged(pod: ObjectVersion, deleted: boolean): void {
    const namespace = pod.namespace!;
    let views = this.podViews.get(namespace);
    const before = views?.get(pod.name);
    const after = deleted ? undefined : podView(pod.frozen);
    if (after) {
      if (!views) this.podViews.set(namespace, (views = new Map()));
      views.set(pod.name, after);
    } else {
      views?.delete(pod.name);
      if (views?.size === 0) this.podViews.delete(namespace);
    }
    if (before && after && jsonEqual(before, after)) return;
    const names = this.selectors.get(namespace);
    if (!names || names.size === 0) return;
    const labelSets = [before, after].flatMap((v) => (v ? [labelsOf(v)] : []));
    for (const [name, selector] of names) {
      if (labelSets.some((labels) => selectorMatches(selector, labels))) this.add(keyOf(namespace, name));
    }
  }
}
