// The persistentvolume-binder (kube-controller-manager's PersistentVolumeController): binds claims
// to volumes, keeps both phases, releases volumes whose claims went and reclaims them by policy,
// and asks external provisioners for claims of a class. Each claim and each volume is synced on
// every change and every 15 s, as the reference's resync; a sync writes only what differs, so
// syncs repeat without writing. Events are those of `persistentvolume-controller`.
import { OPTIMISTIC_LOCK_MESSAGE, StatusError, conflict } from '../../errors.js';
import type { ResourceInfo } from '../../registry/definitions.js';
import type { Informer, ObjectVersion, Subscription } from '../../registry/informers.js';
import type { Registry } from '../../registry/store.js';
import { type JsonObject, decodeJson, isObject, jsonEqual } from '../../json.js';
import { EventRecorder, type EventType } from '../kit/events.js';
import { WorkQueue, keyOf, splitKey } from '../kit/work-queue.js';
import { controllerWriter } from '../kit/writer.js';
import { capacityOf, findBestMatch, unsatisfiedBy, volumeModeMismatch } from './matching.js';
import {
  ANN_BETA_STORAGE_PROVISIONER, ANN_BIND_COMPLETED, ANN_BOUND_BY_CONTROLLER, ANN_MIGRATED_TO, ANN_PROVISIONED_BY,
  ANN_SELECTED_NODE, ANN_STORAGE_PROVISIONER, type ClaimPhase, type VolumePhase, annotationsOf, claimClass, claimKey,
  claimRefOf, hasAnnotation, isDeleting, isVolumeBoundToClaim, nameOf, namespaceOf, phaseOf, referenceTo,
  resourceVersionOf, specOf, statusOf, uidOf, volumeName, withAnnotation, withoutAnnotation,
} from './objects.js';
import { deleteVolume, provisionerFor } from './plugins.js';
import { claimsUsedBy } from './pods.js';

export const PV_BINDER_COMPONENT = 'persistentvolume-controller';
const RESYNC_MS = 15_000;

export interface PersistentVolumeBinderOptions {
  /** How often every claim and volume is synced again (the reference's --pvclaimbinder-sync-period). */
  resyncMs?: number;
}

/** `value` set under `key` in `obj`, placed before the first of `before` present (Go's field order). */
function placed(obj: JsonObject, key: string, value: unknown, before: string[]): JsonObject {
  const out: JsonObject = {};
  let done = false;
  for (const [k, v] of Object.entries(obj)) {
    if (k === key) continue;
    if (!done && before.includes(k)) {
      out[key] = value;
      done = true;
    }
    out[k] = v;
  }
  if (!done) out[key] = value;
  return out;
}

const AFTER_CLAIM_REF = ['persistentVolumeReclaimPolicy', 'storageClassName', 'mountOptions', 'volumeMode', 'nodeAffinity'];
const AFTER_VOLUME_NAME = ['storageClassName', 'volumeMode', 'dataSource', 'dataSourceRef'];

export class PersistentVolumeBinder {
  private readonly writer = controllerWriter('persistent-volume-binder');
  private readonly events: EventRecorder;
  private readonly subscriptions: Subscription[] = [];
  private readonly claimQueue = new WorkQueue((key) => this.claimWork(key), { workers: 1 });
  private readonly volumeQueue = new WorkQueue((key) => this.volumeWork(key), { workers: 1 });
  private resync: NodeJS.Timeout | undefined;
  private claims!: Informer;
  private volumes!: Informer;
  private classes: Informer | undefined;
  private pods!: Informer;
  private claimInfo!: ResourceInfo;
  private volumeInfo!: ResourceInfo;

  constructor(private readonly registry: Registry, private readonly options: PersistentVolumeBinderOptions = {}) {
    this.events = new EventRecorder(registry, PV_BINDER_COMPONENT, this.writer);
  }

