// The deployment controller's shared steps: writing ReplicaSets and the Deployment's status,
// finding (or creating) the new ReplicaSet and keeping revisions in step, scaling (proportionally
// across ReplicaSets during a rolling update), history cleanup and the status-only sync.
import { StatusError } from '../../errors.js';
import { metadataOf } from '../../registry/objects.js';
import type { ResourceInfo } from '../../registry/definitions.js';
import type { Registry, WriteContext } from '../../registry/store.js';
import { type JsonObject, decodeJson, isObject, jsonEqual, copyJson } from '../../json.js';
import type { EventRecorder } from '../kit/events.js';
import { podTemplateHash } from '../kit/hash.js';
import { controllerReference, isControlledBy } from '../kit/owned.js';
import {
  PROGRESSING, calculateStatus, conditionOf, newCondition, progressDeadline, setCondition,
} from './progress.js';
import { maxRevision, setDeploymentRevision, setRevision } from './rollback.js';
import {
  DESIRED_REPLICAS, HASH_LABEL, MAX_REPLICAS, REVISION, annotationsOf, byCreation, copyAnnotations, equalIgnoreHash, isRecreate,
  nameOf, replicasOf, revisionOf, rolloutBounds, setReplicaAnnotations, specOf, specReplicas, statusCount, statusOf, sumOf,
} from './util.js';

export interface DeploymentContext {
  registry: Registry;
  writer: WriteContext;
  events: EventRecorder;
  rsInfo: ResourceInfo;
  deploymentInfo: ResourceInfo;
}

/** Writes `next` over the stored object it was read as (a conflict when it changed meanwhile, as an Update). */
async function writeOver(ctx: DeploymentContext, info: ResourceInfo, next: JsonObject, subresource: string | undefined): Promise<JsonObject> {
  const meta = metadataOf(next);
  const result = await ctx.registry.patch(info, String(meta['namespace']), String(meta['name']), (current) => {
    const cmeta = metadataOf(current as JsonObject);
    if (cmeta['resourceVersion'] !== meta['resourceVersion'] || cmeta['uid'] !== meta['uid']) {
      throw new StatusError(409, 'Conflict', `Operation cannot be fulfilled on ${info.resource} "${String(meta['name'])}": the object has been modified; please apply your changes to the latest version and try again`);
    }
    return next;
  }, subresource, ctx.writer);
  return decodeJson(result.body);
}

export const updateReplicaSet = (ctx: DeploymentContext, rs: JsonObject): Promise<JsonObject> => writeOver(ctx, ctx.rsInfo, rs, undefined);

/** Writes the Deployment's status and annotations (the reference writes both through UpdateStatus). */
export async function updateDeploymentStatus(ctx: DeploymentContext, d: JsonObject): Promise<JsonObject> {
  const stored = await writeOver(ctx, ctx.deploymentInfo, d, 'status');
  stored['apiVersion'] ??= d['apiVersion'];
  stored['kind'] ??= d['kind'];
  return stored;
}

export interface ReplicaSets {
  newRS: JsonObject | undefined;
  oldRSs: JsonObject[];
}

/** The ReplicaSet whose template is the Deployment's (the oldest such), and the others. */
export function splitReplicaSets(d: JsonObject, list: JsonObject[]): ReplicaSets {
  const sorted = [...list].sort(byCreation);
  const newRS = sorted.find((rs) => equalIgnoreHash(specOf(rs)['template'], specOf(d)['template']));
  return { newRS, oldRSs: sorted.filter((rs) => rs !== newRS) };
}

/** The new ReplicaSet's replicas for the next step of a rollout. */
export function newReplicaCount(d: JsonObject, all: JsonObject[], newRS: JsonObject): number {
  if (isRecreate(d)) return replicasOf(d);
  const current = sumOf(all, specReplicas);
  const maxTotal = replicasOf(d) + rolloutBounds(d).surge;
  if (current >= maxTotal) return replicasOf(newRS);
  return replicasOf(newRS) + Math.min(maxTotal - current, replicasOf(d) - replicasOf(newRS));
}

/**
 * The new and old ReplicaSets, the new one's revision (and annotations) brought up to date and
 * the Deployment's revision following it; the new one created when `create` and it is missing.
 * Returns the Deployment as last written too.
 */
