// Checking one write against a namespace's quotas, as the reference's quota admission does: the
// quotas that track what the object charges (by status.hard, so only quotas the controller has
// seen) are charged the object's usage (on updates, only what grew); any quota that would go past
// a hard limit refuses the write. Pure: reading and updating the quotas is the caller's job.
import type { Operation } from '../api/operation.js';
import { inScopes, scopesOf, type Evaluator } from './evaluators.js';
import {
  addLists, exceededNames, listsEqual, mask, negativeNames, prettyPrint, removeZeros, resourceListOf, subtractNonNegative,
  type ResourceList,
} from './resource-list.js';
import { type JsonObject, isObject } from '../json.js';

/** Why a write is refused (the message after `… is forbidden: `). */
export class QuotaRefusal extends Error {}

export interface QuotaRequest {
  operation: Operation;
  object: JsonObject;
  oldObject?: JsonObject;
}

/** A quota whose status.used the write changes. */
export interface Charge {
  quota: JsonObject;
  used: ResourceList;
}

function status(quota: JsonObject): JsonObject {
  return isObject(quota['status']) ? quota['status'] : {};
}

export function nameOf(obj: JsonObject): string {
  const meta = obj['metadata'];
  return isObject(meta) && typeof meta['name'] === 'string' ? meta['name'] : '';
}

/** Every tracked resource of the quota has a recorded usage. */
function hasUsageStats(hard: ResourceList, used: ResourceList, tracked: string[]): boolean {
  return tracked.every((name) => !hard.has(name) || used.has(name));
}

/**
 * The new status.used of every quota the write changes, in the quotas' order; throws QuotaRefusal
 * when a quota refuses it.
 */
export function checkRequest(quotas: readonly JsonObject[], request: QuotaRequest, evaluator: Evaluator, now: number): Charge[] {
  const interesting: Array<{ quota: JsonObject; hard: ResourceList; used: ResourceList }> = [];
  for (const quota of quotas) {
    const hard = resourceListOf(status(quota)['hard']);
    const tracked = evaluator.matchingResources(hard.keys());
    if (tracked.length === 0 || !inScopes(evaluator, scopesOf(quota), request.object)) continue;
    const name = nameOf(quota);
    const missing = evaluator.constraints?.(tracked, request.object);
    if (missing) throw new QuotaRefusal(`failed quota: ${name}: ${missing}`);
    const used = resourceListOf(status(quota)['used']);
    if (!hasUsageStats(hard, used, tracked)) {
      throw new QuotaRefusal(`status unknown for quota: ${name}, resources: ${[...tracked].sort().join(',')}`);
    }
    interesting.push({ quota, hard, used });
  }

  let delta = evaluator.usage(request.object, now);
  const negative = negativeNames(delta);
  if (negative.length > 0) throw new QuotaRefusal(`quota usage is negative for resource(s): ${negative.sort().join(',')}`);
  if (request.operation === 'UPDATE' && request.oldObject) {
    // An update is charged only what it adds.
    delta = subtractNonNegative(delta, evaluator.usage(request.oldObject, now));
  }
  delta = removeZeros(delta);
  if (delta.size === 0 || interesting.length === 0) return [];

  const charges: Charge[] = [];
  for (const { quota, hard, used } of interesting) {
    const requested = mask(delta, hard.keys());
    const newUsed = addLists(used, requested);
    const exceeded = exceededNames(mask(newUsed, requested.keys()), hard);
    if (exceeded.length > 0) {
      throw new QuotaRefusal(`exceeded quota: ${nameOf(quota)}, requested: ${prettyPrint(mask(requested, exceeded))}, used: ${prettyPrint(mask(used, exceeded))}, limited: ${prettyPrint(mask(hard, exceeded))}`);
    }
    if (!listsEqual(used, newUsed)) charges.push({ quota, used: newUsed });
  }
  return charges;
}
