// managedFields: decoding, encoding, and the ownership rules of updates and applies.

import { StatusError } from '../errors.js';
import { type GroupVersionKind, type SchemaNode, schemaFor } from '../api/schema.js';
import { PathSet, fieldPE, pathString } from './pathset.js';
import { compare, deepEqual, fieldSetOf, merge, prune, sharedZeroValue, tooDeep } from './typed.js';
import { typedPatchError } from './typecheck.js';
import { MAX_JSON_DEPTH } from './mergepatch.js';
import { isObject, now, copyJson } from '../json.js';

export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

export type { GroupVersionKind } from '../api/schema.js';

export interface UpdateOptions {
  subresource?: string;
  /** RFC 3339 time of the write (second precision); default: now. */
  now?: string;
  /**
   * Whether `status` is written only through the status subresource (then a main-resource
   * write never owns `status`, and a status write never owns `spec`). Default: the kind's
   * schema has a `status` field.
   */
  statusIsSubresource?: boolean;
  /**
   * The fields this write resets, owned by no writer (the reference's reset fields of the
   * endpoint's strategy), as paths of field names; replaces the status/spec rule above.
   */
  resetFields?: ReadonlyArray<readonly string[]>;
  /**
   * The object in another served version of its resource, by apiVersion (undefined when that
   * version cannot be reached): an entry written in another version is compared there, as the
   * reference's field manager converts for each entry. Absent: entries are compared as written.
   */
  inVersion?: (obj: Record<string, unknown>, apiVersion: string) => Record<string, unknown> | undefined;
}

export interface ApplyOptions extends UpdateOptions {
  force: boolean;
}

/** An entry as held while working: its identity fields, time (maybe absent) and set. */
interface Manager {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  subresource?: string;
  time?: string;
  set: PathSet;
}

type Managers = Map<string, Manager>;

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
/** Update entries kept before the oldest are folded into one (the reference's cap). */
const MAX_UPDATE_MANAGERS = 10;

function managerId(m: { manager: string; operation: string; apiVersion: string; subresource?: string }): string {
  // The reference identifies an entry by manager, operation, subresource, and (updates
  // only) apiVersion.
  return JSON.stringify([m.manager, m.operation, m.operation === 'Apply' ? '' : m.apiVersion, m.subresource ?? '']);
}

function apiVersionOf(gvk: GroupVersionKind): string {
  return gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
}

// ---------------------------------------------------------------------------------------
// Decoding and encoding

/** Decodes a managedFields list; throws on a malformed entry. */
function decode(list: unknown): Managers {
  const out: Managers = new Map();
  if (list === undefined || list === null) return out;
  if (!Array.isArray(list)) throw new Error('managedFields must be a list');
  for (const e of list) {
    if (!isObject(e)) throw new Error('managedFields entry must be an object');
    const manager = e.manager ?? '';
    const operation = e.operation ?? '';
    const apiVersion = e.apiVersion ?? '';
    const subresource = e.subresource ?? '';
    if (typeof manager !== 'string' || typeof apiVersion !== 'string' || typeof subresource !== 'string') throw new Error('bad entry');
    if (operation !== 'Apply' && operation !== 'Update' && operation !== '') throw new Error(`unknown operation ${String(operation)}`);
    if (e.fieldsType !== undefined && e.fieldsType !== 'FieldsV1' && e.fieldsType !== '') throw new Error('unknown fieldsType');
    if (e.time !== undefined && e.time !== null && typeof e.time !== 'string') throw new Error('bad time');
    const set = e.fieldsV1 === undefined || e.fieldsV1 === null ? new PathSet() : PathSet.fromFieldsV1(e.fieldsV1);
    const m: Manager = { manager, operation: (operation || 'Update') as Manager['operation'], apiVersion, set };
    if (subresource) m.subresource = subresource;
    if (typeof e.time === 'string') m.time = e.time;
    const id = managerId(m);
    const prev = out.get(id);
    if (prev) prev.set.addAll(set);
    else out.set(id, m);
  }
  return out;
}