  async start(): Promise<void> {
    this.claimInfo = this.registry.definitions.lookup('', 'v1', 'persistentvolumeclaims')!;
    this.volumeInfo = this.registry.definitions.lookup('', 'v1', 'persistentvolumes')!;
    const classInfo = this.registry.definitions.lookup('storage.k8s.io', 'v1', 'storageclasses');
    this.claims = await this.registry.informer(this.claimInfo);
    this.volumes = await this.registry.informer(this.volumeInfo);
    this.pods = await this.registry.informer(this.registry.definitions.lookup('', 'v1', 'pods')!);
    if (classInfo) this.classes = await this.registry.informer(classInfo);

    const claimChanged = (c: ObjectVersion) => this.claimQueue.add(keyOf(c.namespace, c.name));
    this.subscriptions.push(this.claims.subscribe({
      added: claimChanged,
      updated: claimChanged,
      // A claim gone releases its volume now rather than at the next resync.
      deleted: (c) => {
        const name = volumeName(c.object);
        if (name) this.volumeQueue.add(name);
      },
    }));
    const volumeChanged = (v: ObjectVersion) => {
      this.volumeQueue.add(v.name);
      // Not the reference, which waits for its resync: a volume that may now be free is offered to waiting claims at once.
      const ref = claimRefOf(v.object);
      if (phaseOf(v.object) === 'Available' && (!ref || !ref.uid)) this.queueUnboundClaims();
    };
    this.subscriptions.push(this.volumes.subscribe({
      added: volumeChanged,
      updated: volumeChanged,
      deleted: (v) => {
        const ref = claimRefOf(v.object);
        if (ref) this.claimQueue.add(keyOf(ref.namespace, ref.name));
      },
    }));
    this.resync = setInterval(() => this.queueEverything(), this.options.resyncMs ?? RESYNC_MS);
    this.resync.unref();
  }

  stop(): void {
    if (this.resync) clearInterval(this.resync);
    for (const s of this.subscriptions) s.stop();
    this.claimQueue.stop();
    this.volumeQueue.stop();
  }

  /** Resolves once nothing is queued (tests). */
  async idle(): Promise<void> {
    await Promise.all([this.claimQueue.idle(), this.volumeQueue.idle()]);
  }

  private queueEverything(): void {
    for (const c of this.claims.list()) this.claimQueue.add(claimKey(c));
    for (const name of this.volumes.names()) this.volumeQueue.add(name);
  }

  private queueUnboundClaims(): void {
    for (const c of this.claims.list()) if (!hasAnnotation(c, ANN_BIND_COMPLETED)) this.claimQueue.add(claimKey(c));
  }

  // ---- work ----

  private async claimWork(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const claim = this.claims.get(namespace, name);
    if (claim) await this.guard(key, () => this.syncClaim(claim));
  }

  private async volumeWork(name: string): Promise<void> {
    const volume = this.volumes.get(undefined, name);
    if (volume) await this.guard(name, () => this.syncVolume(volume));
  }

  /**
   * A conflict (the cache was behind a write) is retried soon; any other error waits for the
   * next change or resync, as the reference's binder, so a claim it cannot handle costs nothing.
   */
  private async guard(key: string, sync: () => Promise<void>): Promise<void> {
    try {
      await sync();
    } catch (err) {
      if (err instanceof StatusError && err.code === 409) throw err;
      if (process.env['CAPSTAN_DEBUG_CONTROLLERS']) console.error(`${PV_BINDER_COMPONENT}: ${key}:`, err);
    }
  }

  // ---- claims ----

  private async syncClaim(claim: JsonObject): Promise<void> {
    if (!hasAnnotation(claim, ANN_BIND_COMPLETED)) await this.syncUnboundClaim(claim);
    else await this.syncBoundClaim(claim);
  }

  private async syncUnboundClaim(claim: JsonObject): Promise<void> {
    const requested = volumeName(claim);
    if (!requested) {
      const delayBinding = this.isDelayBinding(claim);
      const match = findBestMatch(claim, this.volumes.list(), delayBinding);
      if ('error' in match) throw new Error(`Error finding PV for claim "${claimKey(claim)}": ${match.error}`);
      if (match.volume) {
        await this.bind(match.volume, claim);
        return;
      }
      if (delayBinding && !hasAnnotation(claim, ANN_SELECTED_NODE)) {
        this.recordDelayBinding(claim);
      } else if (claimClass(claim) !== '') {
        await this.provisionClaim(claim);
        return;
      } else {
        this.record(claim, 'Normal', 'FailedBinding', 'no persistent volumes available for this claim and no storage class is set');
      }
      await this.updateClaimStatus(claim, 'Pending', undefined);
      return;
    }
    // The user asked for a particular volume.
    const volume = this.volumes.get(undefined, requested);
    if (!volume) {
      await this.updateClaimStatus(claim, 'Pending', undefined);
    } else if (!claimRefOf(volume)) {
      const why = unsatisfiedBy(volume, claim);
      if (why) {
        this.record(claim, 'Warning', 'VolumeMismatch', `Cannot bind to requested volume "${requested}": ${why}`);
        await this.updateClaimStatus(claim, 'Pending', undefined);
      } else {
        await this.bind(volume, claim);
      }
    } else if (isVolumeBoundToClaim(volume, claim)) {
      await this.bind(volume, claim);
    } else if (!hasAnnotation(claim, ANN_BOUND_BY_CONTROLLER)) {
      // Bound to another claim: wait for it to be freed.
      await this.updateClaimStatus(claim, 'Pending', undefined);
    } else {
      const ref = claimRefOf(volume)!;
      throw new Error(`Invalid binding of claim "${claimKey(claim)}" to volume "${requested}": volume already claimed by "${ref.namespace}/${ref.name}"`);
    }
  }

