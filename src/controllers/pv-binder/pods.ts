// The claims a pod uses, as the binder looks pods up by claim (to say which pods wait for scheduling).
import { metadataOf } from '../../registry/objects.js';
import { type JsonObject, isObject } from '../../json.js';
import { specOf } from './objects.js';

/** Names of the claims the pod's volumes use: named claims, and the generated claims of ephemeral volumes. */
export function claimsUsedBy(pod: JsonObject): string[] {
  const volumes = specOf(pod)['volumes'];
  if (!Array.isArray(volumes)) return [];
  const podName = String(metadataOf(pod)['name'] ?? '');
  return volumes.flatMap((v: unknown) => {
    if (!isObject(v)) return [];
    if (isObject(v['persistentVolumeClaim'])) return [String(v['persistentVolumeClaim']['claimName'] ?? '')];
    if (isObject(v['ephemeral'])) return [`${podName}-${String(v['name'] ?? '')}`];
    return [];
  });
}
