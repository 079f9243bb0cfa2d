// storage.k8s.io: what is special about each of its resources.
import { defaultCSIDriver, defaultStorageClass, defaultVolumeAttachment } from '../../api/defaults/storage.js';
import { csiDriverTable, csiNodeTable, storageClassTable, volumeAttachmentTable } from '../../api/printers/index.js';
import {
  validateCSIDriver, validateCSIDriverUpdate, validateStorageClass, validateStorageClassUpdate, validateVolumeAttachment, validateVolumeAttachmentUpdate,
} from '../../api/validation/storage.js';
import type { BuiltinGroup } from './types.js';

export const storage: BuiltinGroup = {
  name: 'storage.k8s.io',
  resources: {
    csidrivers: {
      defaults: { v1: defaultCSIDriver },
      validation: { create: validateCSIDriver, update: validateCSIDriverUpdate },
      table: csiDriverTable,
    },
    csinodes: { table: csiNodeTable },
    csistoragecapacities: {
      deprecated: { v1beta1: { deprecatedIn: '1.24', removedIn: '1.27', replacement: 'storage.k8s.io/v1 CSIStorageCapacity' } },
    },
    storageclasses: {
      returnsDeletedObject: true,
      defaults: { v1: defaultStorageClass },
      validation: { create: validateStorageClass, update: validateStorageClassUpdate },
      table: storageClassTable,
    },
    volumeattachments: {
      defaults: { v1: defaultVolumeAttachment },
      validation: { create: validateVolumeAttachment, update: validateVolumeAttachmentUpdate },
      table: volumeAttachmentTable,
    },
  },
};
