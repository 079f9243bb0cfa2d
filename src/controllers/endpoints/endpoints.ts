// The endpoints controller (kube-controller-manager's `endpoint`): each Service with a selector
// gets an Endpoints object of its name listing the selected pods that have an IP, ready or not,
// on the Service's ports; it goes when the Service goes. Services without a selector keep the
// Endpoints their users write; `default/kubernetes` is the API server's own (kubernetes-service.ts).
import type { ResourceInfo } from '../../registry/definitions.js';
import type { Informer, Subscription } from '../../registry/informers.js';
import { metadataOf } from '../../registry/objects.js';
import type { Registry } from '../../registry/store.js';
import { StatusError } from '../../errors.js';
import { type JsonObject, decodeJson, jsonEqual } from '../../json.js';
import { EventRecorder } from '../kit/events.js';
import { WorkQueue, keyOf, splitKey } from '../kit/work-queue.js';
import { controllerWriter } from '../kit/writer.js';
import { isServiceIpSet, labelsOf, serviceSelector, specOf } from './pods.js';
import { ServicePodFollower } from './service-watch.js';
import { addressCount, MAX_ENDPOINTS_ADDRESSES, subsetsFor, truncated } from './subsets.js';
import { TRIGGER_TIME_ANNOTATION, TriggerTimeTracker, formatTriggerTime } from './trigger-time.js';
import { ignoreMissing, isNamespaceTerminating } from './write-errors.js';

export const HEADLESS_LABEL = 'service.kubernetes.io/headless';
const OVER_CAPACITY_ANNOTATION = 'endpoints.kubernetes.io/over-capacity';
const LEADER_ANNOTATION = 'control-plane.alpha.kubernetes.io/leader';
const API_SERVER_SERVICE = keyOf('default', 'kubernetes');

export class EndpointsController {
  private readonly writer = controllerWriter('endpoint-controller');
  private readonly events: EventRecorder;
  private readonly tracker = new TriggerTimeTracker();
  private readonly queue: WorkQueue;
  private readonly follower: ServicePodFollower;
  private readonly subscriptions: Subscription[] = [];
  private endpoints!: Informer;
  private readonly endpointsInfo: ResourceInfo;
  /** The resourceVersion (and time) of the last write per Service, until the informer shows it. */
  private readonly written = new Map<string, { resourceVersion: number; at: number }>();

  constructor(private readonly registry: Registry) {
    this.events = new EventRecorder(registry, 'endpoint-controller', this.writer);
    this.queue = new WorkQueue((key) => this.sync(key), { onError: (key, err) => console.error(`endpoint controller: ${key}:`, err) });
    this.follower = new ServicePodFollower(registry, (key) => this.queue.add(key));
    this.endpointsInfo = registry.definitions.lookup('', 'v1', 'endpoints')!;
  }

  async start(): Promise<void> {
    this.endpoints = await this.registry.informer(this.endpointsInfo);
    await this.follower.start();
    this.subscriptions.push(this.endpoints.subscribe({
      // At start every Endpoints is looked at once: those whose Service is gone are removed.
      added: (o, initial) => {
        if (initial && !(LEADER_ANNOTATION in ((metadataOf(o.object)['annotations'] ?? {}) as JsonObject))) this.follower.add(keyOf(o.namespace, o.name));
      },
      // An Endpoints removed under a Service with a selector is made again.
      deleted: (o) => this.follower.add(keyOf(o.namespace, o.name)),
    }));
  }

  stop(): void {
    this.follower.stop();
    for (const s of this.subscriptions) s.stop();
    this.queue.stop();
  }

