// --runtime-config as kube-apiserver 1.25 reads it: which built-in group-versions (and resources)
// are served. Entries are `key[=value]`, the value true or false (omitted: true):
// - `api/all`, `api/ga`, `api/beta`, `api/alpha` switch every version of that stability, in that
//   order (all first), before the specific keys;
// - `group/version` (`api/v1` or `v1` for the core group) switches one version;
// - `group/version/resource` switches one resource, whatever its version's setting.
// Without the flag: every version but alpha ones. A key of a group the reference does not have is
// ignored, as there; a version that group does not have, or a value that is not a boolean, refuses
// the start with the reference's words.
import { builtinResources, type GroupVersionFilter } from './catalog.js';

const STABILITY_KEYS = ['api/all', 'api/ga', 'api/beta', 'api/alpha'] as const;

type Stability = 'ga' | 'beta' | 'alpha';

function stabilityOf(version: string): Stability {
  return version.includes('alpha') ? 'alpha' : version.includes('beta') ? 'beta' : 'ga';
}

/** Go's strconv.ParseBool, as the reference reads each value. */
function parseBool(key: string, value: string | undefined): boolean {
  if (value === undefined || value === '') return true;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  throw new Error(`invalid value ${key}=${value}`);
}

export interface RuntimeConfig {
  /** Whether a built-in version (or one resource of it) is served. */
  enabled: GroupVersionFilter;
}

/** The served built-in versions that entries (`key=value`, the flag's list) leave; throws the reference's message. */
export function runtimeConfig(entries: readonly string[]): RuntimeConfig {
  const settings = new Map<string, boolean>();
  for (const entry of entries) {
    const at = entry.indexOf('=');
    const key = (at < 0 ? entry : entry.slice(0, at)).trim();
    const value = at < 0 ? undefined : entry.slice(at + 1).trim();
    settings.set(key, parseBool(key, value));
  }
  // Every built-in version the vendored OpenAPI has, alpha ones included.
  const known = new Map<string, Set<string>>();
  for (const r of builtinResources(() => true)) known.set(r.group, (known.get(r.group) ?? new Set()).add(r.version));
  const byStability = new Map<Stability | 'all', boolean>();
  for (const key of STABILITY_KEYS) {
    const value = settings.get(key);
    if (value !== undefined) byStability.set(key === 'api/all' ? 'all' : (key.slice(4) as Stability), value);
  }
  const versions = new Map<string, boolean>();
  const resources = new Map<string, boolean>();
  for (const [key, value] of settings) {
    if ((STABILITY_KEYS as readonly string[]).includes(key)) continue;
    const tokens = key.split('/');
    if (tokens.length < 1 || tokens.length > 3 || tokens.some((t) => t === '')) throw new Error(`invalid key ${key}`);
    // `v1` and `api/v1` name the core group's version.
    const [group, version, resource] = tokens.length === 1 ? ['', tokens[0]!, undefined] : tokens[0] === 'api' ? ['', tokens[1]!, tokens[2]] : [tokens[0]!, tokens[1]!, tokens[2]];
    if (tokens.length === 1 && !/^v\d/.test(version)) throw new Error(`invalid key ${key}`);
    const groupVersions = known.get(group);
    if (!groupVersions) continue;
    if (!groupVersions.has(version)) throw new Error(`group version ${group ? `${group}/` : ''}${version} that has not been registered`);
    if (resource === undefined) versions.set(`${group}/${version}`, value);
    else resources.set(`${group}/${version}/${resource}`, value);
  }
  const enabled: GroupVersionFilter = (group, version, resource) => {
    if (resource !== undefined) {
      const r = resources.get(`${group}/${version}/${resource}`);
      if (r !== undefined) return r;
    }
    const v = versions.get(`${group}/${version}`);
    if (v !== undefined) return v;
    const s = byStability.get(stabilityOf(version)) ?? byStability.get('all');
    return s ?? stabilityOf(version) !== 'alpha';
  };
  return { enabled };
}
