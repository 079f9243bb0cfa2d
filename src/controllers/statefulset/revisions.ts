// A StatefulSet's current and update revisions, as the reference's getStatefulSetRevisions: the
// update revision is the set's template now (an equal revision reused, renumbered if older); the
// current revision is the one the status names, or the update revision when there is none.
import { metadataOf } from '../../registry/objects.js';
import type { ResourceInfo } from '../../registry/definitions.js';
import type { Registry, WriteContext } from '../../registry/store.js';
import { type JsonObject, isObject } from '../../json.js';
import {
  REVISION_HASH_LABEL, type RevisionDraft, createRevision, equalRevisions, nextRevisionNumber, renumberRevision,
  revisionHash, sortRevisions, templatePatch,
} from '../kit/history.js';

export interface SetRevisions {
  current: JsonObject;
  update: JsonObject;
  collisionCount: number;
  /** Every revision of the set after this step, oldest first. */
  all: JsonObject[];
}

export function draftOf(set: JsonObject, revision: number): RevisionDraft {
  const spec = isObject(set['spec']) ? set['spec'] : {};
  const template = isObject(spec['template']) ? spec['template'] : {};
  const labels = (metadataOf(template)['labels'] ?? {}) as Record<string, string>;
  const data = templatePatch(set);
  return {
    owner: set, data, revision, labels: { ...labels },
    annotations: (metadataOf(set)['annotations'] ?? undefined) as Record<string, string> | undefined,
    hash: (count) => revisionHash(data, count), hashLabel: REVISION_HASH_LABEL,
  };
}

export async function setRevisions(
  registry: Registry, info: ResourceInfo, writer: WriteContext, set: JsonObject, owned: JsonObject[],
): Promise<SetRevisions> {
  let all = sortRevisions(owned);
  const status = isObject(set['status']) ? set['status'] : {};
  let collisionCount = typeof status['collisionCount'] === 'number' ? status['collisionCount'] : 0;
  const draft = draftOf(set, nextRevisionNumber(all));
  const equal = equalRevisions(all, draft.data);
  let update: JsonObject;
  if (equal.length && equal[equal.length - 1] === all[all.length - 1]) {
    update = equal[equal.length - 1]!;
  } else if (equal.length) {
    const older = equal[equal.length - 1]!;
    update = await renumberRevision(registry, info, writer, older, draft.revision);
    all = sortRevisions(all.map((r) => (r === older ? update : r)));
  } else {
    const made = await createRevision(registry, info, writer, draft, collisionCount);
    update = made.revision;
    collisionCount = made.collisionCount;
    all = sortRevisions([...all.filter((r) => metadataOf(r)['name'] !== metadataOf(update)['name']), update]);
  }
  const current = all.find((r) => metadataOf(r)['name'] === status['currentRevision']) ?? update;
  return { current, update, collisionCount, all };
}
