// The statefulset controller, as kube-controller-manager 1.25's: pods `<set>-<ordinal>` made in
// order (OrderedReady: each Running and Ready before the next, removed from the highest ordinal)
// or all at once (Parallel), their claims made from volumeClaimTemplates first, rolling updates
// from the highest ordinal down to the partition (or none: OnDelete), ControllerRevisions, status.
import { StatusError } from '../../errors.js';
import { metadataOf } from '../../registry/objects.js';
import type { ResourceInfo } from '../../registry/definitions.js';
import type { ObjectVersion, Subscription } from '../../registry/informers.js';
import type { Registry } from '../../registry/store.js';
import { type JsonObject, isObject, jsonEqual, copyJson } from '../../json.js';
import { EventRecorder } from '../kit/events.js';
import { templateOf, truncateHistory } from '../kit/history.js';
import { claim, controllerOf } from '../kit/owned.js';
import { WorkQueue, keyOf, logUnlessRefused, splitKey } from '../kit/work-queue.js';
import { controllerWriter } from '../kit/writer.js';
import { claimsFor, identityMatches, newStatefulPod, ordinalOf, setIdentity, setStorage, storageMatches } from './identity.js';
import { isFailed, isHealthy, isRunningAndAvailable, isRunningAndReady, isTerminating, podRevision } from './pods.js';
import { type SetRevisions, setRevisions } from './revisions.js';

const WRITER = controllerWriter('statefulset-controller');

interface Resources {
  sets: ResourceInfo;
  pods: ResourceInfo;
  claims: ResourceInfo;
  revisions: ResourceInfo;
}

interface Counts {
  replicas: number;
  readyReplicas: number;
  availableReplicas: number;
  currentReplicas: number;
  updatedReplicas: number;
}

export class StatefulSetController {
  private readonly subscriptions: Subscription[] = [];
  private readonly queue: WorkQueue;
  private readonly events: EventRecorder;
  private resources: Resources | undefined;

  constructor(private readonly registry: Registry) {
    this.queue = new WorkQueue((key) => this.sync(key), { onError: logUnlessRefused('statefulset controller') });
    this.events = new EventRecorder(registry, 'statefulset-controller', WRITER);
  }

  async start(): Promise<void> {
    const lookup = this.registry.definitions;
    const sets = lookup.lookup('apps', 'v1', 'statefulsets');
    const pods = lookup.lookup('', 'v1', 'pods');
    const claims = lookup.lookup('', 'v1', 'persistentvolumeclaims');
    const revisions = lookup.lookup('apps', 'v1', 'controllerrevisions');
    if (!sets || !pods || !claims || !revisions) return;
    this.resources = { sets, pods, claims, revisions };
    const queueSet = (o: ObjectVersion) => this.queue.add(keyOf(o.namespace, o.name));
    const queueOwner = (o: ObjectVersion) => this.queueOwnerOf(o);
    this.subscriptions.push((await this.registry.informer(sets)).subscribe({ added: queueSet, updated: queueSet }));
    this.subscriptions.push((await this.registry.informer(pods)).subscribe({
      added: queueOwner, deleted: queueOwner,
      updated: (o, old) => { queueOwner(o); if (controllerOf(old.frozen)?.['uid'] !== controllerOf(o.frozen)?.['uid']) queueOwner(old); },
    }, { replay: false }));
    await (await this.registry.informer(claims)).ready();
    await (await this.registry.informer(revisions)).ready();
  }

  stop(): void {
    this.queue.stop();
    for (const s of this.subscriptions) s.stop();
  }

  /** Resolves once every queued set has been worked (tests). */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  /** A pod's StatefulSet (by controller reference, or every set of the namespace for an orphan). */
  private queueOwnerOf(o: ObjectVersion): void {
    const ref = controllerOf(o.frozen);
    if (ref) {
      if (ref['kind'] === 'StatefulSet' && String(ref['apiVersion']).startsWith('apps/')) this.queue.add(keyOf(o.namespace, String(ref['name'])));
      return;
    }
    void this.registry.informer(this.resources!.sets).then((inf) => {
      for (const set of inf.list(o.namespace)) this.queue.add(keyOf(o.namespace, String(metadataOf(set)['name'])));
    });
  }

