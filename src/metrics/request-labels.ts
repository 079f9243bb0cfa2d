// How the reference labels a request in its metrics: the scope (resource, namespace, cluster, or ''
// for a path that is no resource), the reported verb (LIST apart from GET, WATCH, APPLY, in
// capitals) and the dry-run value. Pure functions of what the request info already holds.

export type MetricScope = 'resource' | 'namespace' | 'cluster' | '';

/** A named object (or a create) is `resource`; else a namespace's collection, or the cluster's. */
export function metricScope(resourceRequest: boolean, verb: string, name: string | undefined, namespace: string | undefined): MetricScope {
  if (name || verb === 'create') return 'resource';
  if (namespace) return 'namespace';
  return resourceRequest ? 'cluster' : '';
}

/** The verbs the reference reports; any other method is counted as `other`. */
const REPORTED_VERBS = new Set(['APPLY', 'CONNECT', 'CREATE', 'DELETE', 'DELETECOLLECTION', 'GET', 'LIST', 'PATCH', 'POST', 'PROXY', 'PUT', 'UPDATE', 'WATCH', 'WATCHLIST']);

const APPLY_PATCH = 'application/apply-patch+yaml';

/**
 * The verb a request is reported under: the HTTP method in capitals, but LIST for a read of a
 * collection, WATCH for a watch (the verb of the route or `?watch=` true) and APPLY for a
 * server-side apply patch (its Content-Type exactly the apply type, as the reference compares it).
 */
export function reportedVerb(method: string, scope: MetricScope, watch: boolean, contentType: string | undefined): string {
  if (watch) return 'WATCH';
  // The common case, without a new string.
  if (method === 'GET') return scope === 'resource' || scope === '' ? 'GET' : 'LIST';
  let verb = method.toUpperCase();
  if ((verb === 'GET' || verb === 'HEAD') && scope !== 'resource' && scope !== '') verb = 'LIST';
  else if (verb === 'HEAD') verb = 'GET';
  if (verb === 'PATCH' && contentType === APPLY_PATCH) verb = 'APPLY';
  return REPORTED_VERBS.has(verb) ? verb : 'other';
}

/** Whether `?watch=` asks for a watch, as the reference's query decoding reads a bool (anything but 0 and false). */
export function watchParameter(method: string, query: URLSearchParams): boolean {
  if (method !== 'GET') return false;
  const value = query.get('watch');
  if (value === null) return false;
  const lower = value.toLowerCase();
  return lower !== '0' && lower !== 'false';
}

/** The dry_run label: '' without dryRun, `invalid` for a value other than All, else the values deduplicated, sorted, joined by commas. */
export function dryRunLabel(rawQuery: string, query: URLSearchParams): string {
  // The common case reads nothing more.
  if (!rawQuery.includes('dryRun')) return '';
  const values = query.getAll('dryRun');
  if (values.some((v) => v !== 'All')) return 'invalid';
  return [...new Set(values)].sort().join(',');
}