  /** Resolves once every queued Service was synced (tests wait on it). */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  private async sync(key: string): Promise<void> {
    if (key === API_SERVER_SERVICE) return;
    const { namespace, name } = splitKey(key);
    const ns = namespace!;
    const service = this.follower.services.get(ns, name);
    if (!service) {
      this.tracker.forget(key);
      this.written.delete(key);
      await ignoreMissing(() => this.registry.delete(this.endpointsInfo, ns, name, { user: this.writer.user }));
      return;
    }
    if (specOf(service)['type'] === 'ExternalName') return;
    const selector = serviceSelector(service);
    if (!selector) return;
    const current = this.endpoints.get(ns, name);
    const pending = this.written.get(key);
    if (pending) {
      // The informer has not shown this controller's last write yet: judged again shortly (a few
      // seconds at most: an Endpoints deleted meanwhile never shows it).
      const caughtUp = current !== undefined && Number(metadataOf(current)['resourceVersion']) >= pending.resourceVersion;
      if (!caughtUp && Date.now() - pending.at < 5_000) {
        this.queue.addAfter(key, 20);
        return;
      }
      this.written.delete(key);
    }
    const pods = this.follower.selectedPods(service, selector);
    const triggerTime = this.tracker.compute(key, service, pods);
    let subsets = subsetsFor(service, pods);
    const serviceLabels = labelsOf(service);
    if (current) {
      const currentLabels = { ...labelsOf(current) };
      delete currentLabels[HEADLESS_LABEL];
      const annotations = (metadataOf(current)['annotations'] ?? {}) as JsonObject;
      const currentSubsets = Array.isArray(current['subsets']) ? current['subsets'] : [];
      const capacityRight = addressCount(currentSubsets as JsonObject[]) <= MAX_ENDPOINTS_ADDRESSES && !(OVER_CAPACITY_ANNOTATION in annotations);
      if (jsonEqual(currentSubsets, subsets) && jsonEqual(currentLabels, serviceLabels) && capacityRight) return;
    }

    const annotations: Record<string, unknown> = { ...((current && metadataOf(current)['annotations']) as JsonObject | undefined ?? {}) };
    if (triggerTime) annotations[TRIGGER_TIME_ANNOTATION] = formatTriggerTime(triggerTime);
    else delete annotations[TRIGGER_TIME_ANNOTATION];
    const cut = truncated(subsets);
    if (cut) {
      subsets = cut;
      annotations[OVER_CAPACITY_ANNOTATION] = 'truncated';
    } else delete annotations[OVER_CAPACITY_ANNOTATION];
    const labels: Record<string, string> = { ...serviceLabels };
    if (isServiceIpSet(service)) delete labels[HEADLESS_LABEL];
    else labels[HEADLESS_LABEL] = '';
    const shaped = (metadata: JsonObject): JsonObject => {
      const meta: JsonObject = { ...metadata, labels, annotations };
      if (Object.keys(labels).length === 0) delete meta['labels'];
      if (Object.keys(annotations).length === 0) delete meta['annotations'];
      return meta;
    };
    const body: JsonObject = { apiVersion: 'v1', kind: 'Endpoints', metadata: shaped({ name, namespace: ns }) };
    if (subsets.length) body['subsets'] = subsets;
    try {
      const result = !current
        ? await this.registry.create(this.endpointsInfo, ns, body, this.writer)
        : await this.registry.patch(this.endpointsInfo, ns, name, (cur) => {
        const next: JsonObject = { ...cur, metadata: shaped(metadataOf(cur)) };
        if (subsets.length) next['subsets'] = subsets;
        else delete next['subsets'];
        return next;
      }, undefined, this.writer);
      this.written.set(key, { resourceVersion: Number(metadataOf(decodeJson(result.body))['resourceVersion']), at: Date.now() });
    } catch (err) {
      if (err instanceof StatusError && (err.code === 409 || err.code === 404)) throw err;
      // A namespace being deleted refuses new objects: nothing to retry.
      if (!current && isNamespaceTerminating(err)) return;
      const involved = current ?? body;
      if (!current) this.events.record(involved, 'Warning', 'FailedToCreateEndpoint', `Failed to create endpoint for service ${ns}/${name}: ${messageOf(err)}`);
      else this.events.record(involved, 'Warning', 'FailedToUpdateEndpoint', `Failed to update endpoint ${ns}/${name}: ${messageOf(err)}`);
      throw err;
    }
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
