// apiextensions.k8s.io: what is special about each of its resources.
import { defaultCustomResourceDefinition } from '../../api/defaults/apiextensions.js';
import type { BuiltinGroup } from './types.js';

export const apiextensions: BuiltinGroup = {
  name: 'apiextensions.k8s.io',
  // CustomResourceDefinitions do not validate metadata with the core rules.
  standardFinalizers: false,
  resources: {
    customresourcedefinitions: {
      tracksGeneration: true,
      returnsDeletedObject: true,
      defaults: { v1: defaultCustomResourceDefinition },
    },
  },
};
