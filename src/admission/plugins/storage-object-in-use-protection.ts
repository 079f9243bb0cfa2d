// StorageObjectInUseProtection: new claims and volumes carry a finalizer, so that deleting one still
// in use waits until nothing uses it (the protection controllers remove the finalizer).
import { metadataOf } from '../../registry/objects.js';
import type { AdmissionPlugin } from '../types.js';
import { arrayOf, objectOf } from './support.js';

const FINALIZERS = new Map([
  ['persistentvolumeclaims', 'kubernetes.io/pvc-protection'],
  ['persistentvolumes', 'kubernetes.io/pv-protection'],
]);

export const storageObjectInUseProtection: AdmissionPlugin = {
  name: 'StorageObjectInUseProtection',
  operations: ['CREATE'],
  mutate(a) {
    if (a.subresource || a.info.group !== '') return;
    const finalizer = FINALIZERS.get(a.info.resource);
    const obj = objectOf(a.object);
    if (!finalizer || !obj) return;
    const meta = metadataOf(obj);
    const finalizers = arrayOf(meta['finalizers']);
    if (!finalizers.includes(finalizer)) meta['finalizers'] = [...finalizers, finalizer];
  },
};
