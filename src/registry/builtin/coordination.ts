// coordination.k8s.io: what is special about each of its resources.
import { defaultLease } from '../../api/defaults/coordination.js';
import { leaseTable } from '../../api/printers/index.js';
import { validateLease } from '../../api/validation/coordination.js';
import { createOnUpdate } from '../strategies.js';
import type { BuiltinGroup } from './types.js';

export const coordination: BuiltinGroup = {
  name: 'coordination.k8s.io',
  resources: {
    leases: {
      defaults: { v1: defaultLease },
      validation: { create: validateLease },
      strategy: createOnUpdate,
      table: leaseTable,
    },
  },
};
