// Defaults of storage.k8s.io/v1.
import { ensureObject, setIfNil, setIfNoItems, type Obj } from './fields.js';

export function defaultStorageClass(storageClass: Obj): void {
  setIfNil(storageClass, 'reclaimPolicy', 'Delete');
  setIfNil(storageClass, 'volumeBindingMode', 'Immediate');
}

// seLinuxMount is defaulted only behind a feature gate that is alpha (off) in 1.25.
export function defaultCSIDriver(driver: Obj): void {
  const spec = ensureObject(driver, 'spec');
  if (!spec) return;
  setIfNil(spec, 'attachRequired', true);
  setIfNil(spec, 'podInfoOnMount', false);
  setIfNil(spec, 'storageCapacity', false);
  setIfNil(spec, 'fsGroupPolicy', 'ReadWriteOnceWithFSType');
  setIfNoItems(spec, 'volumeLifecycleModes', ['Persistent']);
  setIfNil(spec, 'requiresRepublish', false);
}

/** status.attached is written even when false. */
export function defaultVolumeAttachment(attachment: Obj): void {
  const status = ensureObject(attachment, 'status');
  if (status) setIfNil(status, 'attached', false);
}