  private async syncBoundClaim(claim: JsonObject): Promise<void> {
    const name = volumeName(claim);
    if (!name) {
      await this.updateClaimStatusWithEvent(claim, 'Lost', 'ClaimLost', 'Bound claim has lost reference to PersistentVolume. Data on the volume is lost!');
      return;
    }
    const volume = this.volumes.get(undefined, name);
    if (!volume) {
      await this.updateClaimStatusWithEvent(claim, 'Lost', 'ClaimLost', 'Bound claim has lost its PersistentVolume. Data on the volume is lost!');
    } else if (!claimRefOf(volume) || claimRefOf(volume)!.uid === uidOf(claim)) {
      await this.bind(volume, claim);
    } else {
      await this.updateClaimStatusWithEvent(claim, 'Lost', 'ClaimMisbound', 'Two claims are bound to the same volume, this one is bound incorrectly');
    }
  }

  /** Whether the claim's class waits for a pod to be scheduled before binding. */
  private isDelayBinding(claim: JsonObject): boolean {
    const name = claimClass(claim);
    if (!name) return false;
    const cls = this.classes?.get(undefined, name);
    if (!cls) return false;
    const mode = cls['volumeBindingMode'];
    if (typeof mode !== 'string') throw new Error(`VolumeBindingMode not set for StorageClass "${name}"`);
    return mode === 'WaitForFirstConsumer';
  }

  private recordDelayBinding(claim: JsonObject): void {
    const waiting = this.pods.list(namespaceOf(claim))
      .filter((pod) => !specOf(pod)['nodeName'] && claimsUsedBy(pod).includes(nameOf(claim)))
      .map(nameOf)
      .sort();
    if (waiting.length === 0) this.record(claim, 'Normal', 'WaitForFirstConsumer', 'waiting for first consumer to be created before binding');
    else if (waiting.length === 1) this.record(claim, 'Normal', 'WaitForPodScheduled', `waiting for pod ${waiting[0]} to be scheduled`);
    else this.record(claim, 'Normal', 'WaitForPodScheduled', `waiting for pods ${waiting.join(',')} to be scheduled`);
  }

  /** A claim of a class and no volume: the class's provisioner is asked (by annotations) or its failure told. */
  private async provisionClaim(claim: JsonObject): Promise<void> {
    const className = claimClass(claim);
    const cls = this.classes?.get(undefined, className);
    if (!cls) {
      this.record(claim, 'Warning', 'ProvisioningFailed', `storageclass.storage.k8s.io "${className}" not found`);
      return;
    }
    const provisioner = provisionerFor(String(cls['provisioner'] ?? ''));
    if ('error' in provisioner) {
      this.record(claim, 'Warning', 'ProvisioningFailed', provisioner.error);
      return;
    }
    let current = claim;
    if (annotationsOf(claim)[ANN_STORAGE_PROVISIONER] !== provisioner.external) {
      const next = withAnnotation(withAnnotation(claim, ANN_BETA_STORAGE_PROVISIONER, provisioner.external), ANN_STORAGE_PROVISIONER, provisioner.external);
      current = await this.write(this.claimInfo, claim, () => next);
    }
    this.record(current, 'Normal', 'ExternalProvisioning',
      `waiting for a volume to be created, either by external provisioner "${provisioner.external}" or manually created by system administrator`);
  }

  // ---- volumes ----

