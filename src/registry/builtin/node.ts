// node.k8s.io: what is special about each of its resources.
import { runtimeClassTable } from '../../api/printers/index.js';
import { validateRuntimeClass, validateRuntimeClassUpdate } from '../../api/validation/node.js';
import type { BuiltinGroup } from './types.js';

export const node: BuiltinGroup = {
  name: 'node.k8s.io',
  resources: {
    runtimeclasses: {
      validation: { create: validateRuntimeClass, update: validateRuntimeClassUpdate },
      table: runtimeClassTable,
    },
  },
};
