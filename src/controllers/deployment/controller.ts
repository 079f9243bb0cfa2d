// The deployment controller: each Deployment's ReplicaSets (claimed by selector, named by
// pod-template hash) rolled toward its template by its strategy, scaled, paused and resumed, its
// history trimmed and its status and conditions kept, as kube-controller-manager 1.25's.
// ReplicaSets are found through an in-memory index by controller uid, never by listing.
import { convertLabelSelector, type SelectorMatcher } from '../../api/label-selector-object.js';
import { metadataOf } from '../../registry/objects.js';
import type { Informer, ObjectVersion, Subscription } from '../../registry/informers.js';
import type { Registry } from '../../registry/store.js';
import { type JsonObject } from '../../json.js';
import { EventRecorder } from '../kit/events.js';
import { claim } from '../kit/owned.js';
import { WorkQueue, keyOf, splitKey } from '../kit/work-queue.js';
import { controllerWriter } from '../kit/writer.js';
import { OwnerIndex } from '../owner-index.js';
import { PAUSED, PROGRESSING, RESUMED, TIMED_OUT, conditionOf, newCondition, progressDeadline, requeueAfter, setCondition } from './progress.js';
import { rolloutRecreate } from './recreate.js';
import { rolloutRolling } from './rolling.js';
import { type DeploymentContext, isScalingEvent, replicaSetsWithRevision, syncScaling, syncStatus, updateDeploymentStatus } from './sync.js';
import { isRecreate, specOf, statusOf } from './util.js';

interface Known {
  key: string;
  matcher: SelectorMatcher | undefined;
}

export class DeploymentController {
  private readonly writer = controllerWriter('deployment-controller');
  private readonly events: EventRecorder;
  private readonly queue: WorkQueue;
  private readonly replicaSets = new OwnerIndex();
  private readonly deployments = new Map<string, Known>();
  private readonly deploymentsOfNamespace = new Map<string, Set<string>>();
  private readonly subscriptions: Subscription[] = [];
  private ctx!: DeploymentContext;
  private informer!: Informer;
  private rsInformer!: Informer;

  constructor(private readonly registry: Registry) {
    this.events = new EventRecorder(registry, 'deployment-controller', this.writer);
    this.queue = new WorkQueue((key) => this.sync(key), {
      workers: 8,
      onError: (key, err) => console.error(`deployment-controller: ${key}:`, err),
    });
  }

  async start(): Promise<void> {
    const deploymentInfo = this.registry.definitions.lookup('apps', 'v1', 'deployments');
    const rsInfo = this.registry.definitions.lookup('apps', 'v1', 'replicasets');
    if (!deploymentInfo || !rsInfo) return;
    this.ctx = { registry: this.registry, writer: this.writer, events: this.events, rsInfo, deploymentInfo };
    this.informer = await this.registry.informer(deploymentInfo);
    this.rsInformer = await this.registry.informer(rsInfo);
    this.subscriptions.push(this.rsInformer.subscribe({
      added: (o) => this.replicaSetChanged(o),
      updated: (o) => this.replicaSetChanged(o),
      deleted: (o) => this.replicaSetDeleted(o),
    }));
    this.subscriptions.push(this.informer.subscribe({
      added: (o) => this.deploymentChanged(o),
      updated: (o) => this.deploymentChanged(o),
      deleted: (o) => this.deploymentDeleted(o),
    }));
  }

