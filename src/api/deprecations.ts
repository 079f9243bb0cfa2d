// API versions 1.25 serves but has deprecated: every request to them gets the reference's warning.
// The group modules of registry/builtin say which resource versions are deprecated.

export interface Deprecation {
  deprecatedIn: string;
  removedIn: string;
  /** The group-version (and kind) to use instead. */
  replacement: string;
}

/** The warning for a request to a deprecated API version of a kind. */
export function deprecationWarning(gvk: { group: string; version: string; kind: string }, d: Deprecation): string {
  return `${gvk.group}/${gvk.version} ${gvk.kind} is deprecated in v${d.deprecatedIn}+, unavailable in v${d.removedIn}+; use ${d.replacement}`;
}
