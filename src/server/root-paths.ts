// GET / (and /index.html): the paths the server serves, as the reference's index lists them
// ({"paths": [...]}, sorted): discovery for every group and group-version, health and each of its
// checks, OpenAPI, /version, and issuer discovery when it is served.
import type { ResourceDefinitions } from '../registry/definitions.js';
import type { Health } from './health.js';
import { JWKS_PATH, OPENID_CONFIGURATION_PATH } from './issuer-discovery.js';

export function rootPaths(definitions: ResourceDefinitions, health: Health, issuerDiscovery: boolean): string[] {
  // "/apis/" and "/openapi/v3/" are listed as the reference lists what it serves by prefix.
  const paths = new Set(['/api', '/apis', '/apis/', '/openapi/v2', '/openapi/v3', '/openapi/v3/', '/version', ...health.paths()]);
  for (const group of definitions.groups()) {
    if (group.name === '') {
      for (const v of group.versions) paths.add(`/api/${v}`);
      continue;
    }
    paths.add(`/apis/${group.name}`);
    for (const v of group.versions) paths.add(`/apis/${group.name}/${v}`);
  }
  if (issuerDiscovery) {
    paths.add(OPENID_CONFIGURATION_PATH);
    paths.add(JWKS_PATH);
  }
  // Go's sort.Strings: byte order (the paths are ASCII).
  return [...paths].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
