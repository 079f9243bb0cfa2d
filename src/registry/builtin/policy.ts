// policy: what is special about each of its resources.
import { defaultPodDisruptionBudget } from '../../api/defaults/policy.js';
import { podDisruptionBudgetTable } from '../../api/printers/index.js';
import { validatePodDisruptionBudget } from '../../api/validation/policy.js';
import type { BuiltinGroup } from './types.js';

export const policy: BuiltinGroup = {
  name: 'policy',
  resources: {
    poddisruptionbudgets: {
      tracksGeneration: true,
      defaults: { v1: defaultPodDisruptionBudget },
      validation: { create: validatePodDisruptionBudget },
      table: podDisruptionBudgetTable,
    },
  },
};