  stop(): void {
    for (const s of this.subscriptions) s.stop();
    this.queue.stop();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  // ---- events ----

  private deploymentChanged(o: ObjectVersion): void {
    const d = o.object;
    const uid = String(metadataOf(d)['uid']);
    const namespace = o.namespace ?? '';
    const converted = convertLabelSelector(specOf(d)['selector']);
    const key = keyOf(namespace, o.name);
    this.deployments.set(uid, { key, matcher: 'error' in converted || converted.empty ? undefined : converted });
    let set = this.deploymentsOfNamespace.get(namespace);
    if (!set) this.deploymentsOfNamespace.set(namespace, (set = new Set()));
    set.add(uid);
    this.queue.add(key);
  }

  private deploymentDeleted(o: ObjectVersion): void {
    const uid = String(metadataOf(o.object)['uid']);
    this.deployments.delete(uid);
    this.deploymentsOfNamespace.get(o.namespace ?? '')?.delete(uid);
  }

  private replicaSetChanged(o: ObjectVersion): void {
    const namespace = o.namespace ?? '';
    const rs = o.object;
    const before = this.replicaSets.set(namespace, o.name, rs);
    const uid = this.replicaSets.ownerOf(namespace, o.name);
    const owner = uid ? this.deployments.get(uid) : undefined;
    if (owner) this.queue.add(owner.key);
    else if (!uid) {
      const labels = (metadataOf(rs)['labels'] ?? {}) as Record<string, string>;
      for (const d of this.deploymentsOfNamespace.get(namespace) ?? []) {
        const known = this.deployments.get(d);
        if (known?.matcher?.matches(labels)) this.queue.add(known.key);
      }
    }
    if (before && before !== uid) {
      const former = this.deployments.get(before);
      if (former) this.queue.add(former.key);
    }
  }

  private replicaSetDeleted(o: ObjectVersion): void {
    const formerOwner = this.replicaSets.remove(o.namespace ?? '', o.name);
    const owner = formerOwner ? this.deployments.get(formerOwner) : undefined;
    if (owner) this.queue.add(owner.key);
  }

  // ---- sync ----

  private async sync(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const ns = namespace ?? '';
    let d = this.informer.get(ns, name);
    if (!d) return;
    d['apiVersion'] ??= 'apps/v1';
    d['kind'] ??= 'Deployment';
    const meta = metadataOf(d);
    const spec = specOf(d);
    const converted = convertLabelSelector(spec['selector']);
    if (!('error' in converted) && converted.empty) {
      // As the reference: a Deployment selecting every pod is told so and left alone.
      this.events.record(d, 'Warning', 'SelectingAll', 'This deployment is selecting all pods. A non-empty selector is required.');
      if (Number(statusOf(d)['observedGeneration'] ?? 0) < Number(meta['generation'] ?? 0)) {
        await updateDeploymentStatus(this.ctx, { ...d, status: { ...statusOf(d), observedGeneration: meta['generation'] } });
      }
      return;
    }
    if ('error' in converted) return;
    const list = await this.claimReplicaSets(d, ns);
    if (meta['deletionTimestamp']) {
      const r = await replicaSetsWithRevision(this.ctx, d, list, false);
      await syncStatus(this.ctx, r.d, [...r.oldRSs, ...(r.newRS ? [r.newRS] : [])], r.newRS);
      return;
    }
    d = await this.checkPaused(d);
    if (specOf(d)['paused'] === true) {
      await syncScaling(this.ctx, d, list);
      return;
    }
    const probe = await replicaSetsWithRevision(this.ctx, d, list, false);
    d = probe.d;
    // The ReplicaSets as the probe left them (it may have written the new one's revision).
    const current = [...probe.oldRSs, ...(probe.newRS ? [probe.newRS] : [])];
    if (isScalingEvent(d, probe)) {
      await syncScaling(this.ctx, d, current);
      return;
    }
    if (isRecreate(d)) await rolloutRecreate(this.ctx, d, current);
    else await rolloutRolling(this.ctx, d, current);
    // The progress deadline passes with no event to tell: look again then.
    const latest = this.informer.get(ns, name);
    if (latest) {
      const after = requeueAfter(latest, statusOf(latest));
      if (after !== undefined) this.queue.addAfter(key, after);
    }
  }

  /** The ReplicaSets it controls (adopting matching orphans, releasing those no longer matching). */
  private async claimReplicaSets(d: JsonObject, ns: string): Promise<JsonObject[]> {
    const uid = String(metadataOf(d)['uid']);
    const candidates: JsonObject[] = [];
    for (const rsKey of this.replicaSets.owned(uid)) {
      const rs = this.rsInformer.get(ns, splitKey(rsKey).name);
      if (rs) candidates.push(rs);
    }
    for (const rsName of this.replicaSets.orphansOf(ns)) {
      const rs = this.rsInformer.get(ns, rsName);
      if (rs) candidates.push(rs);
    }
    const claimed = await claim(this.registry, this.ctx.rsInfo, this.writer, d, specOf(d)['selector'], candidates);
    for (const rs of claimed) {
      rs['apiVersion'] ??= 'apps/v1';
      rs['kind'] ??= 'ReplicaSet';
    }
    return claimed;
  }

  /** The Progressing condition says "paused" while paused and "resumed" after (unless timed out). */
  private async checkPaused(d: JsonObject): Promise<JsonObject> {
    if (progressDeadline(d) === undefined) return d;
    const cond = conditionOf(statusOf(d), PROGRESSING);
    if (cond?.['reason'] === TIMED_OUT) return d;
    const paused = specOf(d)['paused'] === true;
    const pausedCond = cond?.['reason'] === PAUSED;
    if (paused === pausedCond) return d;
    const status = { ...statusOf(d) };
    setCondition(status, paused
      ? newCondition(PROGRESSING, 'Unknown', PAUSED, 'Deployment is paused')
      : newCondition(PROGRESSING, 'Unknown', RESUMED, 'Deployment is resumed'));
    return updateDeploymentStatus(this.ctx, { ...d, status });
  }
}

