// batch: what is special about each of its resources.
import { defaultCronJob, defaultJob } from '../../api/defaults/batch.js';
import { cronJobTable, jobTable } from '../../api/printers/index.js';
import { jobFields } from '../../api/selectable-fields.js';
import { validateCronJob, validateCronJobUpdate, validateJob, validateJobUpdate } from '../../api/validation/batch.js';
import { annotationsOf, metadataOf } from '../objects.js';
import type { Strategy } from '../strategies.js';
import { podTemplateAt } from './pod-template.js';
import type { BuiltinGroup } from './types.js';
import { type JsonObject } from '../../json.js';

// A Job selects its own pods by its uid unless it asks for a manual selector; it is tracked with
// finalizers (the 1.25 default).
const jobStrategy: Strategy = {
  prepareForCreate(obj) {
    const meta = metadataOf(obj);
    annotationsOf(obj)['batch.kubernetes.io/job-tracking'] = '';
    const spec = (typeof obj['spec'] === 'object' && obj['spec'] !== null ? obj['spec'] : {}) as JsonObject;
    obj['spec'] = spec;
    if (spec['manualSelector'] === true) return;
    const template = (typeof spec['template'] === 'object' && spec['template'] !== null ? spec['template'] : {}) as JsonObject;
    spec['template'] = template;
    const templateMeta = (typeof template['metadata'] === 'object' && template['metadata'] !== null ? template['metadata'] : {}) as JsonObject;
    template['metadata'] = templateMeta;
    const labels = (typeof templateMeta['labels'] === 'object' && templateMeta['labels'] !== null ? templateMeta['labels'] : {}) as Record<string, string>;
    templateMeta['labels'] = labels;
    labels['controller-uid'] ??= String(meta['uid']);
    labels['job-name'] ??= String(meta['name']);
    const selector = (typeof spec['selector'] === 'object' && spec['selector'] !== null ? spec['selector'] : {}) as JsonObject;
    spec['selector'] = selector;
    const matchLabels = (typeof selector['matchLabels'] === 'object' && selector['matchLabels'] !== null ? selector['matchLabels'] : {}) as Record<string, string>;
    selector['matchLabels'] = matchLabels;
    matchLabels['controller-uid'] ??= String(meta['uid']);
  },
};

export const batch: BuiltinGroup = {
  name: 'batch',
  resources: {
    cronjobs: {
      tracksGeneration: true,
      defaults: { v1: defaultCronJob },
      validation: { create: validateCronJob, update: validateCronJobUpdate },
      table: cronJobTable,
      podTemplate: podTemplateAt('spec', 'jobTemplate', 'spec', 'template'),
    },
    jobs: {
      tracksGeneration: true,
      defaults: { v1: defaultJob },
      validation: { create: validateJob, update: validateJobUpdate },
      strategy: jobStrategy,
      table: jobTable,
      selectableFields: jobFields,
      podTemplate: podTemplateAt('spec', 'template'),
    },
  },
};
