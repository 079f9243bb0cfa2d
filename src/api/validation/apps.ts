// apps/v1 workloads: Deployment, ReplicaSet, StatefulSet, DaemonSet (and ControllerRevision).
import { type FieldError, fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired } from '../../errors.js';
import { regexError, validateLabels } from '../names.js';
import { validatePVCSpec } from './core-storage.js';
import { validatePodTemplateSpec } from './core-pod.js';
import { goLabelSelector, goStringMap, intOrString } from './go-syntax.js';
import { child, enumField, immutable, index, invalidRendered, nonNegative, num, obj, objs, type Obj, present, semanticEqual, str } from './helpers.js';
import { asSelector, selectorHasNoRequirements, validateLabelSelector } from './label-selector.js';
import { isObject } from '../../json.js';

const PERCENT_FMT = '[0-9]+%';

/** ValidatePositiveIntOrPercent: a non-negative number or "N%". */
export function validateIntOrPercent(value: unknown, field: string): FieldError[] {
  if (typeof value === 'string') {
    return /^[0-9]+%$/.test(value) ? [] : [invalidRendered(field, intOrString(value), regexError("a valid percent string must be a numeric string followed by an ending '%'", PERCENT_FMT, '1%', '93%'))];
  }
  return nonNegative(value, field);
}

export function isNotMoreThan100Percent(value: unknown, field: string): FieldError[] {
  if (typeof value !== 'string' || !/^[0-9]+%$/.test(value)) return [];
  return Number(value.slice(0, -1)) > 100 ? [invalidRendered(field, intOrString(value), 'must not be greater than 100%')] : [];
}

/** getIntOrPercentValue: the number, or the percentage's number. */
function intOrPercentValue(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^[0-9]+%$/.test(value)) return Number(value.slice(0, -1));
  return 0;
}

/** A workload selector: required, valid, not empty; then the template's labels must match it. */
function validateSelectorAndTemplate(spec: Obj, kind: string, field: string): { errors: FieldError[]; matches: boolean } {
  const errors: FieldError[] = [];
  const selector = spec['selector'];
  if (!isObject(selector)) errors.push(fieldRequired(child(field, 'selector')));
  else {
    errors.push(...validateLabelSelector(selector, child(field, 'selector')));
    if (selectorHasNoRequirements(selector)) errors.push(invalidRendered(child(field, 'selector'), goLabelSelector(selector), `empty selector is invalid for ${kind}`));
  }
  const converted = asSelector(selector);
  if (!converted) {
    errors.push(invalidRendered(child(field, 'selector'), goLabelSelector(selector), kind === 'statefulset' ? '' : 'invalid label selector'));
    return { errors, matches: false };
  }
  const template = obj(spec['template']);
  const labels = obj(obj(template['metadata'])['labels']);
  if (!converted.empty && !converted.matches(labels)) {
    errors.push(invalidRendered(child(field, 'template', 'metadata', 'labels'), goStringMap(obj(template['metadata'])['labels']), '`selector` does not match template `labels`'));
  }
  return { errors, matches: true };
}

/** A replica set's template: a pod template whose restartPolicy is Always, without a deadline. */
function validateReplicaSetTemplate(spec: Obj, field: string, owner: string): FieldError[] {
  const template = obj(spec['template']);
  const errs = validatePodTemplateSpec(template, field);
  const podSpec = obj(template['spec']);
  if (present(podSpec['restartPolicy']) && podSpec['restartPolicy'] !== 'Always') errs.push(fieldNotSupported(child(field, 'spec', 'restartPolicy'), podSpec['restartPolicy'], ['Always']));
  if (present(podSpec['activeDeadlineSeconds'])) errs.push(fieldInvalid(child(field, 'spec', 'activeDeadlineSeconds'), podSpec['activeDeadlineSeconds'], `activeDeadlineSeconds in ${owner} is not Supported`));
  return errs;
}

function validateDeploymentStrategy(strategy: Obj, field: string): FieldError[] {
  const type = str(strategy['type']);
  if (type === '') return []; // defaulted to RollingUpdate (with its defaults)
  if (type === 'Recreate') return present(strategy['rollingUpdate']) ? [fieldForbidden(child(field, 'rollingUpdate'), "may not be specified when strategy `type` is 'Recreate'")] : [];
  if (type !== 'RollingUpdate') return [fieldNotSupported(field, strategy, ['Recreate', 'RollingUpdate'])];
  if (!isObject(strategy['rollingUpdate'])) return [];
  const ru = strategy['rollingUpdate'];
  const path = child(field, 'rollingUpdate');
  // Absent values are defaulted to 25%.
  const unavailable = ru['maxUnavailable'] ?? '25%';
  const surge = ru['maxSurge'] ?? '25%';
  const errs = [...validateIntOrPercent(unavailable, child(path, 'maxUnavailable')), ...validateIntOrPercent(surge, child(path, 'maxSurge'))];
  if (intOrPercentValue(unavailable) === 0 && intOrPercentValue(surge) === 0) errs.push(invalidRendered(child(path, 'maxUnavailable'), intOrString(unavailable), 'may not be 0 when `maxSurge` is 0'));
  errs.push(...isNotMoreThan100Percent(unavailable, child(path, 'maxUnavailable')));
  return errs;
}