function timeSeconds(t: string | undefined): number {
  if (!t) return 0;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

function encode(managers: Managers): ManagedFieldsEntry[] {
  const list = [...managers.values()].filter((m) => !m.set.empty());
  // As the reference sorts: operation, then time in seconds, then manager, apiVersion, subresource.
  list.sort((a, b) => {
    if (a.operation !== b.operation) return a.operation < b.operation ? -1 : 1;
    const ta = timeSeconds(a.time);
    const tb = timeSeconds(b.time);
    if (ta !== tb) return ta - tb;
    if (a.manager !== b.manager) return a.manager < b.manager ? -1 : 1;
    if (a.apiVersion !== b.apiVersion) return a.apiVersion < b.apiVersion ? -1 : 1;
    const sa = a.subresource ?? '';
    const sb = b.subresource ?? '';
    return sa < sb ? -1 : sa > sb ? 1 : 0;
  });
  return list.map((m) => {
    // An empty manager (no fieldManager, no User-Agent) is omitted, as Go's omitempty does.
    const e: Record<string, unknown> = m.manager ? { manager: m.manager, operation: m.operation, apiVersion: m.apiVersion } : { operation: m.operation, apiVersion: m.apiVersion };
    if (m.time !== undefined) e.time = m.time;
    e.fieldsType = 'FieldsV1';
    e.fieldsV1 = m.set.toFieldsV1();
    if (m.subresource) e.subresource = m.subresource;
    return e as unknown as ManagedFieldsEntry;
  });
}

function setManagedFields(obj: Record<string, unknown>, managers: Managers): void {
  const entries = encode(managers);
  let meta = obj.metadata;
  if (!isObject(meta)) {
    if (entries.length === 0) return;
    meta = {};
    obj.metadata = meta;
  }
  const m = meta as Record<string, unknown>;
  if (entries.length === 0) delete m.managedFields;
  else m.managedFields = entries;
}

/** Folds the oldest Update entries into "ancient-changes" when there are too many. */
function capManagers(managers: Managers): void {
  const all = [...managers.entries()].filter(([, m]) => m.operation === 'Update');
  if (all.length <= MAX_UPDATE_MANAGERS) return;
  const hasAncient = all.some(([, m]) => m.manager === 'ancient-changes');
  const updates = all.filter(([, m]) => m.manager !== 'ancient-changes');
  updates.sort(([, a], [, b]) => timeSeconds(a.time) - timeSeconds(b.time));
  const excess = all.length - MAX_UPDATE_MANAGERS + (hasAncient ? 0 : 1);
  for (let i = 0; i < excess && i < updates.length; i++) {
    const [id, m] = updates[i];
    const ancient: Manager = { manager: 'ancient-changes', operation: 'Update', apiVersion: m.apiVersion, set: new PathSet() };
    const aid = managerId(ancient);
    const prev = managers.get(aid) ?? ancient;
    prev.set.addAll(m.set);
    if (m.time && (!prev.time || prev.time < m.time)) prev.time = m.time;
    managers.set(aid, prev);
    managers.delete(id);
  }
}

// ---------------------------------------------------------------------------------------
// Fields nobody owns

/** Removed from every set (only the paths themselves, as the reference's strip step). */
const STRIPPED = PathSet.fromPaths([
  [fieldPE('apiVersion')],
  [fieldPE('kind')],
  [fieldPE('metadata')],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'].map((f) => [
    fieldPE('metadata'),
    fieldPE(f),
  ]),
]);

function ignoredFor(schema: SchemaNode, options: UpdateOptions): PathSet {
  if (options.resetFields) return PathSet.fromPaths(options.resetFields.map((path) => path.map(fieldPE)));
  const hasStatus = schema.field('status') !== undefined && schema.kind === 'struct';
  const statusSub = options.statusIsSubresource ?? hasStatus;
  const s = new PathSet();
  if (!statusSub) return s;
  if (options.subresource === 'status') s.insert([fieldPE('spec')]);
  else if (!options.subresource) s.insert([fieldPE('status')]);
  return s;
}

/** `set` without the fields no manager owns and those `ignored`: changed in place, as every caller made `set` for it. */
function clean(set: PathSet, ignored: PathSet): PathSet {
  set.subtract(STRIPPED);
  set.recursiveSubtract(ignored);
  return set;
}

interface Change {
  changed: PathSet;
  removed: PathSet;
}

/**
 * What one write changed, in the version of each entry: the write's own comparison for entries of
 * its version, the object converted and compared again for entries of another.
 */
class ChangesByVersion {
  private readonly byVersion = new Map<string, Change>();

