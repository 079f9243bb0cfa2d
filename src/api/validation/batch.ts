// batch/v1 Jobs and CronJobs.
import { type FieldError, fieldInvalid, fieldNotSupported, fieldRequired } from '../../errors.js';
import { validatePodTemplateSpec } from './core-pod.js';
import { cronError } from './cron.js';
import { goLabelSelector, goStringMap } from './go-syntax.js';
import { child, enumField, immutable, invalidRendered, nonNegative, num, obj, type Obj, present, str } from './helpers.js';
import { asSelector, validateLabelSelector } from './label-selector.js';
import { isObject } from '../../json.js';

const MAX_PARALLELISM_INDEXED = 100000;

/** validateJobSpec: counts, completion mode, the pod template (restartPolicy OnFailure or Never). */
function validateJobSpecFields(spec: Obj, field: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const k of ['parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit', 'ttlSecondsAfterFinished']) errs.push(...nonNegative(spec[k], child(field, k)));
  if (present(spec['completionMode'])) {
    const mode = str(spec['completionMode']);
    if (mode !== 'NonIndexed' && mode !== 'Indexed') errs.push(fieldNotSupported(child(field, 'completionMode'), mode, ['NonIndexed', 'Indexed']));
    if (mode === 'Indexed') {
      if (!present(spec['completions'])) errs.push(fieldRequired(child(field, 'completions'), 'when completion mode is Indexed'));
      const parallelism = num(spec['parallelism']);
      if (parallelism !== undefined && parallelism > MAX_PARALLELISM_INDEXED) {
        errs.push(fieldInvalid(child(field, 'parallelism'), parallelism, `must be less than or equal to ${MAX_PARALLELISM_INDEXED} when completion mode is Indexed`));
      }
    }
  }
  const template = obj(spec['template']);
  errs.push(...validatePodTemplateSpec(template, child(field, 'template')));
  // An absent restartPolicy is defaulted to Always, which Jobs refuse.
  const restartPolicy = str(obj(template['spec'])['restartPolicy']);
  const policyPath = child(field, 'template', 'spec', 'restartPolicy');
  if (restartPolicy === 'Always' || restartPolicy === '') errs.push(fieldRequired(policyPath, 'valid values: "OnFailure", "Never"'));
  else if (restartPolicy !== 'OnFailure' && restartPolicy !== 'Never') errs.push(fieldNotSupported(policyPath, restartPolicy, ['OnFailure', 'Never']));
  return errs;
}

/**
 * ValidateJobSpec: the spec's fields and the selector. Without manualSelector the Job strategy
 * generates the selector (and the matching template labels), so an absent one is not reported.
 */
function validateJobSpec(spec: Obj, field: string): FieldError[] {
  const errs = validateJobSpecFields(spec, field);
  const generated = spec['manualSelector'] !== true && !isObject(spec['selector']);
  if (generated) return errs;
  if (!isObject(spec['selector'])) errs.push(fieldRequired(child(field, 'selector')));
  else errs.push(...validateLabelSelector(spec['selector'], child(field, 'selector')));
  const selector = asSelector(spec['selector']);
  const labels = obj(obj(obj(spec['template'])['metadata'])['labels']);
  if (selector && !selector.matches(labels)) {
    errs.push(invalidRendered(child(field, 'template', 'metadata', 'labels'), goStringMap(obj(obj(spec['template'])['metadata'])['labels']), '`selector` does not match template `labels`'));
  }
  return errs;
}

export function validateJob(job: Obj): FieldError[] {
  return validateJobSpec(obj(job['spec']), 'spec');
}

/** Completions, selector, template and completion mode are fixed once a Job exists. */
export function validateJobUpdate(job: Obj, old: Obj): FieldError[] {
  const spec = obj(job['spec']);
  const oldSpec = obj(old['spec']);
  return [
    ...validateJobSpec(spec, 'spec'),
    ...immutable(spec['completions'], oldSpec['completions'], 'spec.completions'),
    ...(isObject(spec['selector']) || isObject(oldSpec['selector']) ? immutable(spec['selector'], oldSpec['selector'], 'spec.selector', 'labelSelector') : []),
    ...immutable(spec['template'], oldSpec['template'], 'spec.template'),
    ...immutable(spec['completionMode'], oldSpec['completionMode'], 'spec.completionMode'),
  ];
}

function validateCronJobSpec(spec: Obj, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const schedule = str(spec['schedule']);
  if (schedule === '') errs.push(fieldRequired(child(field, 'schedule')));
  else {
    const why = cronError(schedule);
    if (why) errs.push(fieldInvalid(child(field, 'schedule'), schedule, why));
    if (schedule.includes('TZ') && present(spec['timeZone'])) errs.push(fieldInvalid(child(field, 'schedule'), schedule, 'cannot use both timeZone field and TZ or CRON_TZ in schedule'));
  }
  errs.push(...nonNegative(spec['startingDeadlineSeconds'], child(field, 'startingDeadlineSeconds')));
  errs.push(...enumField(spec['concurrencyPolicy'], child(field, 'concurrencyPolicy'), ['Allow', 'Forbid', 'Replace'], { defaulted: true }));
  const jobTemplate = obj(spec['jobTemplate']);
  const jobSpec = obj(jobTemplate['spec']);
  const jobPath = child(field, 'jobTemplate', 'spec');
  errs.push(...validateJobSpecFields(jobSpec, jobPath));
  if (isObject(jobSpec['selector'])) errs.push(invalidRendered(child(jobPath, 'selector'), goLabelSelector(jobSpec['selector']), '`selector` will be auto-generated'));
  if (jobSpec['manualSelector'] === true) errs.push(fieldNotSupported(child(jobPath, 'manualSelector'), true, ['nil', 'false']));
  errs.push(...nonNegative(spec['successfulJobsHistoryLimit'], child(field, 'successfulJobsHistoryLimit')));
  errs.push(...nonNegative(spec['failedJobsHistoryLimit'], child(field, 'failedJobsHistoryLimit')));
  return errs;
}

export function validateCronJob(cj: Obj): FieldError[] {
  const errs = validateCronJobSpec(obj(cj['spec']), 'spec');
  // The controller names jobs <name>-<11 characters>, and job names are at most 63.
  const name = str(obj(cj['metadata'])['name']);
  if (name.length > 52) errs.push(fieldInvalid('metadata.name', name, 'must be no more than 52 characters'));
  return errs;
}

export function validateCronJobUpdate(cj: Obj): FieldError[] {
  return validateCronJobSpec(obj(cj['spec']), 'spec');
}