  private async sync(key: string): Promise<void> {
    const r = this.resources!;
    const { namespace, name } = splitKey(key);
    const set = (await this.registry.informer(r.sets)).get(namespace, name);
    if (!set) return;
    const spec = isObject(set['spec']) ? set['spec'] : {};
    const uid = metadataOf(set)['uid'];
    const podCandidates = (await this.registry.informer(r.pods)).list(namespace)
      .filter((p) => controllerOf(p)?.['uid'] === uid || (!controllerOf(p) && ordinalOf(set, p) >= 0));
    const pods = await claim(this.registry, r.pods, WRITER, set, spec['selector'], podCandidates);
    const revisionCandidates = (await this.registry.informer(r.revisions)).list(namespace)
      .filter((rev) => controllerOf(rev)?.['uid'] === uid || !controllerOf(rev));
    const owned = await claim(this.registry, r.revisions, WRITER, set, spec['selector'], revisionCandidates);
    const revisions = await setRevisions(this.registry, r.revisions, WRITER, set, owned);
    const counts = await this.reconcile(set, revisions, pods);
    await this.writeStatus(set, revisions, counts);
    const live = new Set<string>([String(metadataOf(revisions.current)['name']), String(metadataOf(revisions.update)['name'])]);
    for (const p of pods) { const rev = podRevision(p); if (rev) live.add(rev); }
    const limit = typeof spec['revisionHistoryLimit'] === 'number' ? spec['revisionHistoryLimit'] : 10;
    await truncateHistory(this.registry, r.revisions, WRITER, revisions.all, live, limit);
  }

