// The Service strategy: allocation on create and update (after mutating admission, before
// validation, as the reference's BeginCreate/BeginUpdate), type-dependent fields dropped on
// update, and what a deleted Service held released (with its Endpoints, as the reference does).
import { StatusError } from '../../errors.js';
import { metadataOf } from '../objects.js';
import { resourcePrefix } from '../keys.js';
import type { Registry } from '../store.js';
import type { Storage } from '../../storage/types.js';
import type { Strategy } from '../strategies.js';
import { ServiceAllocators } from './service-allocation.js';
import { dropTypeDependentFields } from './service-fields.js';
import { decodeJson } from '../../json.js';

// Kept by store: every view of a registry (withAdmission) shares its storage, and so its allocations.
const allocatorsByStorage = new WeakMap<Storage, ServiceAllocators>();

export function allocatorsOf(registry: Registry): ServiceAllocators | undefined {
  return allocatorsByStorage.get(registry.storage);
}

/**
 * Gives a registry its Service allocators, taking what its stored Services hold. Registries
 * without allocators (unit tests) store Services as given. On a store other servers write too,
 * the ranges are also kept as the reference keeps them, in RangeAllocation objects under ranges/
 * (created at start when missing; what one holds is kept taken): every allocation is written there
 * before its Service, so two servers never hand out one address or port.
 */
export async function attachServiceAllocators(registry: Registry, pools: ServiceAllocators): Promise<void> {
  const services = registry.definitions.lookup('', 'v1', 'services');
  if (services) {
    const storage = registry.storage;
    const prefix = resourcePrefix(services);
    const page = await storage.list(prefix);
    for (const item of page.items) pools.restore(decodeJson(item.value));
    if (storage.latestRevision) {
      await pools.keepRangesIn(storage, async () => (await storage.list(prefix, { latest: true })).items.map((item) => decodeJson(item.value)));
    }
  }
  allocatorsByStorage.set(registry.storage, pools);
}

export const serviceStrategy: Strategy = {
  // As the reference's: a PUT of a missing Service creates it, allocating as a POST does.
  allowCreateOnUpdate: true,
  beginCreate(registry, obj, dryRun) {
    return allocatorsOf(registry)?.allocateCreate(obj, dryRun);
  },
  beginUpdate(registry, next, current, dryRun) {
    return allocatorsOf(registry)?.allocateUpdate(next, current, dryRun);
  },
  prepareForUpdate(next, current) {
    dropTypeDependentFields(next, current);
  },
  async afterDelete(registry, obj) {
    await allocatorsOf(registry)?.releaseDurably(obj);
    // Endpoints could otherwise outlive the Service and be taken for a new one of the same name.
    const endpoints = registry.definitions.lookup('', 'v1', 'endpoints');
    const meta = metadataOf(obj);
    if (!endpoints || typeof meta['namespace'] !== 'string' || typeof meta['name'] !== 'string') return;
    try {
      await registry.delete(endpoints, meta['namespace'], meta['name']);
    } catch (err) {
      // The Service is gone either way; the reference only logs this.
      if (!(err instanceof StatusError && err.code === 404)) console.error(`deleting the endpoints of service ${meta['namespace']}/${meta['name']}:`, err);
    }
  },
};
