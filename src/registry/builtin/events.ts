// events.k8s.io: what is special about each of its resources.
import { convertEvent } from '../../api/conversion/events.js';
import { defaultEvent } from '../../api/defaults/events.js';
import { eventTable } from '../../api/printers/index.js';
import { eventFields } from '../../api/selectable-fields.js';
import { validateEvent, validateEventUpdate } from '../../api/validation/events.js';
import { createOnUpdate } from '../strategies.js';
import type { BuiltinGroup } from './types.js';

export const events: BuiltinGroup = {
  name: 'events.k8s.io',
  resources: {
    // The core group's events seen through another API, as the reference serves them: one object,
    // stored as core/v1 under /registry/events (registry/keys.ts), converted on the way in and out.
    events: {
      defaults: { v1: defaultEvent },
      validation: { create: validateEvent, update: validateEventUpdate },
      strategy: createOnUpdate,
      table: eventTable,
      selectableFields: eventFields,
      convertAcross: convertEvent,
    },
  },
};
