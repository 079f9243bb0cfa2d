// The replicaset and replicationcontroller controllers (one implementation over either resource):
// keep as many active pods as spec.replicas, made from the template, adopting matching orphans and
// releasing owned pods that no longer match; scale down by the reference's ranking; keep status
// (replicas, fullyLabeledReplicas, readyReplicas, availableReplicas, observedGeneration and the
// ReplicaFailure condition) current. Pods are found through an in-memory index by controller uid,
// never by listing the namespace.
import { convertLabelSelector, type SelectorMatcher } from '../api/label-selector-object.js';
import { StatusError } from '../errors.js';
import { metadataOf } from '../registry/objects.js';
import type { ResourceInfo } from '../registry/definitions.js';
import type { Informer, ObjectVersion, Subscription } from '../registry/informers.js';
import type { Registry } from '../registry/store.js';
import { type JsonObject, isObject, jsonEqual, now } from '../json.js';
import { EventRecorder } from './kit/events.js';
import { Expectations } from './kit/expectations.js';
import { claim, isPodActive, isPodAvailable, isPodReady, podFromTemplate, readyCondition } from './kit/owned.js';
import { WorkQueue, keyOf, splitKey } from './kit/work-queue.js';
import { controllerWriter } from './kit/writer.js';
import { OwnerIndex } from './owner-index.js';
import { podsToDelete } from './replica-ranking.js';

/** The most pods created or deleted in one sync, as the reference's burstReplicas. */
const BURST = 500;

export interface ReplicaKind {
  group: string;
  version: string;
  resource: string;
  kind: string;
  /** The event source component and the service account the writes are made as. */
  component: string;
  serviceAccount: string;
  /** The selector object of the spec (RC: a plain map, as matchLabels). */
  selectorOf(spec: JsonObject): unknown;
}

export const REPLICA_SET: ReplicaKind = {
  group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet',
  component: 'replicaset-controller', serviceAccount: 'replicaset-controller',
  selectorOf: (spec) => spec['selector'],
};

export const REPLICATION_CONTROLLER: ReplicaKind = {
  group: '', version: 'v1', resource: 'replicationcontrollers', kind: 'ReplicationController',
  component: 'replication-controller', serviceAccount: 'replication-controller',
  selectorOf: (spec) => (isObject(spec['selector']) ? { matchLabels: spec['selector'] } : undefined),
};

interface Owner {
  key: string;
  namespace: string;
  matcher: SelectorMatcher | undefined;
}

export class ReplicaSetController {
  private readonly writer;
  private readonly events: EventRecorder;
  private readonly queue: WorkQueue;
  private readonly expectations = new Expectations();
  private readonly pods = new OwnerIndex();
  /** Owners by uid, and the keys of each namespace's owners (for orphans to find theirs). */
  private readonly owners = new Map<string, Owner>();
  private readonly ownersOfNamespace = new Map<string, Set<string>>();
  private readonly subscriptions: Subscription[] = [];
  private info!: ResourceInfo;
  private podInfo!: ResourceInfo;
  private informer!: Informer;
  private podInformer!: Informer;

  constructor(private readonly registry: Registry, private readonly kind: ReplicaKind = REPLICA_SET) {
    this.writer = controllerWriter(kind.serviceAccount);
    this.events = new EventRecorder(registry, kind.component, this.writer);
    this.queue = new WorkQueue((key) => this.sync(key), {
      workers: 8,
      // A failure to create or delete pods is already told by an event and a condition.
      onError: (key, err) => {
        if (!(err instanceof ReplicaFailure)) console.error(`${kind.component}: ${key}:`, err);
      },
    });
  }

  async start(): Promise<void> {
    const info = this.registry.definitions.lookup(this.kind.group, this.kind.version, this.kind.resource);
    const podInfo = this.registry.definitions.lookup('', 'v1', 'pods');
    if (!info || !podInfo) return;
    this.info = info;
    this.podInfo = podInfo;
    this.informer = await this.registry.informer(info);
    this.podInformer = await this.registry.informer(podInfo);
    this.subscriptions.push(this.podInformer.subscribe({
      added: (p) => this.podChanged(p, undefined),
      updated: (p, old) => this.podChanged(p, old),
      deleted: (p) => this.podDeleted(p),
    }));
    this.subscriptions.push(this.informer.subscribe({
      added: (o) => this.ownerChanged(o),
      updated: (o) => this.ownerChanged(o),
      deleted: (o) => this.ownerDeleted(o),
    }));
  }