  constructor(
    private readonly gvk: GroupVersionKind,
    own: Change,
    private readonly before: Record<string, unknown> | undefined,
    private readonly after: Record<string, unknown>,
    private readonly options: UpdateOptions,
  ) {
    this.byVersion.set(apiVersionOf(gvk), own);
  }

  of(apiVersion: string): Change {
    let change = this.byVersion.get(apiVersion);
    if (change) return change;
    change = this.convertedChange(apiVersion) ?? this.byVersion.get(apiVersionOf(this.gvk))!;
    this.byVersion.set(apiVersion, change);
    return change;
  }

  private convertedChange(apiVersion: string): Change | undefined {
    const convert = this.options.inVersion;
    if (!convert || !this.before) return undefined;
    const before = convert(this.before, apiVersion);
    const after = convert(this.after, apiVersion);
    if (!before || !after) return undefined;
    const slash = apiVersion.lastIndexOf('/');
    const schema = schemaFor({ group: slash < 0 ? '' : apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1), kind: this.gvk.kind });
    const cmp = compare(withoutManagedFields(before), withoutManagedFields(after), schema);
    return { changed: clean(cmp.modified.union(cmp.added), ignoredFor(schema, this.options)), removed: cmp.removed };
  }
}

function withoutManagedFields(obj: Record<string, unknown>): Record<string, unknown> {
  if (!isObject(obj.metadata) || !Object.hasOwn(obj.metadata, 'managedFields')) return obj;
  const meta = { ...obj.metadata };
  delete meta.managedFields;
  return { ...obj, metadata: meta };
}

/** A managedFields list a write sets to clear them: empty, or one empty entry (the reference's reset). */
function isResetList(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  return v.length === 0 || (v.length === 1 && isObject(v[0]) && Object.keys(v[0]).length === 0);
}

function liveManagers(live: Record<string, unknown> | undefined): Managers {
  if (!live || !isObject(live.metadata)) return new Map();
  try {
    return decode(live.metadata.managedFields);
  } catch {
    return new Map();
  }
}

// ---------------------------------------------------------------------------------------
// Update

/** Records an Update by `manager` turning `live` (undefined for a create) into `next`. */
export function recordUpdate(
  gvk: GroupVersionKind,
  live: Record<string, unknown> | undefined,
  next: Record<string, unknown>,
  manager: string,
  options: UpdateOptions = {},
): void {
  const schema = schemaFor(gvk);
  const ignored = ignoredFor(schema, options);
  let managers = liveManagers(live);
  const requested = isObject(next.metadata) ? next.metadata.managedFields : undefined;
  if (!options.subresource && requested !== undefined && requested !== null) {
    if (isResetList(requested)) managers = new Map();
    else if (Array.isArray(requested)) {
      try {
        managers = decode(requested);
      } catch {
        // An invalid list in the request: the live one stays.
      }
    }
  }
  // An update of an object nobody owns anything of (managedFields reset, or never recorded) is
  // not tracked, as the reference skips it: the object stays without managedFields.
  if (live && managers.size === 0) {
    setManagedFields(next, managers);
    return;
  }
  const before = live ? withoutManagedFields(live) : (sharedZeroValue(schema) as Record<string, unknown>);
  const after = withoutManagedFields(next);
  const cmp = compare(before, after, schema);
  const changed = clean(cmp.modified.union(cmp.added), ignored);
  const removed = cmp.removed;
  const changes = new ChangesByVersion(gvk, { changed, removed }, live && before, after, options);
  for (const m of managers.values()) {
    const inItsVersion = changes.of(m.apiVersion);
    m.set = m.set.difference(inItsVersion.changed).difference(inItsVersion.removed);
  }
  if (!changed.empty()) {
    const self: Manager = { manager, operation: 'Update', apiVersion: apiVersionOf(gvk), set: changed };
    if (options.subresource) self.subresource = options.subresource;
    const id = managerId(self);
    const prev = managers.get(id);
    if (prev) {
      self.set = prev.set.union(changed);
      if (prev.time !== undefined) self.time = prev.time;
    }
    // The reference builds a scale write's entries from the Scale object's, which carry no time.
    if (options.subresource !== 'scale') self.time = options.now ?? now();
    managers.delete(id);
    managers.set(id, self);
  }
  for (const [id, m] of managers) if (m.set.empty()) managers.delete(id);
  capManagers(managers);
  setManagedFields(next, managers);
}

