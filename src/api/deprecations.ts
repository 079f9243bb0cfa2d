// API versions 1.25 serves but has deprecated: every request to them gets the reference's warning.
// The group modules of registry/builtin say which resource versions are deprecated.

export interface Deprecation {
  deprecatedIn: string;
  /** Absent for a kind deprecated with no removal planned (v1 ComponentStatus). */
  removedIn?: string;
  /** The group-version (and kind) to use instead, when there is one. */
  replacement?: string;
}

/** The warning for a request to a deprecated API version of a kind. */
export function deprecationWarning(gvk: { group: string; version: string; kind: string }, d: Deprecation): string {
  const groupVersion = gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
  let warning = `${groupVersion} ${gvk.kind} is deprecated in v${d.deprecatedIn}+`;
  if (d.removedIn) warning += `, unavailable in v${d.removedIn}+`;
  if (d.replacement) warning += `; use ${d.replacement}`;
  return warning;
}
