// NamespaceLifecycle: nothing is created in a namespace that does not exist or is being
// terminated, and the system namespaces (default, kube-system, kube-public) cannot be deleted.
import { notFound, StatusError } from '../../errors.js';
import { readOnce } from '../../encoding/derived.js';
import type { JsonObject } from '../../json.js';
import type { AdmissionAttributes, AdmissionPlugin, AdmissionServices } from '../types.js';
import { objectOf, readObject } from './support.js';

// Namespaces the server keeps.
const IMMORTAL_NAMESPACES = new Set(['default', 'kube-system', 'kube-public']);
const NAMESPACES = { group: '', resource: 'namespaces' };

function isTerminating(ns: JsonObject): boolean {
  return Boolean(objectOf(ns['metadata'])?.['deletionTimestamp']);
}

async function admit(a: AdmissionAttributes, { registry }: AdmissionServices): Promise<void> {
  const { group, resource } = a.info;
  if (a.operation === 'DELETE' && group === '' && resource === 'namespaces' && a.subresource === undefined && IMMORTAL_NAMESPACES.has(a.name)) {
    throw new StatusError(403, 'Forbidden', `namespaces "${a.name}" is forbidden: this namespace may not be deleted`, { name: a.name, kind: 'namespaces' });
  }
  if (a.operation !== 'CREATE' || a.namespace === undefined) return;
  // As the reference's lister, with its live lookup: the namespaces' informer is current with every
  // write this server completed (and with other servers' writes a moment later); a namespace it
  // does not hold yet (just created through another server) is read from storage. One read of
  // storage per create is a round trip to etcd there.
  const known = (await registry.informer(NAMESPACES)).stored(undefined, a.namespace);
  let terminating: boolean;
  // Read once per stored version of the namespace: a create decodes no namespace.
  if (known) terminating = readOnce(known, isTerminating);
  else {
    const ns = await readObject(registry, '', 'namespaces', undefined, a.namespace);
    if (!ns) throw notFound({ group: '', resource: 'namespaces' }, a.namespace);
    terminating = isTerminating(ns);
  }
  if (terminating) {
    const name = a.name || String(objectOf(a.object?.['metadata'])?.['generateName'] ?? '');
    const qualified = group ? `${resource}.${group}` : resource;
    throw new StatusError(403, 'Forbidden', `${qualified} "${name}" is forbidden: unable to create new content in namespace ${a.namespace} because it is being terminated`, {
      name, group: group || undefined, kind: resource,
      causes: [{ reason: 'NamespaceTerminating', message: `namespace ${a.namespace} is being terminated`, field: 'metadata.namespace' }],
    });
  }
}

export const namespaceLifecycle: AdmissionPlugin = { name: 'NamespaceLifecycle', operations: ['CREATE', 'UPDATE', 'DELETE'], mutate: admit };
