// PersistentVolumeClaimResize: a claim may grow only once bound, and only when its StorageClass
// allows volume expansion.
import { Quantity } from '../../api/quantity.js';
import type { Registry } from '../../registry/store.js';
import type { AdmissionPlugin } from '../types.js';
import { BETA_CLASS_ANNOTATION } from './default-storage-class.js';
import { annotationsOf, forbidden, isResource, objectOf, readObject, stringOf, type JsonObject } from './support.js';

export const persistentVolumeClaimResize: AdmissionPlugin = {
  name: 'PersistentVolumeClaimResize',
  operations: ['UPDATE'],
  async validate(a, { registry }) {
    if (a.subresource || !isResource(a, '', 'persistentvolumeclaims')) return;
    const claim = objectOf(a.object);
    const old = objectOf(a.oldObject);
    if (!claim || !old) return;
    if (requestedStorage(claim).cmp(requestedStorage(old)) <= 0) return;
    if (objectOf(old['status'])?.['phase'] !== 'Bound') throw forbidden(a, 'Only bound persistent volume claims can be expanded');
    if (!(await allowsResize(registry, claim, old))) {
      throw forbidden(a, 'only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');
    }
  },
};

/** spec.resources.requests.storage; zero when absent (the zero Quantity the reference reads from a missing key). */
function requestedStorage(claim: JsonObject): Quantity {
  const storage = objectOf(objectOf(objectOf(claim['spec'])?.['resources'])?.['requests'])?.['storage'];
  return Quantity.from(storage) ?? Quantity.zero();
}

/** The claim's class: the beta annotation first, then spec.storageClassName. */
function classOf(claim: JsonObject): string {
  const annotated = stringOf(annotationsOf(claim)[BETA_CLASS_ANNOTATION]);
  if (annotated !== undefined) return annotated;
  return stringOf(objectOf(claim['spec'])?.['storageClassName']) ?? '';
}

async function allowsResize(registry: Registry, claim: JsonObject, old: JsonObject): Promise<boolean> {
  const name = classOf(claim);
  if (!name || name !== classOf(old)) return false;
  const sc = await readObject(registry, 'storage.k8s.io', 'storageclasses', undefined, name);
  return sc?.['allowVolumeExpansion'] === true;
}
