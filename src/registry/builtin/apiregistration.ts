// apiregistration.k8s.io: what is special about each of its resources.
import { defaultAPIService } from '../../api/defaults/apiregistration.js';
import { apiServiceTable } from '../../api/printers/index.js';
import type { BuiltinGroup } from './types.js';

export const apiregistration: BuiltinGroup = {
  name: 'apiregistration.k8s.io',
  // APIServices do not validate metadata with the core rules.
  standardFinalizers: false,
  resources: {
    apiservices: {
      // A path segment (the reference checks the name is `<version>.<group>`: `v1.` for the core group).
      nameRule: 'path',
      defaults: { v1: defaultAPIService },
      table: apiServiceTable,
    },
  },
};