export async function replicaSetsWithRevision(ctx: DeploymentContext, d: JsonObject, list: JsonObject[], create: boolean): Promise<ReplicaSets & { d: JsonObject }> {
  const { newRS: existing, oldRSs } = splitReplicaSets(d, list);
  const newRevision = maxRevision(oldRSs) + 1;
  if (existing) {
    let rs = copyJson(existing);
    const changed = [copyAnnotations(d, rs), setRevision(rs, newRevision)].some(Boolean);
    const minReady = specOf(d)['minReadySeconds'] ?? 0;
    const minReadyChanged = (specOf(rs)['minReadySeconds'] ?? 0) !== minReady;
    if (minReadyChanged) rs['spec'] = { ...specOf(rs), minReadySeconds: minReady };
    if (changed || minReadyChanged) rs = await updateReplicaSet(ctx, rs);
    let needsUpdate = setDeploymentRevision(d, annotationsOf(rs)[REVISION] ?? String(newRevision));
    if (progressDeadline(d) !== undefined && !conditionOf(statusOf(d), PROGRESSING)) {
      const status = { ...statusOf(d) };
      setCondition(status, newCondition(PROGRESSING, 'True', 'FoundNewReplicaSet', `Found new replica set "${nameOf(rs)}"`));
      d['status'] = status;
      needsUpdate = true;
    }
    if (needsUpdate) d = await updateDeploymentStatus(ctx, d);
    return { newRS: rs, oldRSs, d };
  }
  if (!create) return { newRS: undefined, oldRSs, d };
  return createNewReplicaSet(ctx, d, oldRSs, newRevision);
}

async function createNewReplicaSet(ctx: DeploymentContext, d: JsonObject, oldRSs: JsonObject[], newRevision: number): Promise<ReplicaSets & { d: JsonObject }> {
  const dmeta = metadataOf(d);
  const spec = specOf(d);
  const collisionCount = typeof statusOf(d)['collisionCount'] === 'number' ? (statusOf(d)['collisionCount'] as number) : undefined;
  const hash = podTemplateHash(isObject(spec['template']) ? spec['template'] : {}, collisionCount);
  const template = copyJson(isObject(spec['template']) ? spec['template'] : {});
  const tmeta = isObject(template['metadata']) ? template['metadata'] : (template['metadata'] = {});
  tmeta['labels'] = { ...(isObject(tmeta['labels']) ? tmeta['labels'] : {}), [HASH_LABEL]: hash };
  const selector = copyJson(isObject(spec['selector']) ? spec['selector'] : {});
  selector['matchLabels'] = { ...(isObject(selector['matchLabels']) ? selector['matchLabels'] : {}), [HASH_LABEL]: hash };
  const name = `${nameOf(d)}-${hash}`;
  const rsSpec: JsonObject = { replicas: 0, selector, template };
  if (typeof spec['minReadySeconds'] === 'number' && spec['minReadySeconds']) rsSpec['minReadySeconds'] = spec['minReadySeconds'];
  const rs: JsonObject = {
    apiVersion: 'apps/v1', kind: 'ReplicaSet',
    metadata: { name, namespace: dmeta['namespace'], labels: { ...(tmeta['labels'] as JsonObject) }, ownerReferences: [controllerReference(d)] },
    spec: rsSpec,
  };
  const replicas = newReplicaCount(d, [...oldRSs, rs], rs);
  rsSpec['replicas'] = replicas;
  copyAnnotations(d, rs);
  setRevision(rs, newRevision);
  setReplicaAnnotations(d, rs);
  let created: JsonObject;
  let alreadyExisted = false;
  try {
    created = decodeJson((await ctx.registry.create(ctx.rsInfo, String(dmeta['namespace']), rs, ctx.writer)).body);
  } catch (err) {
    if (!(err instanceof StatusError && err.code === 409)) {
      if (progressDeadline(d) !== undefined) {
        const message = `Failed to create new replica set "${name}": ${err instanceof Error ? err.message : String(err)}`;
        const status = { ...statusOf(d) };
        setCondition(status, newCondition(PROGRESSING, 'False', 'ReplicaSetCreateError', message));
        ctx.events.record(d, 'Warning', 'ReplicaSetCreateError', message);
        d['status'] = status;
        await updateDeploymentStatus(ctx, d);
      }
      throw err;
    }
    // A ReplicaSet of that name exists: ours with this template (our informer was behind), or a collision.
    const found = decodeJson(await ctx.registry.get(ctx.rsInfo, String(dmeta['namespace']), name));
    if (!(isControlledBy(found, dmeta['uid']) && equalIgnoreHash(specOf(found)['template'], spec['template']))) {
      d['status'] = { ...statusOf(d), collisionCount: (collisionCount ?? 0) + 1 };
      await updateDeploymentStatus(ctx, d);
      throw new StatusError(409, 'Conflict', `found a hash collision for deployment "${nameOf(d)}" - bumping collisionCount`);
    }
    created = found;
    alreadyExisted = true;
  }
  if (!alreadyExisted && replicas > 0) ctx.events.record(d, 'Normal', 'ScalingReplicaSet', `Scaled up replica set ${name} to ${replicas}`);
  let needsUpdate = setDeploymentRevision(d, String(newRevision));
  if (!alreadyExisted && progressDeadline(d) !== undefined) {
    const status = { ...statusOf(d) };
    setCondition(status, newCondition(PROGRESSING, 'True', 'NewReplicaSetCreated', `Created new replica set "${name}"`));
    d['status'] = status;
    needsUpdate = true;
  }
  if (needsUpdate) d = await updateDeploymentStatus(ctx, d);
  return { newRS: created, oldRSs, d };
}

