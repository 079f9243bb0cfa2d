// Defaults of apiextensions.k8s.io/v1 CustomResourceDefinitions.
import { ensureObject, objectAt, objectAtPath, objectsAt, setIfEmpty, setIfNil, type Obj } from './fields.js';

function defaultNames(names: Obj): void {
  const kind = typeof names['kind'] === 'string' ? names['kind'] : '';
  setIfEmpty(names, 'singular', kind.toLowerCase());
  if (kind) setIfEmpty(names, 'listKind', `${kind}List`);
}

function defaultSpec(spec: Obj): void {
  const names = objectAt(spec, 'names');
  if (names) defaultNames(names);
  setIfNil(spec, 'conversion', { strategy: 'None' });
  const service = objectAtPath(spec, 'conversion', 'webhook', 'clientConfig', 'service');
  if (service) setIfNil(service, 'port', 443);
  for (const version of objectsAt(spec, 'versions')) {
    // Written even when false (no omitempty).
    setIfNil(version, 'served', false);
    setIfNil(version, 'storage', false);
  }
}

/** storedVersions starts with the storage version; the rest of status is written even when empty. */
function defaultStatus(status: Obj, spec: Obj | undefined): void {
  const stored = status['storedVersions'];
  if (stored === undefined || stored === null || (Array.isArray(stored) && stored.length === 0)) {
    const storage = spec ? objectsAt(spec, 'versions').find((v) => v['storage'] === true) : undefined;
    status['storedVersions'] = storage && typeof storage['name'] === 'string' ? [storage['name']] : (stored ?? null);
  }
  if (status['conditions'] === undefined) status['conditions'] = null;
  const accepted = ensureObject(status, 'acceptedNames');
  if (accepted) {
    setIfNil(accepted, 'plural', '');
    setIfNil(accepted, 'kind', '');
  }
}

export function defaultCustomResourceDefinition(crd: Obj): void {
  const spec = ensureObject(crd, 'spec');
  if (spec) defaultSpec(spec);
  const status = ensureObject(crd, 'status');
  if (status) defaultStatus(status, spec);
}
