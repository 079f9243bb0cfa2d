// Boolean query parameters (watch, allowWatchBookmarks, force, orphanDependents, …) as the
// reference converts a query into its options: a parameter that is absent is false; present, only
// "0" and "false" in any letter case are false — anything else, the empty value included, is true.
// So Python's `?watch=True` watches, and `?force=` forces, as they do on the reference.

/** The boolean query parameter `name` as the reference reads it into its options. */
export function queryFlag(query: URLSearchParams, name: string): boolean {
  const value = query.get(name);
  if (value === null) return false;
  return value !== '0' && value.toLowerCase() !== 'false';
}