// ---------------------------------------------------------------------------------------
// Apply

function gvString(apiVersion: string): string {
  return apiVersion;
}

/** Go's GroupVersionKind.String(): the group is always written, so the core group's is "/v1, Kind=…". */
function gvkString(gvk: GroupVersionKind): string {
  return `${gvk.group}/${gvk.version}, Kind=${gvk.kind}`;
}

function describeManager(m: Manager): string {
  let s = JSON.stringify(m.manager);
  if (m.subresource) s += ` with subresource ${JSON.stringify(m.subresource)}`;
  if (m.operation === 'Update') s += ` using ${m.apiVersion}`;
  return s;
}

interface Conflict {
  manager: Manager;
  path: string[];
}

function conflictError(conflicts: Conflict[]): StatusError {
  const byManager = new Map<string, { m: Manager; paths: string[][] }>();
  for (const c of conflicts) {
    const id = managerId(c.manager);
    const e = byManager.get(id) ?? { m: c.manager, paths: [] };
    e.paths.push(c.path);
    byManager.set(id, e);
  }
  const groups = [...byManager.values()].sort((a, b) => (a.m.manager < b.m.manager ? -1 : a.m.manager > b.m.manager ? 1 : 0));
  const causes = groups.flatMap((g) => g.paths.map((p) => ({ reason: 'FieldManagerConflict', message: `conflict with ${describeManager(g.m)}`, field: pathString(p) })));
  let detail: string;
  if (conflicts.length === 1) detail = `conflict with ${describeManager(conflicts[0].manager)}: ${pathString(conflicts[0].path)}`;
  else {
    const lines: string[] = [];
    for (const g of groups) {
      lines.push(`conflicts with ${describeManager(g.m)}:`);
      for (const p of g.paths) lines.push(`- ${pathString(p)}`);
    }
    detail = lines.join('\n');
  }
  const n = conflicts.length;
  return new StatusError(409, 'Conflict', `Apply failed with ${n} conflict${n === 1 ? '' : 's'}: ${detail}`, { causes });
}

function validateApplied(gvk: GroupVersionKind, schema: SchemaNode, applied: Record<string, unknown>): void {
  const expected = apiVersionOf(gvk);
  if (applied.apiVersion !== expected) {
    throw new StatusError(
      400,
      'BadRequest',
      `Incorrect version specified in apply patch. Specified patch version: ${typeof applied.apiVersion === 'string' ? gvString(applied.apiVersion) : ''}, expected: ${expected}`,
    );
  }
  if (applied.kind !== gvk.kind) {
    throw new StatusError(400, 'BadRequest', `Incorrect kind specified in apply patch. Specified patch kind: ${typeof applied.kind === 'string' ? applied.kind : ''}, expected: ${gvk.kind}`);
  }
  const meta = applied.metadata;
  if (meta !== undefined && meta !== null && !isObject(meta)) throw new StatusError(400, 'BadRequest', 'metadata must be an object');
  if (isObject(meta) && meta.managedFields !== undefined && meta.managedFields !== null) {
    throw new StatusError(400, 'BadRequest', 'metadata.managedFields must be nil');
  }
  const bad = typedPatchError(applied, schema);
  if (bad) {
    const ns = isObject(meta) && typeof meta.namespace === 'string' ? meta.namespace : '';
    const name = isObject(meta) && typeof meta.name === 'string' ? meta.name : '';
    // The reference answers 500 (its error is not a Status); it is the applied object's fault, so 400 here.
    throw new StatusError(400, 'BadRequest', `failed to create typed patch object (${ns}/${name}; ${gvkString(gvk)}): ${bad}`);
  }
}

function lastAppliedOf(obj: Record<string, unknown> | undefined): string | undefined {
  const ann = obj && isObject(obj.metadata) ? obj.metadata.annotations : undefined;
  const v = isObject(ann) ? ann[LAST_APPLIED] : undefined;
  return typeof v === 'string' ? v : undefined;
}