  /**
   * One step of the reference's updateStatefulSet: creates, replaces, deletes or updates pods,
   * stopping where the policy must wait, and returns the counts for the status.
   */
  private async reconcile(set: JsonObject, revisions: SetRevisions, pods: JsonObject[]): Promise<Counts> {
    const meta = metadataOf(set);
    const spec = isObject(set['spec']) ? set['spec'] : {};
    const replicaCount = typeof spec['replicas'] === 'number' ? spec['replicas'] : 1;
    const minReadySeconds = typeof spec['minReadySeconds'] === 'number' ? spec['minReadySeconds'] : 0;
    const currentName = String(metadataOf(revisions.current)['name']);
    const updateName = String(metadataOf(revisions.update)['name']);
    const strategy = isObject(spec['updateStrategy']) ? spec['updateStrategy'] : {};
    const rolling = strategy['type'] !== 'OnDelete';
    const partition = rolling && isObject(strategy['rollingUpdate']) && typeof strategy['rollingUpdate']['partition'] === 'number' ? strategy['rollingUpdate']['partition'] : 0;
    const monotonic = spec['podManagementPolicy'] !== 'Parallel';

    const counts: Counts = { replicas: 0, readyReplicas: 0, availableReplicas: 0, currentReplicas: 0, updatedReplicas: 0 };
    const replicas: Array<JsonObject | undefined> = new Array(replicaCount).fill(undefined);
    const created = new Set<JsonObject>();
    const condemned: JsonObject[] = [];
    for (const pod of pods) {
      counts.replicas++;
      if (isRunningAndReady(pod)) counts.readyReplicas++;
      if (isRunningAndAvailable(pod, minReadySeconds)) counts.availableReplicas++;
      if (!isTerminating(pod)) {
        if (podRevision(pod) === currentName) counts.currentReplicas++;
        if (podRevision(pod) === updateName) counts.updatedReplicas++;
      }
      const ord = ordinalOf(set, pod);
      if (ord >= 0 && ord < replicaCount) replicas[ord] = pod;
      else if (ord >= 0) condemned.push(pod);
      created.add(pod);
    }
    const versioned = (ord: number): JsonObject => (rolling && ord < partition
      ? newStatefulPod(set, templateOf(revisions.current), ord, currentName)
      : newStatefulPod(set, templateOf(revisions.update), ord, updateName));
    for (let ord = 0; ord < replicaCount; ord++) replicas[ord] ??= versioned(ord);
    // The first unhealthy pod is looked for in ordinal order; condemned pods go from the highest.
    condemned.sort((a, b) => ordinalOf(set, a) - ordinalOf(set, b));
    const firstUnhealthy = [...replicas, ...condemned].find((p) => p && !isHealthy(p));
    condemned.reverse();
    if (meta['deletionTimestamp']) return counts;

    for (let i = 0; i < replicaCount; i++) {
      let pod = replicas[i]!;
      if (created.has(pod) && isFailed(pod)) {
        await this.deletePod(set, pod);
        if (podRevision(pod) === currentName) counts.currentReplicas--;
        if (podRevision(pod) === updateName) counts.updatedReplicas--;
        counts.replicas--;
        pod = replicas[i] = versioned(i);
        created.delete(pod);
      }
      if (!created.has(pod)) {
        await this.createPod(set, pod, i);
        counts.replicas++;
        if (podRevision(pod) === currentName) counts.currentReplicas++;
        if (podRevision(pod) === updateName) counts.updatedReplicas++;
        if (monotonic) return counts;
        continue;
      }
      if (isTerminating(pod) && monotonic) return counts;
      if (!isRunningAndReady(pod) && monotonic) return counts;
      if (!isRunningAndAvailable(pod, minReadySeconds) && monotonic) {
        this.queue.addAfter(keyOf(meta['namespace'] as string, String(meta['name'])), minReadySeconds * 1000);
        return counts;
      }
      if (identityMatches(set, pod, i) && storageMatches(set, pod, i)) continue;
      await this.repairPod(set, pod, i);
    }

    for (const pod of condemned) {
      if (isTerminating(pod)) {
        if (monotonic) return counts;
        continue;
      }
      if (!isRunningAndReady(pod) && monotonic && pod !== firstUnhealthy) return counts;
      await this.deletePod(set, pod);
      if (monotonic) return counts;
    }

    if (!rolling) return counts;
    for (let target = replicas.length - 1; target >= partition; target--) {
      const pod = replicas[target]!;
      if (podRevision(pod) !== updateName && !isTerminating(pod)) {
        await this.deletePod(set, pod);
        counts.currentReplicas--;
        return counts;
      }
      if (!isHealthy(pod)) return counts;
    }
    return counts;
  }

  /** The pod's claims (those missing), then the pod. A refusal is recorded and retried by the queue. */
  private async createPod(set: JsonObject, pod: JsonObject, ordinal: number): Promise<void> {
    const r = this.resources!;
    const ns = String(metadataOf(set)['namespace']);
    const setName = String(metadataOf(set)['name']);
    const podName = String(metadataOf(pod)['name']);
    await this.createClaims(set, podName, ordinal);
    try {
      await this.registry.create(r.pods, ns, pod, WRITER);
      this.events.record(set, 'Normal', 'SuccessfulCreate', `create Pod ${podName} in StatefulSet ${setName} successful`);
    } catch (err) {
      if (err instanceof StatusError && err.code === 409) return;
      this.events.record(set, 'Warning', 'FailedCreate', `create Pod ${podName} in StatefulSet ${setName} failed error: ${errorText(err)}`);
      throw err;
    }
  }

  private async createClaims(set: JsonObject, podName: string, ordinal: number): Promise<void> {
    const r = this.resources!;
    const ns = String(metadataOf(set)['namespace']);
    const setName = String(metadataOf(set)['name']);
    const existing = await this.registry.informer(r.claims);
    for (const claimObj of claimsFor(set, ordinal).values()) {
      const claimName = String(metadataOf(claimObj)['name']);
      if (existing.has(ns, claimName)) continue;
      try {
        await this.registry.create(r.claims, ns, claimObj, WRITER);
        this.events.record(set, 'Normal', 'SuccessfulCreate', `create Claim ${claimName} Pod ${podName} in StatefulSet ${setName} success`);
      } catch (err) {
        if (err instanceof StatusError && err.code === 409) continue;
        this.events.record(set, 'Warning', 'FailedCreate', `create Claim ${claimName} for Pod ${podName} in StatefulSet ${setName} failed error: ${errorText(err)}`);
        throw err;
      }
    }
  }