/** Sets a ReplicaSet's replicas (and its replica annotations), recording the scaling; the ReplicaSet as written. */
export async function scaleReplicaSet(ctx: DeploymentContext, rs: JsonObject, replicas: number, d: JsonObject): Promise<{ scaled: boolean; rs: JsonObject }> {
  const sizeChanged = replicasOf(rs) !== replicas;
  const next = copyJson(rs);
  const annotationsChanged = setReplicaAnnotations(d, next);
  if (!sizeChanged && !annotationsChanged) return { scaled: false, rs };
  const direction = replicasOf(rs) < replicas ? 'up' : 'down';
  next['spec'] = { ...specOf(next), replicas };
  const written = await updateReplicaSet(ctx, next);
  if (sizeChanged) ctx.events.record(d, 'Normal', 'ScalingReplicaSet', `Scaled ${direction} replica set ${nameOf(rs)} to ${replicas}`);
  return { scaled: sizeChanged, rs: written };
}

/** Scales only when the size differs. */
export async function scaleIfNeeded(ctx: DeploymentContext, rs: JsonObject, replicas: number, d: JsonObject): Promise<{ scaled: boolean; rs: JsonObject }> {
  if (replicasOf(rs) === replicas) return { scaled: false, rs };
  return scaleReplicaSet(ctx, rs, replicas, d);
}

const isActive = (rs: JsonObject | undefined): rs is JsonObject => rs !== undefined && replicasOf(rs) > 0;

/** The one ReplicaSet with replicas, or the newest when none has any; undefined when several have. */
function activeOrLatest(newRS: JsonObject | undefined, oldRSs: JsonObject[]): JsonObject | undefined {
  const newestFirst = [...oldRSs].sort(byCreation).reverse();
  const active = [newRS, ...newestFirst].filter(isActive);
  if (active.length === 0) return newRS ?? newestFirst[0];
  return active.length === 1 ? active[0] : undefined;
}

function maxReplicasAnnotation(rs: JsonObject): number | undefined {
  const v = Number(annotationsOf(rs)[MAX_REPLICAS]);
  return annotationsOf(rs)[MAX_REPLICAS] !== undefined && Number.isInteger(v) ? v : undefined;
}