export function validateDeployment(d: Obj): FieldError[] {
  const spec = obj(d['spec']);
  const errs = [...nonNegative(spec['replicas'], 'spec.replicas')];
  const { errors, matches } = validateSelectorAndTemplate(spec, 'deployment', 'spec');
  errs.push(...errors);
  if (matches) errs.push(...validateReplicaSetTemplate(spec, 'spec.template', 'ReplicaSet'));
  errs.push(...validateDeploymentStrategy(obj(spec['strategy']), 'spec.strategy'));
  errs.push(...nonNegative(spec['minReadySeconds'], 'spec.minReadySeconds'), ...nonNegative(spec['revisionHistoryLimit'], 'spec.revisionHistoryLimit'));
  const deadline = num(spec['progressDeadlineSeconds']);
  if (deadline !== undefined) {
    errs.push(...nonNegative(deadline, 'spec.progressDeadlineSeconds'));
    if (deadline <= (num(spec['minReadySeconds']) ?? 0)) errs.push(fieldInvalid('spec.progressDeadlineSeconds', deadline, 'must be greater than minReadySeconds'));
  }
  return errs;
}

const selectorImmutable = (next: Obj, old: Obj): FieldError[] => immutable(obj(next['spec'])['selector'], obj(old['spec'])['selector'], 'spec.selector', 'labelSelector');

export const validateDeploymentUpdate = (d: Obj, old: Obj): FieldError[] => [...validateDeployment(d), ...selectorImmutable(d, old)];

export function validateReplicaSet(rs: Obj): FieldError[] {
  const spec = obj(rs['spec']);
  const errs = [...nonNegative(spec['replicas'], 'spec.replicas'), ...nonNegative(spec['minReadySeconds'], 'spec.minReadySeconds')];
  // The reference's ReplicaSet message says "deployment" too.
  const { errors, matches } = validateSelectorAndTemplate(spec, 'deployment', 'spec');
  errs.push(...errors);
  if (matches) errs.push(...validateReplicaSetTemplate(spec, 'spec.template', 'ReplicaSet'));
  return errs;
}

export const validateReplicaSetUpdate = (rs: Obj, old: Obj): FieldError[] => [...validateReplicaSet(rs), ...selectorImmutable(rs, old)];

export function validateStatefulSet(ss: Obj): FieldError[] {
  const spec = obj(ss['spec']);
  const errs: FieldError[] = [];
  const policy = str(spec['podManagementPolicy']);
  if (policy !== '' && policy !== 'OrderedReady' && policy !== 'Parallel') errs.push(fieldInvalid('spec.podManagementPolicy', policy, "must be 'OrderedReady' or 'Parallel'"));
  const strategy = obj(spec['updateStrategy']);
  const strategyType = str(strategy['type']);
  if (strategyType === 'OnDelete' && present(strategy['rollingUpdate'])) {
    errs.push(fieldInvalid('spec.updateStrategy.rollingUpdate', strategy['rollingUpdate'], "only allowed for updateStrategy 'RollingUpdate'"));
  } else if (strategyType === 'RollingUpdate' && isObject(strategy['rollingUpdate'])) {
    const ru = strategy['rollingUpdate'];
    errs.push(...nonNegative(ru['partition'], 'spec.updateStrategy.rollingUpdate.partition'));
    if (present(ru['maxUnavailable'])) errs.push(...validateIntOrPercent(ru['maxUnavailable'], 'spec.updateStrategy.rollingUpdate.maxUnavailable'));
  } else if (strategyType !== '' && strategyType !== 'OnDelete' && strategyType !== 'RollingUpdate') {
    errs.push(fieldInvalid('spec.updateStrategy', strategy, "must be 'RollingUpdate' or 'OnDelete'"));
  }
  const retention = obj(spec['persistentVolumeClaimRetentionPolicy']);
  for (const k of ['whenDeleted', 'whenScaled']) {
    if (present(retention[k])) errs.push(...enumField(retention[k], child('spec.persistentVolumeClaimRetentionPolicy', k), ['Retain', 'Delete']));
  }
  errs.push(...nonNegative(spec['replicas'], 'spec.replicas'), ...nonNegative(spec['minReadySeconds'], 'spec.minReadySeconds'));
  const { errors } = validateSelectorAndTemplate(spec, 'statefulset', 'spec');
  errs.push(...errors);
  // 1.25 checks the template's metadata only (its pod spec is left to the pods).
  const template = obj(spec['template']);
  errs.push(...validateLabels(obj(template['metadata'])['labels'], 'spec.template.labels'));
  const podSpec = obj(template['spec']);
  if (present(podSpec['restartPolicy']) && podSpec['restartPolicy'] !== 'Always') errs.push(fieldNotSupported('spec.template.spec.restartPolicy', podSpec['restartPolicy'], ['Always']));
  if (present(podSpec['activeDeadlineSeconds'])) errs.push(fieldForbidden('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in StatefulSet is not Supported'));
  objs(spec['volumeClaimTemplates']).forEach((t, i) => errs.push(...validatePVCSpec(obj(t['spec']), child(index('spec.volumeClaimTemplates', i), 'spec'))));
  return errs;
}

