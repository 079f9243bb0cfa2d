// ComponentStatus (v1, deprecated in 1.19): nothing stored; each read asks the server how its
// components are (registry.services.componentHealth) and answers one object per component, as
// the reference's REST probes the scheduler, the controller manager and each etcd server.
import { StatusError } from '../../errors.js';
import type { JsonObject } from '../../json.js';
import type { ComputedObjects } from '../definitions.js';

export const componentStatuses: ComputedObjects = {
  async objects(registry) {
    const components = (await registry.services.componentHealth?.()) ?? [];
    return components.map((c): JsonObject => {
      const condition: JsonObject = { type: 'Healthy', status: c.status };
      if (c.message) condition['message'] = c.message;
      if (c.error) condition['error'] = c.error;
      // No creation time: the reference's are made on the spot too, and serialize it as null.
      return { kind: 'ComponentStatus', apiVersion: 'v1', metadata: { name: c.name, creationTimestamp: null }, conditions: [condition] };
    });
  },
  // The reference's REST answers a plain error here: a 500 with no reason.
  missing: (name) => new StatusError(500, undefined, `Component not found: ${name}`),
};
