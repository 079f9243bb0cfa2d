// scheduling.k8s.io: what is special about each of its resources.
import { defaultPriorityClass } from '../../api/defaults/scheduling.js';
import { priorityClassTable } from '../../api/printers/index.js';
import { validatePriorityClass, validatePriorityClassUpdate } from '../../api/validation/scheduling.js';
import type { BuiltinGroup } from './types.js';

export const scheduling: BuiltinGroup = {
  name: 'scheduling.k8s.io',
  resources: {
    priorityclasses: {
      tracksGeneration: true,
      defaults: { v1: defaultPriorityClass },
      validation: { create: validatePriorityClass, update: validatePriorityClassUpdate },
      table: priorityClassTable,
    },
  },
};
