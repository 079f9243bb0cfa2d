// The Job controller (kube-controller-manager 1.25's `job`): runs a Job's pods to completion —
// parallelism and completions, NonIndexed and Indexed completion modes, backoffLimit,
// activeDeadlineSeconds, suspend and resume — and keeps its status: startTime, active, ready,
// succeeded, failed, completedIndexes, conditions and completionTime. Pods are tracked with the
// `batch.kubernetes.io/job-tracking` finalizer (JobTrackingWithFinalizers, on in 1.25): a finished
// pod's uid goes to status.uncountedTerminatedPods first, then its finalizer is removed, then it
// is counted, so no pod is counted twice or lost when it is deleted.
import { StatusError } from '../../errors.js';
import { metadataOf } from '../../registry/objects.js';
import type { ResourceInfo } from '../../registry/definitions.js';
import type { Informer, Subscription } from '../../registry/informers.js';
import type { Registry } from '../../registry/store.js';
import { selectsLabels } from '../../api/label-selector-object.js';
import { type JsonObject, decodeJson, isObject, jsonEqual, now } from '../../json.js';
import { EventRecorder } from '../kit/events.js';
import { claim, controllerOf, isPodActive, isPodReady, podFromTemplate } from '../kit/owned.js';
import { WorkQueue, keyOf, splitKey } from '../kit/work-queue.js';
import { controllerWriter } from '../kit/writer.js';
import { Expectations } from './expectations.js';
import {
  COMPLETION_INDEX_ANNOTATION, completionIndexOf, firstPendingIndexes, formatIndexes, parseIndexes, podsWithBadIndexes, withCompletionIndexEnv,
} from './indexed.js';
import {
  TRACKING_FINALIZER, conditionsOf, ensureCondition, finishedCondition, hasTrackingFinalizer, newCondition, phaseOf, removalOrder, restartsOf, uidOf,
} from './job-pods.js';

/** The most pods created or deleted in one sync (the reference's). */
const MAX_PER_SYNC = 500;

export interface JobControllerOptions {
  /** The delay before a Job whose pod failed is synced again: this, doubling per failure, up to 6 minutes (the reference's 10 s). */
  podFailureBackoffMs?: number;
}

interface Uncounted {
  succeeded: Set<string>;
  failed: Set<string>;
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' ? value : fallback;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function namespaceTerminating(err: unknown): boolean {
  return err instanceof StatusError && Boolean(err.details?.causes?.some((c) => c.reason === 'NamespaceTerminating'));
}

export class JobController {
  private readonly writer = controllerWriter('job-controller');
  private readonly events: EventRecorder;
  private readonly queue: WorkQueue;
  /** Pods whose tracking finalizer goes because no Job tracks them any longer. */
  private readonly orphans: WorkQueue;
  private readonly expectations = new Expectations();
  /** Per Job: syncs in a row that saw a new failure (the backoff before its next pod). */
  private readonly failureStreak = new Map<string, number>();
  /** Per Job: when its activeDeadlineSeconds check is queued for. */
  private readonly deadlines = new Map<string, number>();
  private readonly subscriptions: Subscription[] = [];
  private jobInfo!: ResourceInfo;
  private podInfo!: ResourceInfo;
  private jobs!: Informer;
  private pods!: Informer;
  private readonly backoffMs: number;

  constructor(private readonly registry: Registry, options: JobControllerOptions = {}) {
    this.events = new EventRecorder(registry, 'job-controller', this.writer);
    this.backoffMs = options.podFailureBackoffMs ?? 10_000;
    // A Job that cannot make progress (a refused pod) is retried as the reference's queue does: 10 s, doubling, up to 6 min.
    this.queue = new WorkQueue((key) => this.sync(key), { baseDelayMs: this.backoffMs, maxDelayMs: 360_000, onError: (key, err) => this.debug(key, err) });
    this.orphans = new WorkQueue((key) => this.releaseOrphan(key), { baseDelayMs: 1000, onError: (key, err) => this.debug(key, err) });
  }