  stop(): void {
    for (const s of this.subscriptions) s.stop();
    this.queue.stop();
  }

  /** Resolves once no key is queued or being worked (tests). */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  // ---- events ----

  private ownerChanged(o: ObjectVersion): void {
    const obj = o.object;
    const meta = metadataOf(obj);
    const uid = String(meta['uid']);
    const namespace = o.namespace ?? '';
    const spec = isObject(obj['spec']) ? obj['spec'] : {};
    const converted = convertLabelSelector(this.kind.selectorOf(spec));
    const key = keyOf(namespace, o.name);
    this.owners.set(uid, { key, namespace, matcher: 'error' in converted || converted.empty ? undefined : converted });
    let set = this.ownersOfNamespace.get(namespace);
    if (!set) this.ownersOfNamespace.set(namespace, (set = new Set()));
    set.add(uid);
    this.queue.add(key);
  }

  private ownerDeleted(o: ObjectVersion): void {
    const uid = String(metadataOf(o.object)['uid']);
    const namespace = o.namespace ?? '';
    this.owners.delete(uid);
    this.ownersOfNamespace.get(namespace)?.delete(uid);
    const key = keyOf(namespace, o.name);
    this.expectations.forget(key);
    // Orphans it released (or would have) may match another owner.
    for (const other of this.ownersOfNamespace.get(namespace) ?? []) this.queue.add(this.owners.get(other)!.key);
  }

  private podChanged(p: ObjectVersion, old: ObjectVersion | undefined): void {
    const namespace = p.namespace ?? '';
    // Read only, kept nowhere: the decoding every pod controller shares.
    const pod = p.frozen;
    const before = this.pods.set(namespace, p.name, pod);
    const uid = this.pods.ownerOf(namespace, p.name);
    const owner = uid ? this.owners.get(uid) : undefined;
    if (owner) {
      if (!old) this.expectations.created(owner.key);
      // A pod being deleted counts as gone, as the reference's expectations count it.
      if (metadataOf(pod)['deletionTimestamp'] && !(old && metadataOf(old.frozen)['deletionTimestamp'])) this.expectations.deleted(owner.key, keyOf(namespace, p.name));
      this.queue.add(owner.key);
    } else if (!uid) {
      this.queueMatching(namespace, pod);
    }
    // A pod released or taken by another: its former owner recounts.
    if (before && before !== uid) {
      const former = this.owners.get(before);
      if (former) this.queue.add(former.key);
    }
  }

  private podDeleted(p: ObjectVersion): void {
    const namespace = p.namespace ?? '';
    const formerOwner = this.pods.remove(namespace, p.name);
    const owner = formerOwner ? this.owners.get(formerOwner) : undefined;
    if (owner) {
      this.expectations.deleted(owner.key, keyOf(namespace, p.name));
      this.queue.add(owner.key);
    }
  }

  /** An orphan: every owner of its namespace whose selector matches it may adopt it. */
  private queueMatching(namespace: string, pod: JsonObject): void {
    if (!isPodActive(pod)) return;
    const labels = (metadataOf(pod)['labels'] ?? {}) as Record<string, string>;
    for (const uid of this.ownersOfNamespace.get(namespace) ?? []) {
      const owner = this.owners.get(uid);
      if (owner?.matcher?.matches(labels)) this.queue.add(owner.key);
    }
  }

  // ---- sync ----

