// admissionregistration.k8s.io: what is special about each of its resources.
import { defaultMutatingWebhookConfiguration, defaultValidatingWebhookConfiguration } from '../../api/defaults/admissionregistration.js';
import { mutatingWebhookConfigurationTable, validatingWebhookConfigurationTable } from '../../api/printers/index.js';
import { validateWebhookConfiguration } from '../../api/validation/admissionregistration.js';
import type { BuiltinGroup } from './types.js';

export const admissionregistration: BuiltinGroup = {
  name: 'admissionregistration.k8s.io',
  resources: {
    mutatingwebhookconfigurations: {
      tracksGeneration: true,
      defaults: { v1: defaultMutatingWebhookConfiguration },
      validation: { create: (o) => validateWebhookConfiguration(o, true) },
      table: mutatingWebhookConfigurationTable,
    },
    validatingwebhookconfigurations: {
      tracksGeneration: true,
      defaults: { v1: defaultValidatingWebhookConfiguration },
      validation: { create: (o) => validateWebhookConfiguration(o, false) },
      table: validatingWebhookConfigurationTable,
    },
  },
};