/** Only replicas, template, updateStrategy, persistentVolumeClaimRetentionPolicy and minReadySeconds may change. */
export function validateStatefulSetUpdate(ss: Obj, old: Obj): FieldError[] {
  const errs = validateStatefulSet(ss);
  const strip = (s: Obj) => {
    const copy = { ...obj(s['spec']) };
    for (const k of ['replicas', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds']) delete copy[k];
    return copy;
  };
  if (!semanticEqual(strip(ss), strip(old))) {
    errs.push(fieldForbidden('spec', "updates to statefulset spec for fields other than 'replicas', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"));
  }
  return errs;
}

function validateDaemonSetStrategy(strategy: Obj, field: string): FieldError[] {
  const type = str(strategy['type']);
  if (type === '' || type === 'OnDelete') return [];
  if (type !== 'RollingUpdate') return [fieldNotSupported(field, strategy, ['RollingUpdate', 'OnDelete'])];
  if (!isObject(strategy['rollingUpdate'])) return [];
  const ru = strategy['rollingUpdate'];
  const path = child(field, 'rollingUpdate');
  // Defaults: maxUnavailable 1, maxSurge 0.
  const unavailable = ru['maxUnavailable'] ?? 1;
  const surge = ru['maxSurge'] ?? 0;
  const errs = [...validateIntOrPercent(unavailable, child(path, 'maxUnavailable')), ...validateIntOrPercent(surge, child(path, 'maxSurge'))];
  errs.push(...isNotMoreThan100Percent(unavailable, child(path, 'maxUnavailable')), ...isNotMoreThan100Percent(surge, child(path, 'maxSurge')));
  const hasUnavailable = intOrPercentValue(unavailable) !== 0;
  const hasSurge = intOrPercentValue(surge) !== 0;
  if (hasUnavailable && hasSurge) errs.push(invalidRendered(child(path, 'maxSurge'), intOrString(surge), 'may not be set when maxUnavailable is non-zero'));
  if (!hasUnavailable && !hasSurge) errs.push(fieldRequired(child(path, 'maxUnavailable'), 'cannot be 0 when maxSurge is 0'));
  return errs;
}

export function validateDaemonSet(ds: Obj): FieldError[] {
  const spec = obj(ds['spec']);
  const errs = validateLabelSelector(spec['selector'], 'spec.selector');
  const template = obj(spec['template']);
  const converted = asSelector(spec['selector']);
  if (converted && !converted.matches(obj(obj(template['metadata'])['labels']))) {
    errs.push(invalidRendered('spec.template.metadata.labels', goStringMap(obj(template['metadata'])['labels']), '`selector` does not match template `labels`'));
  }
  if (isObject(spec['selector']) && selectorHasNoRequirements(spec['selector'])) errs.push(invalidRendered('spec.selector', goLabelSelector(spec['selector']), 'empty selector is invalid for daemonset'));
  errs.push(...validateReplicaSetTemplate(spec, 'spec.template', 'DaemonSet'));
  errs.push(...nonNegative(spec['minReadySeconds'], 'spec.minReadySeconds'), ...nonNegative(spec['templateGeneration'], 'spec.templateGeneration'));
  errs.push(...validateDaemonSetStrategy(obj(spec['updateStrategy']), 'spec.updateStrategy'));
  errs.push(...nonNegative(spec['revisionHistoryLimit'], 'spec.revisionHistoryLimit'));
  return errs;
}

export const validateDaemonSetUpdate = (ds: Obj, old: Obj): FieldError[] => [...validateDaemonSet(ds), ...selectorImmutable(ds, old)];

export function validateControllerRevision(rev: Obj): FieldError[] {
  return [...(present(rev['data']) ? [] : [fieldRequired('data', 'data is mandatory')]), ...nonNegative(rev['revision'], 'revision')];
}

export function validateControllerRevisionUpdate(rev: Obj, old: Obj): FieldError[] {
  return [...validateControllerRevision(rev), ...immutable(rev['data'], old['data'], 'data')];
}