  private async sync(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const ns = namespace ?? '';
    const owner = this.informer.get(ns, name);
    if (!owner) {
      this.expectations.forget(key);
      return;
    }
    owner['apiVersion'] ??= this.kind.group ? `${this.kind.group}/${this.kind.version}` : this.kind.version;
    owner['kind'] ??= this.kind.kind;
    const meta = metadataOf(owner);
    const spec = isObject(owner['spec']) ? owner['spec'] : {};
    const selector = this.kind.selectorOf(spec);
    const converted = convertLabelSelector(selector);
    if ('error' in converted) return; // as the reference: nothing it can select, nothing it does
    const satisfied = this.expectations.satisfied(key);
    const uid = String(meta['uid']);
    const candidates: JsonObject[] = [];
    for (const podKey of this.pods.owned(uid)) {
      const { name: podName } = splitKey(podKey);
      const pod = this.podInformer.get(ns, podName);
      if (pod && isPodActive(pod)) candidates.push(pod);
    }
    if (!meta['deletionTimestamp'] && !converted.empty) {
      for (const podName of this.pods.orphansOf(ns)) {
        const pod = this.podInformer.get(ns, podName);
        if (pod && isPodActive(pod) && converted.matches((metadataOf(pod)['labels'] ?? {}) as Record<string, string>)) candidates.push(pod);
      }
    }
    const pods = await claim(this.registry, this.podInfo, this.writer, owner, selector, candidates);
    let failure: { reason: string; message: string } | undefined;
    if (satisfied && !meta['deletionTimestamp']) failure = await this.manageReplicas(key, owner, spec, pods);
    await this.writeStatus(owner, spec, pods, failure);
    this.requeueForAvailability(key, spec, pods);
    if (failure) throw new ReplicaFailure(failure.message); // retried with backoff
  }

  /** Creates or deletes pods toward spec.replicas; the first failure, if any. */
  private async manageReplicas(key: string, owner: JsonObject, spec: JsonObject, pods: JsonObject[]): Promise<{ reason: string; message: string } | undefined> {
    const replicas = typeof spec['replicas'] === 'number' ? spec['replicas'] : 1;
    const diff = pods.length - replicas;
    const ns = String(metadataOf(owner)['namespace']);
    if (diff < 0) {
      let remaining = Math.min(-diff, BURST);
      this.expectations.expectCreations(key, remaining);
      let failure: { reason: string; message: string } | undefined;
      // Slow start: batches of 1, 2, 4, …; a failing batch stops the rest (e.g. a quota refusal).
      for (let batch = 1; remaining > 0; batch *= 2) {
        const size = Math.min(batch, remaining);
        remaining -= size;
        const results = await Promise.all(Array.from({ length: size }, () => this.createPod(key, owner, spec, ns)));
        failure = results.find((r) => r !== undefined);
        if (failure) {
          for (let i = 0; i < remaining; i++) this.expectations.created(key);
          break;
        }
      }
      return failure;
    }
    if (diff > 0) {
      const victims = podsToDelete(pods, pods, Math.min(diff, BURST));
      this.expectations.expectDeletions(key, victims.map((p) => keyOf(ns, String(metadataOf(p)['name']))));
      const results = await Promise.all(victims.map((p) => this.deletePod(key, owner, p)));
      return results.find((r) => r !== undefined);
    }
    return undefined;
  }

  private async createPod(key: string, owner: JsonObject, spec: JsonObject, ns: string): Promise<{ reason: string; message: string } | undefined> {
    const pod = podFromTemplate(spec['template'], owner, { generateName: `${String(metadataOf(owner)['name'])}-` });
    try {
      const result = await this.registry.create(this.podInfo, ns, pod, this.writer);
      const created = JSON.parse(result.body.toString('utf8')) as JsonObject;
      this.events.record(owner, 'Normal', 'SuccessfulCreate', `Created pod: ${String(metadataOf(created)['name'])}`);
      return undefined;
    } catch (err) {
      this.expectations.created(key);
      const message = `Error creating: ${messageOf(err)}`;
      this.events.record(owner, 'Warning', 'FailedCreate', message);
      return { reason: 'FailedCreate', message: messageOf(err) };
    }
  }

  private async deletePod(key: string, owner: JsonObject, pod: JsonObject): Promise<{ reason: string; message: string } | undefined> {
    const meta = metadataOf(pod);
    const ns = String(meta['namespace']);
    const name = String(meta['name']);
    try {
      await this.registry.delete(this.podInfo, ns, name, { preconditions: { uid: String(meta['uid']) }, user: this.writer.user });
      this.events.record(owner, 'Normal', 'SuccessfulDelete', `Deleted pod: ${name}`);
      return undefined;
    } catch (err) {
      this.expectations.deleted(key, keyOf(ns, name));
      if (err instanceof StatusError && err.code === 404) return undefined;
      this.events.record(owner, 'Warning', 'FailedDelete', `Error deleting: ${messageOf(err)}`);
      return { reason: 'FailedDelete', message: messageOf(err) };
    }
  }

