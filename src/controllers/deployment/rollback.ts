// Revisions: each new template gets the next revision number; a rollback (kubectl rollout undo
// puts an old ReplicaSet's template back on the Deployment) makes that old ReplicaSet the new one
// again with the next revision, its former revisions listed in revision-history.
import { metadataOf } from '../../registry/objects.js';
import type { JsonObject } from '../../json.js';
import { REVISION, REVISION_HISTORY, annotationsOf, revisionOf } from './util.js';

export function maxRevision(list: JsonObject[]): number {
  return list.reduce((m, rs) => Math.max(m, revisionOf(rs)), 0);
}

/**
 * Gives `rs` the revision `revision` when it has a lower one (its old one goes to revision-history,
 * as the reference records rollbacks); whether it changed.
 */
export function setRevision(rs: JsonObject, revision: number): boolean {
  const annotations: Record<string, string> = { ...annotationsOf(rs) };
  const old = annotations[REVISION];
  const oldNumber = Number(old ?? '0');
  if (old !== undefined && Number.isFinite(oldNumber) && oldNumber >= revision) return false;
  annotations[REVISION] = String(revision);
  if (old !== undefined && old !== '') {
    const history = annotations[REVISION_HISTORY];
    annotations[REVISION_HISTORY] = history ? `${history},${old}` : old;
  }
  metadataOf(rs)['annotations'] = annotations;
  return true;
}

/** The Deployment's revision annotation follows its new ReplicaSet's; whether it changed. */
export function setDeploymentRevision(d: JsonObject, revision: string): boolean {
  const annotations: Record<string, string> = { ...annotationsOf(d) };
  if (annotations[REVISION] === revision) return false;
  annotations[REVISION] = revision;
  metadataOf(d)['annotations'] = annotations;
  return true;
}