  private async syncVolume(volume: JsonObject): Promise<void> {
    const ref = claimRefOf(volume);
    if (!ref || !ref.uid) {
      // Unused, or reserved for a claim that has not bound yet (its sync does that).
      await this.updateVolumePhase(volume, 'Available', '');
      return;
    }
    let claim = this.claims.get(ref.namespace, ref.name);
    if (!claim && phaseOf(volume) !== 'Released' && phaseOf(volume) !== 'Failed') {
      // The cache may be behind a claim just made: ask the store before releasing anything.
      claim = await this.registry.getObject(this.claimInfo, ref.namespace, ref.name);
    }
    if (claim && uidOf(claim) !== ref.uid) claim = undefined; // deleted and made again: not this claim
    if (!claim) {
      let released = volume;
      if (phaseOf(volume) !== 'Released' && phaseOf(volume) !== 'Failed') released = await this.updateVolumePhase(volume, 'Released', '');
      await this.reclaimVolume(released);
      return;
    }
    const bound = volumeName(claim);
    if (!bound) {
      if (volumeModeMismatch(claim, volume)) {
        this.record(volume, 'Warning', 'VolumeMismatch', `Cannot bind PersistentVolume to requested PersistentVolumeClaim "${nameOf(claim)}" due to incompatible volumeMode.`);
        this.record(claim, 'Warning', 'VolumeMismatch', `Cannot bind PersistentVolume "${nameOf(volume)}" to requested PersistentVolumeClaim due to incompatible volumeMode.`);
        return;
      }
      this.claimQueue.add(claimKey(claim));
    } else if (bound === nameOf(volume)) {
      await this.updateVolumePhase(volume, 'Bound', '');
    } else if (hasAnnotation(volume, ANN_PROVISIONED_BY) && specOf(volume)['persistentVolumeReclaimPolicy'] === 'Delete') {
      // Provisioned for this claim, which got another volume: not needed.
      let released = volume;
      if (phaseOf(volume) !== 'Released' && phaseOf(volume) !== 'Failed') released = await this.updateVolumePhase(volume, 'Released', '');
      await this.reclaimVolume(released);
    } else {
      await this.unbindVolume(volume);
    }
  }

  private async reclaimVolume(volume: JsonObject): Promise<void> {
    if (annotationsOf(volume)[ANN_MIGRATED_TO]) return; // a CSI driver's external provisioner reclaims it
    const policy = specOf(volume)['persistentVolumeReclaimPolicy'];
    if (policy === 'Retain') return;
    // Recycle (deprecated) runs a scrubber pod on a node; with none, the volume stays Released.
    if (policy === 'Recycle') return;
    if (policy === 'Delete') {
      await this.deleteReleasedVolume(volume);
      return;
    }
    await this.updateVolumePhaseWithEvent(volume, 'Failed', 'VolumeUnknownReclaimPolicy', 'Volume has unrecognized PersistentVolumeReclaimPolicy');
  }

  private async deleteReleasedVolume(volume: JsonObject): Promise<void> {
    const current = await this.registry.getObject(this.volumeInfo, undefined, nameOf(volume));
    if (!current || isDeleting(current) || !this.isVolumeReleased(current)) return;
    const outcome = deleteVolume(current);
    if ('error' in outcome) {
      await this.updateVolumePhaseWithEvent(current, 'Failed', 'VolumeFailedDelete', outcome.error);
      return;
    }
    if ('external' in outcome) return; // its provisioner deletes it
    await this.registry.delete(this.volumeInfo, undefined, nameOf(current), { user: this.writer.user });
  }

  /** Whether the volume's claim is gone (or bound elsewhere): only then is it reclaimed. */
  private isVolumeReleased(volume: JsonObject): boolean {
    const ref = claimRefOf(volume);
    if (!ref || !ref.uid) return false;
    const claim = this.claims.get(ref.namespace, ref.name);
    if (claim && uidOf(claim) === ref.uid) {
      const bound = volumeName(claim);
      return bound !== '' && bound !== nameOf(volume);
    }
    return true;
  }

  private async unbindVolume(volume: JsonObject): Promise<void> {
    let next: JsonObject;
    if (hasAnnotation(volume, ANN_BOUND_BY_CONTROLLER)) {
      const spec = { ...specOf(volume) };
      delete spec['claimRef'];
      next = { ...withoutAnnotation(volume, ANN_BOUND_BY_CONTROLLER), spec };
    } else {
      // Pre-bound by its author: keep the claim's name, drop only the uid.
      const ref = { ...(specOf(volume)['claimRef'] as JsonObject) };
      delete ref['uid'];
      next = { ...volume, spec: { ...specOf(volume), claimRef: ref } };
    }
    const written = await this.write(this.volumeInfo, volume, () => next);
    await this.updateVolumePhase(written, 'Available', '');
  }

  // ---- binding ----

  /** Volume to claim, volume Bound, claim to volume, claim Bound: each step written only if it changes something. */
  private async bind(volume: JsonObject, claim: JsonObject): Promise<void> {
    let v = await this.bindVolumeToClaim(volume, claim);
    v = await this.updateVolumePhase(v, 'Bound', '');
    const c = await this.bindClaimToVolume(claim, v);
    await this.updateClaimStatus(c, 'Bound', v);
  }