  async start(): Promise<void> {
    const jobInfo = this.registry.definitions.lookup('batch', 'v1', 'jobs');
    const podInfo = this.registry.definitions.lookup('', 'v1', 'pods');
    if (!jobInfo || !podInfo) return;
    this.jobInfo = jobInfo;
    this.podInfo = podInfo;
    this.jobs = await this.registry.informer(jobInfo);
    this.pods = await this.registry.informer(podInfo);
    const enqueue = (namespace: string | undefined, name: string) => this.queue.add(keyOf(namespace, name));
    this.subscriptions.push(this.jobs.subscribe({
      added: (job) => enqueue(job.namespace, job.name),
      updated: (job) => enqueue(job.namespace, job.name),
      deleted: (job) => this.jobGone(job.object),
    }));
    this.subscriptions.push(this.pods.subscribe({
      // Read only, kept nowhere: the decoding every pod controller shares.
      added: (pod) => this.podChanged(pod.frozen),
      updated: (pod, old) => this.podChanged(pod.frozen, old.frozen),
      deleted: (pod) => this.podChanged(pod.frozen),
    }));
  }

  stop(): void {
    for (const s of this.subscriptions) s.stop();
    this.queue.stop();
    this.orphans.stop();
  }

  /** Resolves once no Job is being synced (tests). */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  private debug(key: string, err: unknown): void {
    if (process.env['CAPSTAN_DEBUG_CONTROLLERS']) console.error(`job controller: ${key}:`, err);
  }

  // ---- what wakes a Job ----

  private podChanged(pod: JsonObject, old?: JsonObject): void {
    const meta = metadataOf(pod);
    const namespace = String(meta['namespace']);
    const ref = controllerOf(pod);
    if (ref && ref['kind'] === 'Job' && String(ref['apiVersion']).startsWith('batch/')) {
      const job = this.jobs.get(namespace, String(ref['name']));
      if (!job || uidOf(job) !== ref['uid']) {
        if (hasTrackingFinalizer(pod)) this.orphans.add(keyOf(namespace, String(meta['name'])));
        return;
      }
      const key = keyOf(namespace, String(ref['name']));
      const newlyFailed = phaseOf(pod) === 'Failed' && (!old || phaseOf(old) !== 'Failed');
      const streak = this.failureStreak.get(key) ?? 0;
      // A failed pod's replacement waits out the Job's backoff (none before its first failure).
      if (newlyFailed && streak > 0) this.queue.addAfter(key, Math.min(360_000, this.backoffMs * 2 ** (streak - 1)));
      else this.queue.add(key);
      return;
    }
    if (ref) return;
    if (hasTrackingFinalizer(pod)) this.orphans.add(keyOf(namespace, String(meta['name'])));
    // An orphan a Job's selector matches may be adopted.
    if (meta['deletionTimestamp'] || this.jobs.names(namespace).length === 0) return;
    for (const job of this.jobs.list(namespace)) {
      const spec = isObject(job['spec']) ? job['spec'] : {};
      if (selectsLabels(spec['selector'], meta['labels'] as Record<string, string> | undefined)) this.queue.add(keyOf(namespace, String(metadataOf(job)['name'])));
    }
  }

  private jobGone(job: JsonObject): void {
    const meta = metadataOf(job);
    const key = keyOf(String(meta['namespace']), String(meta['name']));
    this.expectations.forget(key);
    this.failureStreak.delete(key);
    this.deadlines.delete(key);
    for (const pod of this.pods.list(String(meta['namespace']))) {
      if (controllerOf(pod)?.['uid'] === meta['uid'] && hasTrackingFinalizer(pod)) this.orphans.add(keyOf(String(meta['namespace']), String(metadataOf(pod)['name'])));
    }
  }

  /** Removes the tracking finalizer of a pod no unfinished Job of its own tracks. */
  private async releaseOrphan(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const pod = this.pods.get(namespace, name);
    if (!pod || !hasTrackingFinalizer(pod)) return;
    const ref = controllerOf(pod);
    if (ref && ref['kind'] === 'Job') {
      const job = await this.registry.getObject(this.jobInfo, namespace, String(ref['name']));
      if (job && uidOf(job) === ref['uid'] && !finishedCondition(job)) return;
    }
    await this.removeFinalizer(pod);
  }

  // ---- the sync ----

