// The remote APIServices' groups in discovery: /apis lists each group with an Available remote
// APIService, placed by groupPriorityMinimum (highest first; the built-in groups keep theirs from
// the reference's table, CRD groups 1000) and then by name; its versions ordered by
// versionPriority, then as Kubernetes orders versions. /apis/<group> is answered here from the
// APIServices; /apis/<group>/<version> comes from the extension server (proxied).
import { decodeJson, isObject, type JsonObject } from '../json.js';
import { compareVersions } from '../registry/definitions.js';
import type { APIServiceView } from './apiservice-objects.js';
import { builtinGroupPriority, CRD_PRIORITY } from './priorities.js';

export interface RemoteGroup {
  name: string;
  priority: number;
  /** Best first. */
  versions: APIServiceView[];
}

/** The remote groups from the Available remote APIServices. */
export function remoteGroups(available: readonly APIServiceView[]): RemoteGroup[] {
  const byGroup = new Map<string, APIServiceView[]>();
  for (const a of available) byGroup.set(a.group, [...(byGroup.get(a.group) ?? []), a]);
  return [...byGroup].map(([name, versions]) => ({
    name,
    priority: Math.max(...versions.map((v) => v.groupPriorityMinimum)),
    versions: versions.sort((a, b) => b.versionPriority - a.versionPriority || compareVersions(a.version, b.version)),
  }));
}

function groupDocument(group: RemoteGroup): JsonObject {
  const versions = group.versions.map((v) => ({ groupVersion: `${group.name}/${v.version}`, version: v.version }));
  return { name: group.name, versions, preferredVersion: versions[0]! };
}

/** The APIGroup document of /apis/<group>. */
export function apiGroupDocument(group: RemoteGroup): Buffer {
  return Buffer.from(JSON.stringify({ kind: 'APIGroup', apiVersion: 'v1', ...groupDocument(group) }));
}

/** /apis with the remote groups put in their places; the served groups keep their order. */
export function mergedGroupList(served: Buffer, remote: readonly RemoteGroup[]): Buffer {
  if (remote.length === 0) return served;
  const doc = decodeJson(served);
  const groups = (Array.isArray(doc.groups) ? doc.groups : []).filter(isObject);
  // The aggregator's own group comes first, before every APIService's, as the reference lists it.
  const priorityOf = (name: string) => (name === 'apiregistration.k8s.io' ? Infinity : builtinGroupPriority(name) ?? CRD_PRIORITY.group);
  const names = new Set(groups.map((g) => g.name));
  for (const group of [...remote].sort((a, b) => b.priority - a.priority || (a.name < b.name ? -1 : 1))) {
    // A group served here too (a CRD's, a built-in's) is the served one's.
    if (names.has(group.name)) continue;
    const at = groups.findIndex((g) => {
      const p = priorityOf(String(g.name));
      return p < group.priority || (p === group.priority && String(g.name) > group.name);
    });
    groups.splice(at < 0 ? groups.length : at, 0, groupDocument(group));
  }
  return Buffer.from(JSON.stringify({ ...doc, groups }));
}