  private async bindVolumeToClaim(volume: JsonObject, claim: JsonObject): Promise<JsonObject> {
    const byController = !isVolumeBoundToClaim(volume, claim);
    const ref = claimRefOf(volume);
    let next = volume;
    if (!ref || ref.name !== nameOf(claim) || ref.namespace !== namespaceOf(claim) || ref.uid !== uidOf(claim)) {
      next = { ...next, spec: placed(specOf(next), 'claimRef', referenceTo(claim), AFTER_CLAIM_REF) };
    }
    if (byController && !hasAnnotation(next, ANN_BOUND_BY_CONTROLLER)) next = withAnnotation(next, ANN_BOUND_BY_CONTROLLER, 'yes');
    if (next === volume) return volume;
    return this.write(this.volumeInfo, volume, () => next);
  }

  private async bindClaimToVolume(claim: JsonObject, volume: JsonObject): Promise<JsonObject> {
    let next = claim;
    if (volumeName(claim) !== nameOf(volume)) {
      next = { ...next, spec: placed(specOf(next), 'volumeName', nameOf(volume), AFTER_VOLUME_NAME) };
      if (!hasAnnotation(next, ANN_BOUND_BY_CONTROLLER)) next = withAnnotation(next, ANN_BOUND_BY_CONTROLLER, 'yes');
    }
    if (!hasAnnotation(next, ANN_BIND_COMPLETED)) next = withAnnotation(next, ANN_BIND_COMPLETED, 'yes');
    if (next === claim) return claim;
    return this.write(this.claimInfo, claim, () => next);
  }

  // ---- status ----

  private async updateClaimStatus(claim: JsonObject, phase: ClaimPhase, volume: JsonObject | undefined): Promise<JsonObject> {
    const status = statusOf(claim);
    const next: JsonObject = { ...status };
    if (status['phase'] !== phase) next['phase'] = phase;
    if (!volume) {
      delete next['accessModes'];
      delete next['capacity'];
    } else {
      const modes = specOf(volume)['accessModes'];
      if (!jsonEqual(status['accessModes'], modes)) next['accessModes'] = modes;
      const capacity = specOf(volume)['capacity'];
      if (!isObject(capacity) || capacity['storage'] === undefined) throw new Error(`PersistentVolume "${nameOf(volume)}" is without a storage capacity`);
      const had = isObject(status['capacity']) ? status['capacity']['storage'] : undefined;
      if (had === undefined || capacityOf({ spec: { capacity: { storage: had } } }).cmp(capacityOf(volume)) !== 0) next['capacity'] = capacity;
    }
    if (jsonEqual(next, status)) return claim;
    return this.write(this.claimInfo, claim, (current) => ({ ...current, status: next }), 'status');
  }

  private async updateClaimStatusWithEvent(claim: JsonObject, phase: ClaimPhase, reason: string, message: string): Promise<void> {
    if (phaseOf(claim) === phase) return;
    const written = await this.updateClaimStatus(claim, phase, undefined);
    this.record(written, 'Warning', reason, message);
  }

  private async updateVolumePhase(volume: JsonObject, phase: VolumePhase, message: string): Promise<JsonObject> {
    if (phaseOf(volume) === phase) return volume;
    const status: JsonObject = { ...statusOf(volume), phase };
    if (message) status['message'] = message;
    else delete status['message'];
    return this.write(this.volumeInfo, volume, (current) => ({ ...current, status }), 'status');
  }

  private async updateVolumePhaseWithEvent(volume: JsonObject, phase: VolumePhase, reason: string, message: string): Promise<void> {
    if (phaseOf(volume) === phase) return;
    const written = await this.updateVolumePhase(volume, phase, message);
    this.record(written, 'Warning', reason, message);
  }

  // ---- writing ----

  /** An update of what this sync read: refused as a conflict when the object changed since (the reference's optimistic Update). */
  private async write(info: ResourceInfo, basis: JsonObject, change: (current: JsonObject) => JsonObject, subresource?: string): Promise<JsonObject> {
    const name = nameOf(basis);
    const namespace = info.namespaced ? namespaceOf(basis) : undefined;
    const expected = resourceVersionOf(basis);
    const result = await this.registry.patch(info, namespace, name, (current) => {
      if (resourceVersionOf(current) !== expected) throw conflict({ group: '', resource: info.resource }, name, OPTIMISTIC_LOCK_MESSAGE);
      return change(current);
    }, subresource, this.writer);
    return decodeJson(result.body);
  }

  private record(obj: JsonObject, type: EventType, reason: string, message: string): void {
    const isClaim = Boolean(namespaceOf(obj));
    this.events.record({ ...obj, apiVersion: 'v1', kind: isClaim ? 'PersistentVolumeClaim' : 'PersistentVolume' }, type, reason, message);
  }
}