  private async sync(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const ns = namespace ?? '';
    const job = await this.registry.getObject(this.jobInfo, ns, name);
    if (!job) {
      this.expectations.forget(key);
      return;
    }
    const uid = uidOf(job);
    const owned = () => this.pods.list(ns).filter((p) => controllerOf(p)?.['uid'] === uid);
    if (finishedCondition(job)) {
      // Anything it still holds was counted: let it go.
      for (const pod of owned()) if (hasTrackingFinalizer(pod)) await this.removeFinalizer(pod);
      return;
    }
    if (!this.expectations.satisfied(key, this.pods)) {
      this.queue.addAfter(key, 500);
      return;
    }
    const meta = metadataOf(job);
    const spec = isObject(job['spec']) ? job['spec'] : {};
    const previous = isObject(job['status']) ? job['status'] : {};
    const parallelism = numberOr(spec['parallelism'], 1);
    const completions = typeof spec['completions'] === 'number' ? spec['completions'] : undefined;
    const backoffLimit = numberOr(spec['backoffLimit'], 6);
    const indexed = spec['completionMode'] === 'Indexed' && completions !== undefined;
    const suspended = spec['suspend'] === true;
    let startTime = typeof previous['startTime'] === 'string' ? previous['startTime'] : undefined;
    if (startTime === undefined && !suspended) startTime = now();

    const candidates = this.pods.list(ns).filter((p) => {
      const ref = controllerOf(p);
      return ref ? ref['uid'] === uid : !metadataOf(p)['deletionTimestamp'];
    });
    const pods = await claim(this.registry, this.podInfo, this.writer, job, spec['selector'], candidates);
    const uncountedStatus = isObject(previous['uncountedTerminatedPods']) ? previous['uncountedTerminatedPods'] : {};
    const uncounted: Uncounted = {
      succeeded: new Set(Array.isArray(uncountedStatus['succeeded']) ? uncountedStatus['succeeded'].map(String) : []),
      failed: new Set(Array.isArray(uncountedStatus['failed']) ? uncountedStatus['failed'].map(String) : []),
    };
    const activePods = pods.filter(isPodActive);
    let active = activePods.length;
    const ready = activePods.filter(isPodReady).length;
    const prevSucceeded = numberOr(previous['succeeded'], 0);
    const prevFailed = numberOr(previous['failed'], 0);
    const tracked = (p: JsonObject, set: Set<string>) => hasTrackingFinalizer(p) && !set.has(uidOf(p));
    const failedPod = (p: JsonObject) => phaseOf(p) === 'Failed' || (Boolean(metadataOf(p)['deletionTimestamp']) && phaseOf(p) !== 'Succeeded');
    const prevIndexes = indexed ? parseIndexes(previous['completedIndexes'], completions) : new Set<number>();
    const succeededIndexes = new Set(prevIndexes);
    if (indexed) {
      for (const p of pods) {
        const ix = completionIndexOf(p);
        if (phaseOf(p) === 'Succeeded' && hasTrackingFinalizer(p) && ix !== undefined && ix < completions) succeededIndexes.add(ix);
      }
    }
    const succeeded = indexed
      ? succeededIndexes.size
      : prevSucceeded + uncounted.succeeded.size + pods.filter((p) => phaseOf(p) === 'Succeeded' && tracked(p, uncounted.succeeded)).length;
    const failed = prevFailed + uncounted.failed.size + pods.filter((p) => failedPod(p) && tracked(p, uncounted.failed) && !uncounted.succeeded.has(uidOf(p))).length;

    const hasNewFailure = failed > prevFailed;
    const exceedsBackoff = hasNewFailure && active !== parallelism && failed > backoffLimit;
    let finished: JsonObject | undefined;
    if (exceedsBackoff || pastBackoffLimitOnFailure(spec, activePods, backoffLimit)) {
      finished = newCondition('Failed', 'True', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit');
    } else if (this.pastActiveDeadline(key, spec, startTime, suspended)) {
      finished = newCondition('Failed', 'True', 'DeadlineExceeded', 'Job was active longer than specified deadline');
    }

    let conditions = conditionsOf(job);
    if (finished) {
      const deleted = await this.deletePods(key, job, activePods);
      // Not finished until every pod it ran is gone or counted.
      if (deleted !== active) finished = undefined;
      active -= deleted;
    } else {
      let managed = false;
      if (!meta['deletionTimestamp']) {
        active = await this.manageJob(key, job, activePods, succeeded, succeededIndexes, { parallelism, completions, indexed, suspended });
        managed = true;
      }
      const complete = completions === undefined ? succeeded > 0 && active === 0 : succeeded >= completions && active === 0;
      if (complete) {
        finished = newCondition('Complete', 'True');
      } else if (managed) {
        const changed = suspended
          ? ensureCondition(conditions, 'Suspended', 'True', 'JobSuspended', 'Job suspended')
          : ensureCondition(conditions, 'Suspended', 'False', 'JobResumed', 'Job resumed');
        if (changed) {
          conditions = changed;
          this.events.record(job, 'Normal', suspended ? 'Suspended' : 'Resumed', suspended ? 'Job suspended' : 'Job resumed');
          // The deadline counts from the resume: a suspended Job is not active.
          if (!suspended) startTime = now();
        }
      }
    }

    // Finished pods (and, once the Job is finished, every pod) are recorded as uncounted, released, then counted.
    const release: JsonObject[] = [];
    const newUncounted: Uncounted = { succeeded: new Set(uncounted.succeeded), failed: new Set(uncounted.failed) };
    const newIndexes = new Set(prevIndexes);
    for (const p of pods) {
      if (!hasTrackingFinalizer(p)) continue;
      const podUid = uidOf(p);
      const terminating = Boolean(metadataOf(p)['deletionTimestamp']) || finished !== undefined;
      const phase = phaseOf(p);
      if (phase === 'Succeeded' || phase === 'Failed' || terminating) release.push(p);
      if (phase === 'Succeeded' && !uncounted.failed.has(podUid)) {
        if (indexed) {
          const ix = completionIndexOf(p);
          if (ix !== undefined && ix < completions) newIndexes.add(ix);
        } else newUncounted.succeeded.add(podUid);
      } else if (phase === 'Failed' || terminating) {
        const ix = completionIndexOf(p);
        if (!indexed || (ix !== undefined && ix < completions)) newUncounted.failed.add(podUid);
      }
    }
    const status = (counted: { succeeded: number; failed: number }, unc: Uncounted, indexes: Set<number>, extra: JsonObject = {}): JsonObject => {
      const s: JsonObject = {};
      if (conditions.length || extra['conditions']) s['conditions'] = [...conditions, ...((extra['conditions'] as JsonObject[] | undefined) ?? [])];
      if (startTime) s['startTime'] = startTime;
      if (extra['completionTime']) s['completionTime'] = extra['completionTime'];
      if (active) s['active'] = active;
      if (counted.succeeded) s['succeeded'] = counted.succeeded;
      if (counted.failed) s['failed'] = counted.failed;
      if (indexed && indexes.size) s['completedIndexes'] = formatIndexes(indexes);
      const u: JsonObject = {};
      if (unc.succeeded.size) u['succeeded'] = [...unc.succeeded];
      if (unc.failed.size) u['failed'] = [...unc.failed];
      s['uncountedTerminatedPods'] = u;
      s['ready'] = ready;
      return s;
    };
    let written = job;
    const grew = newUncounted.succeeded.size > uncounted.succeeded.size || newUncounted.failed.size > uncounted.failed.size || newIndexes.size > prevIndexes.size;
    if (grew && release.length) {
      // Recorded before any finalizer goes, so a pod deleted right after is still counted.
      const counted = { succeeded: indexed ? prevIndexes.size : prevSucceeded, failed: prevFailed };
      written = await this.writeStatus(written, status(counted, newUncounted, prevIndexes));
    }
    const released = new Set<string>();
    for (const p of release) if (await this.removeFinalizer(p, key)) released.add(uidOf(p));
    const stillHeld = new Set(pods.filter((p) => hasTrackingFinalizer(p) && !released.has(uidOf(p))).map(uidOf));
    const counted = { succeeded: indexed ? newIndexes.size : prevSucceeded, failed: prevFailed };
    for (const u of [...newUncounted.succeeded]) if (!stillHeld.has(u)) { newUncounted.succeeded.delete(u); if (!indexed) counted.succeeded++; }
    for (const u of [...newUncounted.failed]) if (!stillHeld.has(u)) { newUncounted.failed.delete(u); counted.failed++; }

    const extra: JsonObject = {};
    const allCounted = newUncounted.succeeded.size === 0 && newUncounted.failed.size === 0;
    if (finished && allCounted) {
      extra['conditions'] = [finished];
      if (finished['type'] === 'Complete') extra['completionTime'] = finished['lastTransitionTime'];
    }
    const next = status(counted, newUncounted, newIndexes, extra);
    if (!jsonEqual(next, isObject(written['status']) ? written['status'] : {})) await this.writeStatus(written, next);
    if (finished && allCounted) {
      if (finished['type'] === 'Complete') this.events.record(job, 'Normal', 'Completed', 'Job completed');
      else this.events.record(job, 'Warning', String(finished['reason']), String(finished['message']));
      this.deadlines.delete(key);
    }
    if (counted.succeeded > prevSucceeded) this.failureStreak.delete(key);
    else if (hasNewFailure && !finished) this.failureStreak.set(key, (this.failureStreak.get(key) ?? 0) + 1);
  }

  /** Whether activeDeadlineSeconds has passed since startTime; queues the check for when it will. */
  private pastActiveDeadline(key: string, spec: JsonObject, startTime: string | undefined, suspended: boolean): boolean {
    const seconds = spec['activeDeadlineSeconds'];
    if (typeof seconds !== 'number' || !startTime || suspended) return false;
    const due = Date.parse(startTime) + seconds * 1000;
    if (Date.now() >= due) return true;
    if (this.deadlines.get(key) !== due) {
      this.deadlines.set(key, due);
      this.queue.addAfter(key, due - Date.now() + 10);
    }
    return false;
  }

  /** Creates or deletes pods toward the wanted number of active ones; returns how many are active after. */
  private async manageJob(
    key: string, job: JsonObject, activePods: JsonObject[], succeeded: number, succeededIndexes: Set<number>,
    shape: { parallelism: number; completions: number | undefined; indexed: boolean; suspended: boolean },
  ): Promise<number> {
    const active = activePods.length;
    if (shape.suspended) return active - (await this.deletePods(key, job, removalOrder(activePods)));
    let want: number;
    if (shape.completions === undefined) want = succeeded > 0 ? active : shape.parallelism;
    else want = Math.max(0, Math.min(shape.completions - succeeded, shape.parallelism));
    const removeAtLeast = Math.max(0, active - want);
    let toDelete: JsonObject[] = [];
    if (shape.indexed) {
      toDelete = podsWithBadIndexes(activePods, succeededIndexes, shape.completions!);
      if (removeAtLeast > toDelete.length) {
        const rest = removalOrder(activePods.filter((p) => !toDelete.includes(p)));
        toDelete = [...toDelete, ...rest.slice(0, removeAtLeast - toDelete.length)];
      }
    } else toDelete = removalOrder(activePods).slice(0, removeAtLeast);
    if (toDelete.length) return active - (await this.deletePods(key, job, toDelete.slice(0, MAX_PER_SYNC)));
    if (active >= want) return active;
    let diff = Math.min(want - active, MAX_PER_SYNC);
    const meta = metadataOf(job);
    const spec = isObject(job['spec']) ? job['spec'] : {};
    let indexes: Array<number | undefined> = new Array<number | undefined>(diff).fill(undefined);
    if (shape.indexed) {
      indexes = firstPendingIndexes(activePods, succeededIndexes, diff, shape.completions!);
      diff = indexes.length;
    }
    let template = isObject(spec['template']) ? spec['template'] : {};
    if (shape.indexed) template = withCompletionIndexEnv(template);
    const created = await this.createPods(key, job, template, indexes, String(meta['name']));
    return active + created;
  }

  /** Creates pods in batches of 1, 2, 4…, stopping at the first batch with a failure (the reference's slow start). */
  private async createPods(key: string, job: JsonObject, template: JsonObject, indexes: Array<number | undefined>, jobName: string): Promise<number> {
    const namespace = String(metadataOf(job)['namespace']);
    let made = 0;
    let failure: unknown;
    for (let start = 0, size = 1; start < indexes.length && failure === undefined; start += size, size *= 2) {
      const batch = indexes.slice(start, start + size);
      await Promise.all(batch.map(async (ix) => {
        const pod = podFromTemplate(template, job, { generateName: ix === undefined ? `${jobName}-` : `${jobName}-${ix}-` });
        const pmeta = metadataOf(pod);
        pmeta['finalizers'] = [...(Array.isArray(pmeta['finalizers']) ? pmeta['finalizers'].filter((f) => f !== TRACKING_FINALIZER) : []), TRACKING_FINALIZER];
        if (ix !== undefined) {
          pmeta['annotations'] = { ...(isObject(pmeta['annotations']) ? pmeta['annotations'] : {}), [COMPLETION_INDEX_ANNOTATION]: String(ix) };
          (pod['spec'] as JsonObject)['hostname'] = `${jobName}-${ix}`;
        }
        try {
          const result = await this.registry.create(this.podInfo, namespace, pod, this.writer);
          const name = String(metadataOf(decodeJson(result.body))['name']);
          this.expectations.created(key, namespace, name);
          this.events.record(job, 'Normal', 'SuccessfulCreate', `Created pod: ${name}`);
          made++;
        } catch (err) {
          if (namespaceTerminating(err)) return;
          this.events.record(job, 'Warning', 'FailedCreate', `Error creating: ${messageOf(err)}`);
          failure ??= err;
        }
      }));
    }
    if (failure !== undefined) throw failure;
    return made;
  }

  /** Deletes pods; returns how many are gone or going. */
  private async deletePods(key: string, job: JsonObject, pods: JsonObject[]): Promise<number> {
    let deleted = 0;
    let failure: unknown;
    await Promise.all(pods.map(async (pod) => {
      const meta = metadataOf(pod);
      const namespace = String(meta['namespace']);
      const name = String(meta['name']);
      try {
        await this.registry.delete(this.podInfo, namespace, name, { preconditions: { uid: String(meta['uid']) }, user: this.writer.user });
        this.expectations.deleted(key, namespace, name);
        this.events.record(job, 'Normal', 'SuccessfulDelete', `Deleted pod: ${name}`);
        deleted++;
      } catch (err) {
        if (err instanceof StatusError && err.code === 404) {
          deleted++;
          return;
        }
        this.events.record(job, 'Warning', 'FailedDelete', `Error deleting: ${messageOf(err)}`);
        failure ??= err;
      }
    }));
    if (failure !== undefined && deleted === 0) throw failure;
    return deleted;
  }

  /** Removes the tracking finalizer; true once it is gone (or the pod is). */
  private async removeFinalizer(pod: JsonObject, owner?: string): Promise<boolean> {
    const meta = metadataOf(pod);
    const namespace = String(meta['namespace']);
    const name = String(meta['name']);
    try {
      const result = await this.registry.patch(this.podInfo, namespace, name, (current) => {
        const cmeta = metadataOf(current);
        if (cmeta['uid'] !== meta['uid']) throw new StatusError(409, 'Conflict', `pod ${name} was replaced`);
        const finalizers = Array.isArray(cmeta['finalizers']) ? cmeta['finalizers'].filter((f) => f !== TRACKING_FINALIZER) : [];
        const metadata: JsonObject = { ...cmeta, finalizers };
        if (finalizers.length === 0) delete metadata['finalizers'];
        return { ...current, metadata };
      }, undefined, this.writer);
      if (owner) this.expectations.written(owner, namespace, name, Number(metadataOf(decodeJson(result.body))['resourceVersion'] ?? 0));
      return true;
    } catch (err) {
      if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return err.code === 404;
      throw err;
    }
  }

  /** Writes the Job's status as computed from the version read (a conflict retries the sync). */
  private async writeStatus(job: JsonObject, status: JsonObject): Promise<JsonObject> {
    const meta = metadataOf(job);
    const read = meta['resourceVersion'];
    const result = await this.registry.patch(this.jobInfo, String(meta['namespace']), String(meta['name']), (current) => ({
      ...current, metadata: { ...metadataOf(current), resourceVersion: read }, status,
    }), 'status', this.writer);
    return decodeJson(result.body);
  }
}

/** OnFailure pods fail in place: their restarts count against backoffLimit. */
function pastBackoffLimitOnFailure(spec: JsonObject, activePods: JsonObject[], backoffLimit: number): boolean {
  const template = isObject(spec['template']) ? spec['template'] : {};
  const podSpec = isObject(template['spec']) ? template['spec'] : {};
  if (podSpec['restartPolicy'] !== 'OnFailure') return false;
  let restarts = 0;
  for (const p of activePods) if (phaseOf(p) === 'Running' || phaseOf(p) === 'Pending') restarts += restartsOf(p);
  return backoffLimit === 0 ? restarts > 0 : restarts >= backoffLimit;
}
