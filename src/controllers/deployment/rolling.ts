// The RollingUpdate strategy, one step per sync: grow the new ReplicaSet within maxSurge, then
// shrink old ones while at least replicas - maxUnavailable stay available (unhealthy old
// replicas first), and once complete, trim the history.
import type { JsonObject } from '../../json.js';
import { isComplete, rolloutStatus } from './progress.js';
import { type DeploymentContext, cleanupHistory, newReplicaCount, replicaSetsWithRevision, scaleIfNeeded, scaleReplicaSet, syncStatus } from './sync.js';
import { availableReplicas, byCreation, maxUnavailable, replicasOf, specReplicas, statusCount, sumOf } from './util.js';

/** What a rollout step leaves: the ReplicaSets as written, and whether anything was scaled. */
interface Step {
  scaled: boolean;
  list: JsonObject[];
}

/** Grows (or trims) the new ReplicaSet toward the Deployment's replicas within maxSurge. */
async function reconcileNew(ctx: DeploymentContext, d: JsonObject, all: JsonObject[], newRS: JsonObject): Promise<{ scaled: boolean; rs: JsonObject }> {
  if (replicasOf(newRS) === replicasOf(d)) return { scaled: false, rs: newRS };
  if (replicasOf(newRS) > replicasOf(d)) return scaleReplicaSet(ctx, newRS, replicasOf(d), d);
  return scaleIfNeeded(ctx, newRS, newReplicaCount(d, all, newRS), d);
}

/** Shrinks old ReplicaSets as far as availability allows. */
async function reconcileOld(ctx: DeploymentContext, d: JsonObject, oldRSs: JsonObject[], newRS: JsonObject): Promise<Step> {
  const oldCount = sumOf(oldRSs, specReplicas);
  if (oldCount === 0) return { scaled: false, list: oldRSs };
  const all = [...oldRSs, newRS];
  const minAvailable = replicasOf(d) - maxUnavailable(d);
  const newUnavailable = replicasOf(newRS) - statusCount(newRS, 'availableReplicas');
  const maxScaledDown = sumOf(all, specReplicas) - minAvailable - newUnavailable;
  if (maxScaledDown <= 0) return { scaled: false, list: oldRSs };
  const list = [...oldRSs].sort(byCreation);
  let cleaned = 0;
  // Unhealthy replicas of old ReplicaSets first: removing them costs no availability.
  for (let i = 0; i < list.length && cleaned < maxScaledDown; i++) {
    const rs = list[i]!;
    const unhealthy = replicasOf(rs) - statusCount(rs, 'availableReplicas');
    if (replicasOf(rs) === 0 || unhealthy <= 0) continue;
    const down = Math.min(maxScaledDown - cleaned, unhealthy);
    list[i] = (await scaleReplicaSet(ctx, rs, replicasOf(rs) - down, d)).rs;
    cleaned += down;
  }
  // Then available ones, while the minimum stays available.
  const availableNow = sumOf([...list, newRS], availableReplicas);
  const total = availableNow - minAvailable;
  let down = 0;
  for (let i = 0; i < list.length && total > 0 && down < total; i++) {
    const rs = list[i]!;
    if (replicasOf(rs) === 0) continue;
    const n = Math.min(replicasOf(rs), total - down);
    list[i] = (await scaleReplicaSet(ctx, rs, replicasOf(rs) - n, d)).rs;
    down += n;
  }
  return { scaled: cleaned + down > 0, list };
}

export async function rolloutRolling(ctx: DeploymentContext, d: JsonObject, list: JsonObject[]): Promise<void> {
  const r = await replicaSetsWithRevision(ctx, d, list, true);
  let newRS = r.newRS!;
  d = r.d;
  const grown = await reconcileNew(ctx, d, [...r.oldRSs, newRS], newRS);
  newRS = grown.rs;
  if (grown.scaled) {
    await syncStatus(ctx, d, [...r.oldRSs, newRS], newRS, rolloutStatus(d, [...r.oldRSs, newRS], newRS));
    return;
  }
  const shrunk = await reconcileOld(ctx, d, r.oldRSs, newRS);
  const all = [...shrunk.list, newRS];
  if (!shrunk.scaled && isComplete(d, rolloutStatus(d, all, newRS))) await cleanupHistory(ctx, d, shrunk.list);
  await syncStatus(ctx, d, all, newRS, rolloutStatus(d, all, newRS));
}
