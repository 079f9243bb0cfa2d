// Defaults of batch/v1. A CronJob's job template gets only the pod template's defaults: the
// Job rules (completions, parallelism, backoffLimit, …) apply to Job objects alone.
import { ensureObject, entriesOf, noEntries, objectAt, setIfEmpty, setIfNil, zeroObjectMeta, type Obj } from './fields.js';
import { defaultPodTemplateAt } from './pod.js';

export function defaultJob(job: Obj): void {
  const spec = ensureObject(job, 'spec');
  if (!spec) return;
  // A non-parallel job may leave both unset: both become 1.
  if ((spec['completions'] === undefined || spec['completions'] === null) && (spec['parallelism'] === undefined || spec['parallelism'] === null)) {
    spec['completions'] = 1;
    spec['parallelism'] = 1;
  }
  setIfNil(spec, 'parallelism', 1);
  setIfNil(spec, 'backoffLimit', 6);
  // The job's labels default to its template's (which the registry may have just set).
  const template = objectAt(spec, 'template');
  const templateMeta = template && objectAt(template, 'metadata');
  const labels = templateMeta && entriesOf(templateMeta['labels']);
  const meta = ensureObject(job, 'metadata');
  if (labels && meta && noEntries(meta['labels'])) meta['labels'] = labels;
  setIfNil(spec, 'completionMode', 'NonIndexed');
  setIfNil(spec, 'suspend', false);
  defaultPodTemplateAt(spec, 'template', true);
}

export function defaultCronJob(cronJob: Obj): void {
  const spec = ensureObject(cronJob, 'spec');
  if (!spec) return;
  setIfEmpty(spec, 'concurrencyPolicy', 'Allow');
  setIfNil(spec, 'suspend', false);
  setIfNil(spec, 'successfulJobsHistoryLimit', 3);
  setIfNil(spec, 'failedJobsHistoryLimit', 1);
  // Written even when empty (no omitempty).
  setIfNil(spec, 'schedule', '');
  const jobTemplate = ensureObject(spec, 'jobTemplate');
  if (!jobTemplate) return;
  zeroObjectMeta(jobTemplate);
  const jobSpec = ensureObject(jobTemplate, 'spec');
  if (jobSpec) defaultPodTemplateAt(jobSpec, 'template', true);
}
