// DefaultStorageClass: a new claim that asks for no class gets the StorageClass marked as default.
import type { AdmissionPlugin } from '../types.js';
import { annotationsOf, child, forbidden, isResource, listObjects, objectOf, setOrdered, type JsonObject } from './support.js';

const IS_DEFAULT = ['storageclass.kubernetes.io/is-default-class', 'storageclass.beta.kubernetes.io/is-default-class'];
/** The claim's class before spec.storageClassName existed; still honoured. */
export const BETA_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';
const CLAIM_SPEC_ORDER = ['accessModes', 'selector', 'resources', 'volumeName', 'storageClassName', 'volumeMode', 'dataSource', 'dataSourceRef'];

export const defaultStorageClass: AdmissionPlugin = {
  name: 'DefaultStorageClass',
  operations: ['CREATE'],
  async mutate(a, { registry }) {
    if (a.subresource || !isResource(a, '', 'persistentvolumeclaims')) return;
    const claim = objectOf(a.object);
    // An explicit class, even "", is the user's choice.
    if (!claim || hasClass(claim)) return;
    const defaults = (await listObjects(registry, 'storage.k8s.io', 'storageclasses')).filter(isDefault);
    if (defaults.length > 1) throw forbidden(a, `Internal error occurred: ${defaults.length} default StorageClasses were found`, 'mutate');
    const name = defaults[0] && objectOf(defaults[0]['metadata'])?.['name'];
    if (typeof name === 'string') setOrdered(child(claim, 'spec'), 'storageClassName', name, CLAIM_SPEC_ORDER);
  },
};

function hasClass(claim: JsonObject): boolean {
  return BETA_CLASS_ANNOTATION in annotationsOf(claim) || typeof objectOf(claim['spec'])?.['storageClassName'] === 'string';
}

function isDefault(sc: JsonObject): boolean {
  const annotations = annotationsOf(sc);
  return IS_DEFAULT.some((key) => annotations[key] === 'true');
}
