// discovery.k8s.io: what is special about each of its resources.
import { defaultEndpointSlice } from '../../api/defaults/discovery.js';
import { endpointSliceTable } from '../../api/printers/index.js';
import { validateEndpointSlice, validateEndpointSliceUpdate } from '../../api/validation/discovery.js';
import type { BuiltinGroup } from './types.js';

export const discovery: BuiltinGroup = {
  name: 'discovery.k8s.io',
  resources: {
    endpointslices: {
      tracksGeneration: true,
      defaults: { v1: defaultEndpointSlice },
      validation: { create: validateEndpointSlice, update: validateEndpointSliceUpdate },
      table: endpointSliceTable,
    },
  },
};
