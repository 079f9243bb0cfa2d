// networking.k8s.io: what is special about each of its resources.
import { defaultIngress, defaultIngressClass, defaultNetworkPolicy } from '../../api/defaults/networking.js';
import { ingressClassTable, ingressTable, networkPolicyTable } from '../../api/printers/index.js';
import { validateIngress, validateIngressClass, validateIngressClassUpdate, validateNetworkPolicy } from '../../api/validation/networking.js';
import type { BuiltinGroup } from './types.js';

export const networking: BuiltinGroup = {
  name: 'networking.k8s.io',
  resources: {
    ingressclasses: {
      tracksGeneration: true,
      defaults: { v1: defaultIngressClass },
      validation: { create: validateIngressClass, update: validateIngressClassUpdate },
      table: ingressClassTable,
    },
    ingresses: {
      tracksGeneration: true,
      defaults: { v1: defaultIngress },
      validation: { create: validateIngress },
      table: ingressTable,
    },
    networkpolicies: {
      tracksGeneration: true,
      defaults: { v1: defaultNetworkPolicy },
      validation: { create: validateNetworkPolicy },
      table: networkPolicyTable,
    },
  },
};
