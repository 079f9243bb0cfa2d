// A DaemonSet's ControllerRevisions, as the reference's constructHistory: named by the pod-template
// hash (with the collision count), labelled `controller-revision-hash`, carrying the set's
// annotations; the current one is the revision of that hash (or equal data), duplicates go, and
// an older equal revision is renumbered to come after the newest.
import { StatusError } from '../../errors.js';
import { metadataOf } from '../../registry/objects.js';
import type { ResourceInfo } from '../../registry/definitions.js';
import type { Registry, WriteContext } from '../../registry/store.js';
import { type JsonObject, isObject, jsonEqual } from '../../json.js';
import { podTemplateHash } from '../kit/hash.js';
import {
  POD_REVISION_LABEL, type RevisionDraft, createRevision, nextRevisionNumber, renumberRevision, revisionNumber, sortRevisions, templatePatch,
} from '../kit/history.js';

export function templateOfSet(ds: JsonObject): JsonObject {
  const spec = isObject(ds['spec']) ? ds['spec'] : {};
  return isObject(spec['template']) ? spec['template'] : {};
}

export function collisionCountOf(ds: JsonObject): number | undefined {
  const status = isObject(ds['status']) ? ds['status'] : {};
  return typeof status['collisionCount'] === 'number' ? status['collisionCount'] : undefined;
}

/** The hash naming the DaemonSet's revision and labelling its pods: the reference's ComputeHash of the template. */
export function daemonRevisionHash(ds: JsonObject, collisionCount: number | undefined): string {
  return podTemplateHash(templateOfSet(ds), collisionCount);
}

export interface DaemonHistory {
  current: JsonObject;
  hash: string;
  collisionCount: number | undefined;
  /** Every revision left, oldest first. */
  all: JsonObject[];
}

export async function constructHistory(
  registry: Registry, info: ResourceInfo, writer: WriteContext, ds: JsonObject, owned: JsonObject[],
): Promise<DaemonHistory> {
  let collisionCount = collisionCountOf(ds);
  const hash = daemonRevisionHash(ds, collisionCount);
  const data = templatePatch(ds);
  const matches = (r: JsonObject) => ((metadataOf(r)['labels'] ?? {}) as Record<string, string>)[POD_REVISION_LABEL] === hash || jsonEqual(r['data'], data);
  let all = sortRevisions(owned);
  const equal = all.filter(matches);
  const max = all.reduce((m, r) => Math.max(m, revisionNumber(r)), 0);
  let current: JsonObject;
  if (equal.length === 0) {
    const draft: RevisionDraft = {
      owner: ds, data, revision: nextRevisionNumber(all),
      labels: { ...((metadataOf(templateOfSet(ds))['labels'] ?? {}) as Record<string, string>) },
      annotations: (metadataOf(ds)['annotations'] ?? undefined) as Record<string, string> | undefined,
      // The reference hashes the set's own collision count: none until a name has collided.
      hash: (count) => daemonRevisionHash(ds, collisionCount === undefined && count === 0 ? undefined : count), hashLabel: POD_REVISION_LABEL,
    };
    const made = await createRevision(registry, info, writer, draft, collisionCount ?? 0);
    // The reference only writes a collision count once a name has collided.
    if (made.collisionCount !== (collisionCount ?? 0)) collisionCount = made.collisionCount;
    current = made.revision;
    all = sortRevisions([...all, current]);
  } else {
    // The newest of the equal ones stays; the others are duplicates.
    current = equal[equal.length - 1]!;
    for (const dup of equal.slice(0, -1)) await deleteRevision(registry, info, writer, dup);
    all = all.filter((r) => !equal.includes(r) || r === current);
    if (revisionNumber(current) < max) {
      const renumbered = await renumberRevision(registry, info, writer, current, max + 1);
      all = sortRevisions(all.map((r) => (r === current ? renumbered : r)));
      current = renumbered;
    }
  }
  return { current, hash: ((metadataOf(current)['labels'] ?? {}) as Record<string, string>)[POD_REVISION_LABEL] ?? hash, collisionCount, all };
}

async function deleteRevision(registry: Registry, info: ResourceInfo, writer: WriteContext, revision: JsonObject): Promise<void> {
  const meta = metadataOf(revision);
  try {
    await registry.delete(info, String(meta['namespace']), String(meta['name']), { preconditions: { uid: String(meta['uid']) }, user: writer.user });
  } catch (err) {
    if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
  }
}
