// autoscaling: what is special about each of its resources.
import { convertHorizontalPodAutoscaler } from '../../api/conversion/autoscaling.js';
import { defaultHorizontalPodAutoscalerV1, defaultHorizontalPodAutoscalerV2, defaultHorizontalPodAutoscalerV2beta2 } from '../../api/defaults/autoscaling.js';
import { horizontalPodAutoscalerTable } from '../../api/printers/index.js';
import { validateHorizontalPodAutoscaler } from '../../api/validation/autoscaling.js';
import type { BuiltinGroup } from './types.js';

export const autoscaling: BuiltinGroup = {
  name: 'autoscaling',
  resources: {
    horizontalpodautoscalers: {
      deprecated: { v2beta2: { deprecatedIn: '1.23', removedIn: '1.26', replacement: 'autoscaling/v2 HorizontalPodAutoscaler' } },
      defaults: { v1: defaultHorizontalPodAutoscalerV1, v2: defaultHorizontalPodAutoscalerV2, v2beta2: defaultHorizontalPodAutoscalerV2beta2 },
      validation: { create: validateHorizontalPodAutoscaler },
      table: horizontalPodAutoscalerTable,
      convert: convertHorizontalPodAutoscaler,
    },
  },
};