/** JSON with object keys sorted, as Go writes a map. */
function sortedJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(sortedJson).join(',')}]`;
  if (isObject(v)) {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${sortedJson(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

function buildLastApplied(applied: Record<string, unknown>): string {
  const copy = copyJson(applied);
  if (isObject(copy.metadata) && isObject(copy.metadata.annotations)) {
    delete copy.metadata.annotations[LAST_APPLIED];
    if (Object.keys(copy.metadata.annotations).length === 0) delete copy.metadata.annotations;
  }
  return `${sortedJson(copy)}\n`;
}

/** Server-side apply of `applied` by `manager` onto `live` (undefined: create). */
export function apply(
  gvk: GroupVersionKind,
  live: Record<string, unknown> | undefined,
  applied: Record<string, unknown>,
  manager: string,
  options: ApplyOptions,
): Record<string, unknown> {
  if (!isObject(applied)) throw new StatusError(400, 'BadRequest', 'the applied configuration must be an object');
  if (tooDeep(applied, MAX_JSON_DEPTH)) throw new StatusError(400, 'BadRequest', `apply: nesting depth exceeds the limit of ${MAX_JSON_DEPTH}`);
  const schema = schemaFor(gvk);
  validateApplied(gvk, schema, applied);
  const ignored = ignoredFor(schema, options);
  const config = copyJson(applied);
  const base = live ? (copyJson(withoutManagedFields(live)) as Record<string, unknown>) : {};
  const managers = liveManagers(live);

  const self: Manager = { manager, operation: 'Apply', apiVersion: apiVersionOf(gvk), set: clean(fieldSetOf(config, schema), ignored) };
  if (options.subresource) self.subresource = options.subresource;
  const selfId = managerId(self);
  const previous = managers.get(selfId);
  if (previous?.time !== undefined) self.time = previous.time;

  let merged = merge(base, config, schema) as Record<string, unknown>;

  // Fields this manager applied before and no longer applies go when nobody else owns them.
  if (previous) {
    const owned = new PathSet();
    for (const [id, m] of managers) if (id !== selfId) owned.addAll(m.set);
    owned.addAll(self.set);
    const gone = previous.set.difference(owned);
    if (!gone.empty()) merged = prune(merged, schema, gone, owned) as Record<string, unknown>;
  }

  const attempt = (force: boolean): Conflict[] => {
    const cmp = compare(base, merged, schema);
    const changed = clean(cmp.modified.union(cmp.added), ignored);
    const changes = new ChangesByVersion(gvk, { changed, removed: cmp.removed }, live && base, merged, options);
    const conflicts: Conflict[] = [];
    for (const [id, m] of managers) {
      if (id === selfId) continue;
      const c = m.set.intersection(changes.of(m.apiVersion).changed);
      if (!c.empty()) for (const p of c.paths()) conflicts.push({ manager: m, path: p });
    }
    if (conflicts.length > 0 && !force) return conflicts;
    for (const [id, m] of managers) {
      if (id === selfId) continue;
      const inItsVersion = changes.of(m.apiVersion);
      m.set = m.set.difference(inItsVersion.changed).difference(inItsVersion.removed);
    }
    return [];
  };

  let conflicts = attempt(options.force);
  if (conflicts.length > 0 && manager === 'kubectl') {
    // Moving from client-side apply: conflicts on fields of the last-applied configuration
    // are forgiven (the reference forces them).
    const last = lastAppliedOf(live);
    if (last !== undefined) {
      let allowed: PathSet | undefined;
      try {
        const parsed = JSON.parse(last) as unknown;
        if (isObject(parsed)) allowed = fieldSetOf(parsed, schema);
      } catch {
        allowed = undefined;
      }
      if (allowed) {
        const remaining = conflicts.filter((c) => !allowed!.has(c.path));
        conflicts = remaining.length === 0 ? attempt(true) : remaining;
      }
    }
  }
  if (conflicts.length > 0) throw conflictError(conflicts);

  const changedObject = !live || !deepEqual(base, merged);
  if (changedObject) self.time = options.now ?? now();
  managers.delete(selfId);
  managers.set(selfId, self);
  for (const [id, m] of managers) if (m.set.empty()) managers.delete(id);

  if (manager === 'kubectl' && lastAppliedOf(merged) !== undefined) {
    const meta = merged.metadata as Record<string, unknown>;
    meta.annotations = { ...(meta.annotations as Record<string, unknown>), [LAST_APPLIED]: buildLastApplied(applied) };
  }
  capManagers(managers);
  setManagedFields(merged, managers);
  return merged;
}
