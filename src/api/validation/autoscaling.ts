// autoscaling HorizontalPodAutoscalers (v1 and v2): replica bounds, the scale target, metrics.
import { type FieldError, fieldInvalid, fieldNotSupported, fieldRequired } from '../../errors.js';
import { isValidPathSegmentName } from '../names.js';
import { child, index, invalidAll, num, obj, objs, type Obj, str } from './helpers.js';
import { isObject } from '../../json.js';

const METRIC_TYPES = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];
const SOURCE_FIELD: Record<string, string> = { ContainerResource: 'containerResource', External: 'external', Object: 'object', Pods: 'pods', Resource: 'resource' };

function validateTargetRef(ref: Obj, field: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const k of ['kind', 'name']) {
    const v = str(ref[k]);
    if (v === '') errs.push(fieldRequired(child(field, k)));
    else errs.push(...invalidAll(child(field, k), v, isValidPathSegmentName(v)));
  }
  return errs;
}

function validateMetrics(metrics: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  objs(metrics).forEach((m, i) => {
    const path = index(field, i);
    const type = str(m['type']);
    if (type === '') errs.push(fieldRequired(child(path, 'type'), 'must specify a metric source type'));
    if (!METRIC_TYPES.includes(type)) {
      errs.push(fieldNotSupported(child(path, 'type'), type, METRIC_TYPES));
      return;
    }
    const source = SOURCE_FIELD[type]!;
    if (!isObject(m[source])) errs.push(fieldRequired(child(path, source), 'must populate information for the given metric source'));
    for (const other of Object.values(SOURCE_FIELD)) {
      if (other !== source && isObject(m[other])) errs.push(fieldInvalid(child(path, other), m[other], 'must populate the given metric source only'));
    }
  });
  return errs;
}

export function validateHorizontalPodAutoscaler(hpa: Obj): FieldError[] {
  const spec = obj(hpa['spec']);
  const errs: FieldError[] = [];
  const min = num(spec['minReplicas']);
  const max = num(spec['maxReplicas']) ?? 0;
  if (min !== undefined && min < 1) errs.push(fieldInvalid('spec.minReplicas', min, 'must be greater than or equal to 1'));
  if (max < 1) errs.push(fieldInvalid('spec.maxReplicas', max, 'must be greater than 0'));
  if (min !== undefined && max < min) errs.push(fieldInvalid('spec.maxReplicas', max, 'must be greater than or equal to `minReplicas`'));
  errs.push(...validateTargetRef(obj(spec['scaleTargetRef']), 'spec.scaleTargetRef'));
  errs.push(...validateMetrics(spec['metrics'], 'spec.metrics'));
  const cpu = num(spec['targetCPUUtilizationPercentage']);
  if (cpu !== undefined && cpu < 1) errs.push(fieldInvalid('spec.metrics[0].resource.target.averageUtilization', cpu, 'must be greater than 0'));
  return errs;
}
