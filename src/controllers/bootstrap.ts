// Objects every cluster has from its first start: the system namespaces.
import type { Catalog } from '../api/catalog.js';
import { StatusError } from '../errors.js';
import type { Registry } from '../registry/store.js';

export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export async function bootstrap(catalog: Catalog, registry: Registry): Promise<void> {
  const namespaces = catalog.lookup('', 'v1', 'namespaces');
  if (!namespaces) return;
  for (const name of SYSTEM_NAMESPACES) {
    try {
      await registry.create(namespaces, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 409)) throw err;
    }
  }
}
