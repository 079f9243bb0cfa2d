// ControllerRevisions, as the reference's history package keeps them for StatefulSets and
// DaemonSets: a revision's `data` is a patch that replaces the owner's pod template, its name is
// `<owner>-<hash>`, equal revisions are reused (renumbered when an older one comes back), and the
// oldest revisions no pod uses are removed beyond revisionHistoryLimit.
import { StatusError } from '../../errors.js';
import { metadataOf } from '../../registry/objects.js';
import type { ResourceInfo } from '../../registry/definitions.js';
import type { Registry, WriteContext } from '../../registry/store.js';
import { type JsonObject, decodeJson, isObject, jsonEqual, copyJson } from '../../json.js';
import { fnv32, safeEncode } from './hash.js';
import { controllerReference } from './owned.js';

/** The label StatefulSets put on their revisions (DaemonSets use `controller-revision-hash`). */
export const REVISION_HASH_LABEL = 'controller.kubernetes.io/hash';
/** The label on pods (and DaemonSets' revisions) naming the revision a pod was made from. */
export const POD_REVISION_LABEL = 'controller-revision-hash';

/**
 * JSON as Go's encoding/json writes a decoded `map[string]interface{}`: keys sorted by their
 * bytes, `<`, `>`, `&`, U+2028 and U+2029 escaped, control characters as \u00XX.
 */
export function goMapJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return goString(value);
  if (typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(goMapJson).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).filter((k) => obj[k] !== undefined).sort(compareBytes);
  return `{${keys.map((k) => `${goString(k)}:${goMapJson(obj[k])}`).join(',')}}`;
}

function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function goString(text: string): string {
  let out = '"';
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || ch === '<' || ch === '>' || ch === '&' || c === 0x2028 || c === 0x2029) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else if (c >= 0xd800 && c <= 0xdfff) out += '\ufffd';
    else out += ch;
  }
  return `${out}"`;
}

/**
 * The patch the reference stores as a revision's data: the owner's pod template with
 * `"$patch":"replace"`, under spec. The template's metadata carries `creationTimestamp: null`, as a
 * Go ObjectMeta always does.
 */
export function templatePatch(owner: JsonObject): JsonObject {
  const spec = isObject(owner['spec']) ? owner['spec'] : {};
  const template = copyJson(isObject(spec['template']) ? spec['template'] : {});
  const metadata = isObject(template['metadata']) ? template['metadata'] : {};
  if (!('creationTimestamp' in metadata)) metadata['creationTimestamp'] = null;
  template['metadata'] = metadata;
  template['$patch'] = 'replace';
  return { spec: { template } };
}

/** A StatefulSet revision's hash: FNV-32 of the data's bytes and the collision count's decimal text. */
export function revisionHash(data: JsonObject, collisionCount?: number): string {
  let text = goMapJson(data);
  if (collisionCount !== undefined) text += String(collisionCount);
  return safeEncode(String(fnv32(Buffer.from(text))));
}

/** `<prefix>-<hash>`, the prefix cut to 223 characters so the name stays valid. */
export function revisionName(prefix: string, hash: string): string {
  return `${prefix.slice(0, 223)}-${hash}`;
}

/** The template a revision's data carries (without `$patch`). */
export function templateOf(revision: JsonObject): JsonObject {
  const data = isObject(revision['data']) ? revision['data'] : {};
  const spec = isObject(data['spec']) ? data['spec'] : {};
  const template = copyJson(isObject(spec['template']) ? spec['template'] : {});
  delete template['$patch'];
  return template;
}

export function revisionNumber(revision: JsonObject): number {
  return Number(revision['revision'] ?? 0);
}

/** Oldest first: by revision number, then creation time, then name. */
export function sortRevisions(revisions: JsonObject[]): JsonObject[] {
  const created = (r: JsonObject) => String(metadataOf(r)['creationTimestamp'] ?? '');
  const name = (r: JsonObject) => String(metadataOf(r)['name']);
  return [...revisions].sort((a, b) => revisionNumber(a) - revisionNumber(b) || created(a).localeCompare(created(b)) || name(a).localeCompare(name(b)));
}

/** The next revision number after the newest. */
export function nextRevisionNumber(revisions: JsonObject[]): number {
  return revisions.reduce((max, r) => Math.max(max, revisionNumber(r)), 0) + 1;
}

/** Revisions whose data equals `data`. */
export function equalRevisions(revisions: JsonObject[], data: JsonObject): JsonObject[] {
  return revisions.filter((r) => jsonEqual(r['data'], data));
}

export interface RevisionDraft {
  owner: JsonObject;
  data: JsonObject;
  revision: number;
  labels: Record<string, string>;
  annotations?: Record<string, string>;
  /** The name's hash for a collision count. */
  hash: (collisionCount: number | undefined) => string;
  /** The label the hash is written to. */
  hashLabel: string;
}

/** The ControllerRevision object of a draft at a collision count. */
export function revisionObject(draft: RevisionDraft, collisionCount: number | undefined): JsonObject {
  const hash = draft.hash(collisionCount);
  const meta = metadataOf(draft.owner);
  const metadata: JsonObject = {
    name: revisionName(String(meta['name']), hash), namespace: meta['namespace'],
    labels: { ...draft.labels, [draft.hashLabel]: hash },
    ownerReferences: [controllerReference(draft.owner)],
  };
  if (draft.annotations && Object.keys(draft.annotations).length) metadata['annotations'] = { ...draft.annotations };
  return { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata, data: draft.data, revision: draft.revision };
}

/**
 * Creates the draft's revision. A revision of that name already there with the same data (and
 * owner) is returned as it is; with other data the collision count goes up and the name changes.
 */
export async function createRevision(
  registry: Registry, info: ResourceInfo, writer: WriteContext, draft: RevisionDraft, collisionCount: number,
): Promise<{ revision: JsonObject; collisionCount: number }> {
  for (let count = collisionCount; ; count++) {
    const obj = revisionObject(draft, count);
    const meta = metadataOf(obj);
    try {
      const created = await registry.create(info, String(meta['namespace']), obj, writer);
      return { revision: decodeJson(created.body), collisionCount: count };
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 409)) throw err;
      const existing = (await registry.informer(info)).get(String(meta['namespace']), String(meta['name']));
      if (existing && jsonEqual(existing['data'], draft.data)) return { revision: existing, collisionCount: count };
      if (!existing) throw err;
    }
  }
}

/** Gives an existing revision a new number (an older template come back). */
export async function renumberRevision(registry: Registry, info: ResourceInfo, writer: WriteContext, revision: JsonObject, number: number): Promise<JsonObject> {
  const meta = metadataOf(revision);
  const result = await registry.patch(info, String(meta['namespace']), String(meta['name']), (cur) => ({ ...cur, revision: number }), undefined, writer);
  return decodeJson(result.body);
}

/**
 * Removes the oldest revisions not in `live` (the names pods and the owner's status use) beyond
 * `limit`, as the reference's truncateHistory.
 */
export async function truncateHistory(
  registry: Registry, info: ResourceInfo, writer: WriteContext, revisions: JsonObject[], live: Set<string>, limit: number,
): Promise<void> {
  const dead = sortRevisions(revisions).filter((r) => !live.has(String(metadataOf(r)['name'])));
  for (const r of dead.slice(0, Math.max(0, dead.length - limit))) {
    const meta = metadataOf(r);
    try {
      await registry.delete(info, String(meta['namespace']), String(meta['name']), { preconditions: { uid: String(meta['uid']) }, user: writer.user });
    } catch (err) {
      if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
    }
  }
}
