// events.k8s.io: what is special about each of its resources.
import { defaultEvent } from '../../api/defaults/events.js';
import { eventTable } from '../../api/printers/index.js';
import { eventFields } from '../../api/selectable-fields.js';
import { validateEvent } from '../../api/validation/events.js';
import { createOnUpdate } from '../strategies.js';
import type { BuiltinGroup } from './types.js';

export const events: BuiltinGroup = {
  name: 'events.k8s.io',
  resources: {
    events: {
      defaults: { v1: defaultEvent },
      validation: { create: validateEvent },
      strategy: createOnUpdate,
      table: eventTable,
      selectableFields: eventFields,
    },
  },
};
