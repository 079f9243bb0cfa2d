// Objects every cluster has from its first start: the system namespaces and the system priority classes.
import type { ResourceInfo } from '../registry/definitions.js';
import { StatusError } from '../errors.js';
import type { Registry } from '../registry/store.js';
import { type JsonObject } from '../json.js';

export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/** The reference's scheduling bootstrap: classes above any user-definable priority (at most 1e9). */
const SYSTEM_PRIORITY_CLASSES = [
  { name: 'system-node-critical', value: 2000001000, description: 'Used for system critical pods that must not be moved from their current node.' },
  { name: 'system-cluster-critical', value: 2000000000, description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.' },
];

/** The system namespaces (the work of the reference's bootstrap controller, with the `kubernetes` Service). */
export async function bootstrapSystemNamespaces(registry: Registry): Promise<void> {
  const namespaces = registry.definitions.lookup('', 'v1', 'namespaces');
  if (!namespaces) return;
  for (const name of SYSTEM_NAMESPACES) {
    await createIfMissing(registry, namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }
}

/** The system priority classes (the reference's scheduling/bootstrap-system-priority-classes hook). */
export async function bootstrapSystemPriorityClasses(registry: Registry): Promise<void> {
  const priorityClasses = registry.definitions.lookup('scheduling.k8s.io', 'v1', 'priorityclasses');
  if (!priorityClasses) return;
  for (const { name, value, description } of SYSTEM_PRIORITY_CLASSES) {
    await createIfMissing(registry, priorityClasses, {
      apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value, description, preemptionPolicy: 'PreemptLowerPriority',
    });
  }
}

async function createIfMissing(registry: Registry, info: ResourceInfo, obj: JsonObject): Promise<void> {
  try {
    await registry.create(info, undefined, obj);
  } catch (err) {
    if (!(err instanceof StatusError && err.code === 409)) throw err;
  }
}
