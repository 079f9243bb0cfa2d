// Defaults of autoscaling HorizontalPodAutoscalers. v1 defaults only minReplicas (its CPU
// target is a conversion matter); v2 and v2beta2 add the 80% CPU metric and, when a behavior
// is given, complete its scaling rules.
import { ensureObject, setIfNil, type Obj } from './fields.js';
import { isObject, copyJson } from '../../json.js';

const DEFAULT_CPU_UTILIZATION = 80;

const SCALE_UP_RULES = {
  stabilizationWindowSeconds: 0,
  selectPolicy: 'Max',
  policies: [
    { type: 'Pods', value: 4, periodSeconds: 15 },
    { type: 'Percent', value: 100, periodSeconds: 15 },
  ],
};

// No stabilization window: the controller's --horizontal-pod-autoscaler-downscale-stabilization
// flag applies when it is unset.
const SCALE_DOWN_RULES = {
  selectPolicy: 'Max',
  policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }],
};

/** The given rules' fields, the defaults for the others (a wrongly typed rule is kept as is). */
function scalingRules(given: unknown, defaults: Obj): unknown {
  if (given !== undefined && given !== null && !isObject(given)) return given;
  const rules = copyJson(defaults);
  if (isObject(given)) {
    for (const key of ['selectPolicy', 'stabilizationWindowSeconds', 'policies']) {
      if (given[key] !== undefined && given[key] !== null) rules[key] = given[key];
    }
    for (const [key, value] of Object.entries(given)) if (!(key in rules)) rules[key] = value;
  }
  return rules;
}

/** Status fields written even when zero or empty (a nil list is written as null). */
function zeroStatus(hpa: Obj, numbers: string[], lists: string[]): void {
  const status = ensureObject(hpa, 'status');
  if (!status) return;
  for (const field of numbers) setIfNil(status, field, 0);
  for (const field of lists) if (status[field] === undefined) status[field] = null;
}

export function defaultHorizontalPodAutoscalerV1(hpa: Obj): void {
  const spec = ensureObject(hpa, 'spec');
  if (spec) setIfNil(spec, 'minReplicas', 1);
  zeroStatus(hpa, ['currentReplicas', 'desiredReplicas'], []);
}

function defaultV2Spec(spec: Obj): void {
  setIfNil(spec, 'minReplicas', 1);
  const metrics = spec['metrics'];
  if (metrics === undefined || metrics === null || (Array.isArray(metrics) && metrics.length === 0)) {
    spec['metrics'] = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: DEFAULT_CPU_UTILIZATION } } }];
  }
  const behavior = spec['behavior'];
  if (isObject(behavior)) {
    behavior['scaleUp'] = scalingRules(behavior['scaleUp'], SCALE_UP_RULES);
    behavior['scaleDown'] = scalingRules(behavior['scaleDown'], SCALE_DOWN_RULES);
  }
}

export function defaultHorizontalPodAutoscalerV2(hpa: Obj): void {
  const spec = ensureObject(hpa, 'spec');
  if (spec) defaultV2Spec(spec);
  zeroStatus(hpa, ['desiredReplicas'], ['currentMetrics']);
}

export function defaultHorizontalPodAutoscalerV2beta2(hpa: Obj): void {
  const spec = ensureObject(hpa, 'spec');
  if (spec) defaultV2Spec(spec);
  zeroStatus(hpa, ['currentReplicas', 'desiredReplicas'], ['currentMetrics', 'conditions']);
}
