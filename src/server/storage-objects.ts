// apiserver_storage_objects: how many objects each stored resource holds, counted in the store
// under the resource's prefix as the reference counts them ("configmaps", "deployments.apps";
// -1 when the count fails). Resources that store nothing (reviews, computed ones) have no series.
import type { ResourceDefinition, ResourceDefinitions } from '../registry/definitions.js';
import { resourcePrefix } from '../registry/keys.js';
import type { Storage } from '../storage/types.js';

function stores(definition: ResourceDefinition): boolean {
  return definition.hooks.create === undefined && definition.hooks.computed === undefined;
}

export async function storedObjectCounts(definitions: ResourceDefinitions, storage: Storage): Promise<Array<[string, number]>> {
  const stored = [...definitions.definitions()].filter(stores);
  return Promise.all(stored.map(async (d): Promise<[string, number]> => {
    const name = d.group ? `${d.resource}.${d.group}` : d.resource;
    try {
      return [name, await storage.count(resourcePrefix(d))];
    } catch {
      return [name, -1];
    }
  }));
}