/** How many of `toAdd` this ReplicaSet takes, in proportion to its share (the reference's GetProportion). */
function proportion(rs: JsonObject, d: JsonObject, toAdd: number, added: number): number {
  if (replicasOf(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  let fraction: number;
  if (replicasOf(d) === 0) fraction = -replicasOf(rs);
  else {
    const annotated = maxReplicasAnnotation(rs) ?? statusCount(d, 'replicas');
    fraction = annotated === 0 ? 0 : Math.round((replicasOf(rs) * (replicasOf(d) + rolloutBounds(d).surge)) / annotated) - replicasOf(rs);
  }
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

/** A scaling of the Deployment: the one active ReplicaSet follows, or all share the change in proportion. */
export async function scale(ctx: DeploymentContext, d: JsonObject, newRS: JsonObject | undefined, oldRSs: JsonObject[]): Promise<void> {
  const only = activeOrLatest(newRS, oldRSs);
  if (only) {
    await scaleIfNeeded(ctx, only, replicasOf(d), d);
    return;
  }
  const desired = (rs: JsonObject) => annotationsOf(rs)[DESIRED_REPLICAS];
  if (newRS && desired(newRS) === String(replicasOf(d)) && replicasOf(newRS) === replicasOf(d) && statusCount(newRS, 'availableReplicas') === replicasOf(d)) {
    for (const old of oldRSs.filter(isActive)) await scaleIfNeeded(ctx, old, 0, d);
    return;
  }
  if (isRecreate(d)) return;
  const all = [...oldRSs, newRS].filter(isActive);
  const allowed = replicasOf(d) > 0 ? replicasOf(d) + rolloutBounds(d).surge : 0;
  const toAdd = allowed - sumOf(all, specReplicas);
  // Larger first; ties: newer first when growing, older first when shrinking.
  all.sort((a, b) => replicasOf(b) - replicasOf(a) || (toAdd > 0 ? -byCreation(a, b) : byCreation(a, b)));
  const sizes = new Map<JsonObject, number>();
  let added = 0;
  for (const rs of all) {
    const p = toAdd !== 0 ? proportion(rs, d, toAdd, added) : 0;
    sizes.set(rs, replicasOf(rs) + p);
    added += p;
  }
  for (let i = 0; i < all.length; i++) {
    const rs = all[i]!;
    let size = sizes.get(rs)!;
    if (i === 0 && toAdd !== 0) size = Math.max(0, size + toAdd - added);
    await scaleReplicaSet(ctx, rs, size, d);
  }
}

/** Deletes the oldest scaled-down ReplicaSets beyond revisionHistoryLimit. */
export async function cleanupHistory(ctx: DeploymentContext, d: JsonObject, oldRSs: JsonObject[]): Promise<void> {
  const limit = specOf(d)['revisionHistoryLimit'];
  if (typeof limit !== 'number') return;
  const cleanable = oldRSs.filter((rs) => !metadataOf(rs)['deletionTimestamp']);
  const diff = cleanable.length - limit;
  if (diff <= 0) return;
  cleanable.sort((a, b) => revisionOf(a) - revisionOf(b) || byCreation(a, b));
  for (const rs of cleanable.slice(0, diff)) {
    const meta = metadataOf(rs);
    if (statusCount(rs, 'replicas') !== 0 || replicasOf(rs) !== 0 || Number(meta['generation'] ?? 0) > statusCount(rs, 'observedGeneration')) continue;
    try {
      await ctx.registry.delete(ctx.rsInfo, String(meta['namespace']), String(meta['name']), { preconditions: { uid: String(meta['uid']) }, user: ctx.writer.user });
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 404)) throw err;
    }
  }
}

/** Writes the status computed from the ReplicaSets when it differs. */
export async function syncStatus(ctx: DeploymentContext, d: JsonObject, all: JsonObject[], newRS: JsonObject | undefined, status = calculateStatus(d, all, newRS)): Promise<JsonObject> {
  if (jsonEqual(status, statusOf(d))) return d;
  return updateDeploymentStatus(ctx, { ...d, status });
}

/** A scaling event: a ReplicaSet with replicas wants a different count than the Deployment has now. */
export function isScalingEvent(d: JsonObject, rs: ReplicaSets): boolean {
  return [...rs.oldRSs, rs.newRS].filter(isActive).some((r) => {
    const desired = annotationsOf(r)[DESIRED_REPLICAS];
    return desired !== undefined && desired !== String(replicasOf(d));
  });
}

/** Scaling only (paused, or a scaling event), then history cleanup when paused, then status. */
export async function syncScaling(ctx: DeploymentContext, d: JsonObject, list: JsonObject[]): Promise<void> {
  const r = await replicaSetsWithRevision(ctx, d, list, false);
  await scale(ctx, r.d, r.newRS, r.oldRSs);
  if (specOf(d)['paused'] === true) await cleanupHistory(ctx, r.d, r.oldRSs);
  // Counts as they were read; the ReplicaSets' status changes bring the next sync.
  await syncStatus(ctx, r.d, [...r.oldRSs, ...(r.newRS ? [r.newRS] : [])], r.newRS);
}
