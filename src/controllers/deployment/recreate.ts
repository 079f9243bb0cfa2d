// The Recreate strategy: every old ReplicaSet to zero, then — once none of their pods is left —
// the new ReplicaSet created (or found) and scaled to the Deployment's replicas.
import type { JsonObject } from '../../json.js';
import { isComplete, rolloutStatus } from './progress.js';
import { type DeploymentContext, cleanupHistory, replicaSetsWithRevision, scaleIfNeeded, syncStatus } from './sync.js';
import { replicasOf, statusCount } from './util.js';

export async function rolloutRecreate(ctx: DeploymentContext, d: JsonObject, list: JsonObject[]): Promise<void> {
  let r = await replicaSetsWithRevision(ctx, d, list, false);
  d = r.d;
  const all = () => [...r.oldRSs, ...(r.newRS ? [r.newRS] : [])];
  let scaledDown = false;
  for (let i = 0; i < r.oldRSs.length; i++) {
    const rs = r.oldRSs[i]!;
    if (replicasOf(rs) === 0) continue;
    const result = await scaleIfNeeded(ctx, rs, 0, d);
    r.oldRSs[i] = result.rs;
    scaledDown ||= result.scaled;
  }
  // Old pods still running (as their ReplicaSets count them): wait for their status to drop to zero.
  if (scaledDown || r.oldRSs.some((rs) => statusCount(rs, 'replicas') > 0)) {
    await syncStatus(ctx, d, all(), r.newRS, rolloutStatus(d, all(), r.newRS));
    return;
  }
  if (!r.newRS) {
    r = await replicaSetsWithRevision(ctx, d, r.oldRSs, true);
    d = r.d;
  }
  const grown = await scaleIfNeeded(ctx, r.newRS!, replicasOf(d), d);
  r.newRS = grown.rs;
  if (isComplete(d, rolloutStatus(d, all(), r.newRS))) await cleanupHistory(ctx, d, r.oldRSs);
  await syncStatus(ctx, d, all(), r.newRS, rolloutStatus(d, all(), r.newRS));
}