  private async deletePod(set: JsonObject, pod: JsonObject): Promise<void> {
    const pmeta = metadataOf(pod);
    const setName = String(metadataOf(set)['name']);
    try {
      await this.registry.delete(this.resources!.pods, String(pmeta['namespace']), String(pmeta['name']), { preconditions: { uid: String(pmeta['uid']) }, user: WRITER.user });
      this.events.record(set, 'Normal', 'SuccessfulDelete', `delete Pod ${String(pmeta['name'])} in StatefulSet ${setName} successful`);
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return;
      this.events.record(set, 'Warning', 'FailedDelete', `delete Pod ${String(pmeta['name'])} in StatefulSet ${setName} failed error: ${errorText(err)}`);
      throw err;
    }
  }

  /** Restores a pod's identity and storage (claims made first), as the reference's updateStatefulPod. */
  private async repairPod(set: JsonObject, pod: JsonObject, ordinal: number): Promise<void> {
    const pmeta = metadataOf(pod);
    const podName = String(pmeta['name']);
    const setName = String(metadataOf(set)['name']);
    if (!storageMatches(set, pod, ordinal)) await this.createClaims(set, podName, ordinal);
    try {
      await this.registry.patch(this.resources!.pods, String(pmeta['namespace']), podName, (cur) => {
        const next = copyJson(cur);
        setIdentity(set, next, ordinal);
        if (!storageMatches(set, next, ordinal)) setStorage(set, next, ordinal);
        return next;
      }, undefined, WRITER);
      this.events.record(set, 'Normal', 'SuccessfulUpdate', `update Pod ${podName} in StatefulSet ${setName} successful`);
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return;
      this.events.record(set, 'Warning', 'FailedUpdate', `update Pod ${podName} in StatefulSet ${setName} failed error: ${errorText(err)}`);
      throw err;
    }
  }

  /** The status as the reference writes it (a finished rolling update makes the update revision current); unchanged, not written. */
  private async writeStatus(set: JsonObject, revisions: SetRevisions, counts: Counts): Promise<void> {
    const meta = metadataOf(set);
    const spec = isObject(set['spec']) ? set['spec'] : {};
    const previous = isObject(set['status']) ? set['status'] : {};
    let currentRevision = String(metadataOf(revisions.current)['name']);
    const updateRevision = String(metadataOf(revisions.update)['name']);
    let currentReplicas = counts.currentReplicas;
    const strategy = isObject(spec['updateStrategy']) ? spec['updateStrategy'] : {};
    if (strategy['type'] !== 'OnDelete' && counts.updatedReplicas === counts.replicas && counts.readyReplicas === counts.replicas) {
      currentRevision = updateRevision;
      currentReplicas = counts.updatedReplicas;
    }
    const status: JsonObject = { observedGeneration: meta['generation'], replicas: counts.replicas };
    if (counts.readyReplicas) status['readyReplicas'] = counts.readyReplicas;
    if (currentReplicas) status['currentReplicas'] = currentReplicas;
    if (counts.updatedReplicas) status['updatedReplicas'] = counts.updatedReplicas;
    status['currentRevision'] = currentRevision;
    status['updateRevision'] = updateRevision;
    status['collisionCount'] = revisions.collisionCount;
    if (Array.isArray(previous['conditions'])) status['conditions'] = previous['conditions'];
    status['availableReplicas'] = counts.availableReplicas;
    if (jsonEqual(status, previous)) return;
    try {
      await this.registry.patch(this.resources!.sets, String(meta['namespace']), String(meta['name']), (cur) => ({ ...cur, status }), 'status', WRITER);
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return;
      throw err;
    }
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