  private async writeStatus(owner: JsonObject, spec: JsonObject, pods: JsonObject[], failure: { reason: string; message: string } | undefined): Promise<void> {
    const meta = metadataOf(owner);
    const previous = isObject(owner['status']) ? owner['status'] : {};
    const status = replicaStatus(owner, spec, pods, failure, previous);
    if (jsonEqual(status, previous)) return;
    try {
      await this.registry.patch(this.info, String(meta['namespace']), String(meta['name']), (current) => {
        const cur = current as JsonObject;
        if (metadataOf(cur)['uid'] !== meta['uid']) throw new StatusError(409, 'Conflict', 'the object was replaced');
        return { ...cur, status };
      }, 'status', this.writer);
    } catch (err) {
      if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return;
      throw err;
    }
  }

  /** minReadySeconds: a ready pod becomes available later, with no event to tell; look again then. */
  private requeueForAvailability(key: string, spec: JsonObject, pods: JsonObject[]): void {
    const minReady = typeof spec['minReadySeconds'] === 'number' ? spec['minReadySeconds'] : 0;
    if (minReady <= 0) return;
    const at = Date.now();
    let soonest = Infinity;
    for (const pod of pods) {
      if (!isPodReady(pod) || isPodAvailable(pod, minReady, at)) continue;
      const since = Date.parse(String(readyCondition(pod)?.['lastTransitionTime'] ?? ''));
      if (Number.isFinite(since)) soonest = Math.min(soonest, since + minReady * 1000 - at);
    }
    if (soonest !== Infinity) this.queue.addAfter(key, Math.max(0, soonest) + 1000);
  }
}

/** The status the reference writes (zero counts but replicas are left out, as its omitempty does). */
export function replicaStatus(
  owner: JsonObject, spec: JsonObject, pods: JsonObject[], failure: { reason: string; message: string } | undefined, previous: JsonObject,
): JsonObject {
  const minReady = typeof spec['minReadySeconds'] === 'number' ? spec['minReadySeconds'] : 0;
  const template = isObject(spec['template']) ? spec['template'] : {};
  const templateLabels = (isObject(template['metadata']) && isObject(template['metadata']['labels']) ? template['metadata']['labels'] : {}) as Record<string, unknown>;
  const at = Date.now();
  let fullyLabeled = 0;
  let ready = 0;
  let available = 0;
  for (const pod of pods) {
    const labels = (metadataOf(pod)['labels'] ?? {}) as Record<string, unknown>;
    if (Object.entries(templateLabels).every(([k, v]) => labels[k] === v)) fullyLabeled++;
    if (isPodReady(pod)) {
      ready++;
      if (isPodAvailable(pod, minReady, at)) available++;
    }
  }
  const status: JsonObject = { replicas: pods.length };
  if (fullyLabeled) status['fullyLabeledReplicas'] = fullyLabeled;
  if (ready) status['readyReplicas'] = ready;
  if (available) status['availableReplicas'] = available;
  const generation = metadataOf(owner)['generation'];
  if (typeof generation === 'number' && generation) status['observedGeneration'] = generation;
  const conditions = (Array.isArray(previous['conditions']) ? (previous['conditions'] as JsonObject[]) : []).filter((c) => c['type'] !== 'ReplicaFailure');
  const priorFailure = (Array.isArray(previous['conditions']) ? (previous['conditions'] as JsonObject[]) : []).find((c) => c['type'] === 'ReplicaFailure');
  // As the reference: a failure is recorded once and kept until a sync manages without one.
  if (failure) conditions.push(priorFailure ?? { type: 'ReplicaFailure', status: 'True', lastTransitionTime: now(), reason: failure.reason, message: failure.message });
  if (conditions.length) status['conditions'] = conditions;
  return status;
}

/** Pods could not be created or deleted: the sync is retried with backoff. */
class ReplicaFailure extends Error {}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
