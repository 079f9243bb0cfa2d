// Where a pod may run: tolerations, node and pod affinity, topology spread constraints.
import { type FieldError, fieldDuplicate, fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired } from '../../errors.js';
import { isValidLabelValue } from '../names.js';
import { child, dnsLabel, enumField, index, num, obj, objs, type Obj, present, qualifiedName, semanticEqual, str, strings } from './helpers.js';
import { validateLabelSelector } from './label-selector.js';
import { isObject } from '../../json.js';

export function validateTolerations(list: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  objs(list).forEach((t, i) => {
    const path = index(field, i);
    const k = str(t['key']);
    const operator = str(t['operator']);
    const effect = str(t['effect']);
    if (k !== '') errs.push(...qualifiedName(k, child(path, 'key')));
    if (k === '' && operator !== 'Exists') {
      errs.push(fieldInvalid(child(path, 'operator'), operator, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    }
    if (present(t['tolerationSeconds']) && effect !== 'NoExecute') errs.push(fieldInvalid(child(path, 'effect'), effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    switch (operator) {
      case 'Equal':
      case '': {
        const msgs = isValidLabelValue(str(t['value']));
        if (msgs.length) errs.push(fieldInvalid(child(path, 'operator'), str(t['value']), msgs.join(';')));
        break;
      }
      case 'Exists':
        if (str(t['value']) !== '') errs.push(fieldInvalid(child(path, 'operator'), t, "value must be empty when `operator` is 'Exists'"));
        break;
      default:
        errs.push(fieldNotSupported(child(path, 'operator'), operator, ['Equal', 'Exists']));
    }
    if (effect !== '') errs.push(...enumField(effect, child(path, 'effect'), ['NoSchedule', 'PreferNoSchedule', 'NoExecute']));
  });
  return errs;
}

/** Pod updates may only add tolerations (or change an existing one's tolerationSeconds). */
export function validateOnlyAddedTolerations(next: unknown, old: unknown, field: string): FieldError[] {
  const added = objs(next);
  for (const previous of objs(old)) {
    const kept = added.some((t) => semanticEqual({ ...previous, tolerationSeconds: t['tolerationSeconds'] }, t));
    if (!kept) return [fieldForbidden(field, 'existing toleration can not be modified except its tolerationSeconds')];
  }
  return validateTolerations(next, field);
}

function validateNodeSelectorTerm(term: Obj, field: string): FieldError[] {
  const errs: FieldError[] = [];
  objs(term['matchExpressions']).forEach((req, j) => {
    const path = index(child(field, 'matchExpressions'), j);
    const values = strings(req['values']);
    const operator = str(req['operator']);
    if ((operator === 'In' || operator === 'NotIn') && values.length === 0) errs.push(fieldRequired(child(path, 'values'), "must be specified when `operator` is 'In' or 'NotIn'"));
    else if ((operator === 'Exists' || operator === 'DoesNotExist') && values.length > 0) errs.push(fieldForbidden(child(path, 'values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    else if ((operator === 'Gt' || operator === 'Lt') && values.length !== 1) errs.push(fieldRequired(child(path, 'values'), "must be specified single value when `operator` is 'Lt' or 'Gt'"));
    else if (!['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'].includes(operator)) errs.push(fieldInvalid(child(path, 'operator'), operator, 'not a valid selector operator'));
    errs.push(...qualifiedName(str(req['key']), child(path, 'key')));
  });
  objs(term['matchFields']).forEach((req, j) => {
    const path = index(child(field, 'matchFields'), j);
    if (str(req['key']) !== 'metadata.name') errs.push(fieldInvalid(child(path, 'key'), str(req['key']), 'not a valid field selector key'));
    const operator = str(req['operator']);
    if (operator !== 'In' && operator !== 'NotIn') errs.push(fieldInvalid(child(path, 'operator'), operator, 'not a valid selector operator'));
    else if (strings(req['values']).length !== 1) errs.push(fieldRequired(child(path, 'values'), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
  });
  return errs;
}

function validatePodAffinityTerm(term: Obj, field: string): FieldError[] {
  const errs = [...validateLabelSelector(term['labelSelector'], child(field, 'labelSelector')), ...validateLabelSelector(term['namespaceSelector'], child(field, 'namespaceSelector'))];
  for (const ns of strings(term['namespaces'])) errs.push(...dnsLabel(ns, child(field, 'namespace')));
  const topologyKey = str(term['topologyKey']);
  if (topologyKey === '') errs.push(fieldRequired(child(field, 'topologyKey'), 'can not be empty'));
  errs.push(...qualifiedName(topologyKey, child(field, 'topologyKey')));
  return errs;
}

function weight(value: unknown, field: string): FieldError[] {
  const w = num(value) ?? 0;
  return w <= 0 || w > 100 ? [fieldInvalid(field, w, 'must be in the range 1-100')] : [];
}

export function validateAffinity(affinity: unknown, field: string): FieldError[] {
  if (!isObject(affinity)) return [];
  const errs: FieldError[] = [];
  const node = affinity['nodeAffinity'];
  if (isObject(node)) {
    const nodePath = child(field, 'nodeAffinity');
    const required = node['requiredDuringSchedulingIgnoredDuringExecution'];
    if (isObject(required)) {
      const termsPath = child(nodePath, 'requiredDuringSchedulingIgnoredDuringExecution', 'nodeSelectorTerms');
      const terms = objs(required['nodeSelectorTerms']);
      if (terms.length === 0) errs.push(fieldRequired(termsPath, 'must have at least one node selector term'));
      terms.forEach((t, i) => errs.push(...validateNodeSelectorTerm(t, index(termsPath, i))));
    }
    objs(node['preferredDuringSchedulingIgnoredDuringExecution']).forEach((t, i) => {
      const path = index(child(nodePath, 'preferredDuringSchedulingIgnoredDuringExecution'), i);
      errs.push(...weight(t['weight'], child(path, 'weight')), ...validateNodeSelectorTerm(obj(t['preference']), child(path, 'preference')));
    });
  }
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    if (!isObject(affinity[kind])) continue;
    const podPath = child(field, kind);
    objs(affinity[kind]['requiredDuringSchedulingIgnoredDuringExecution']).forEach((t, i) => {
      errs.push(...validatePodAffinityTerm(t, index(child(podPath, 'requiredDuringSchedulingIgnoredDuringExecution'), i)));
    });
    objs(affinity[kind]['preferredDuringSchedulingIgnoredDuringExecution']).forEach((t, i) => {
      const path = index(child(podPath, 'preferredDuringSchedulingIgnoredDuringExecution'), i);
      errs.push(...weight(t['weight'], child(path, 'weight')), ...validatePodAffinityTerm(obj(t['podAffinityTerm']), child(path, 'podAffinityTerm')));
    });
  }
  return errs;
}

export function validateTopologySpread(list: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const constraints = objs(list);
  constraints.forEach((c, i) => {
    const path = index(field, i);
    const maxSkew = num(c['maxSkew']) ?? 0;
    if (maxSkew <= 0) errs.push(fieldInvalid(child(path, 'maxSkew'), maxSkew, 'must be greater than zero'));
    if (str(c['topologyKey']) === '') errs.push(fieldRequired(child(path, 'topologyKey'), 'can not be empty'));
    const when = str(c['whenUnsatisfiable']);
    if (!['DoNotSchedule', 'ScheduleAnyway'].includes(when)) errs.push(fieldNotSupported(child(path, 'whenUnsatisfiable'), when, ['DoNotSchedule', 'ScheduleAnyway']));
    if (constraints.slice(i + 1).some((o) => o['topologyKey'] === c['topologyKey'] && o['whenUnsatisfiable'] === c['whenUnsatisfiable'])) {
      errs.push(fieldDuplicate(child(path, '{topologyKey, whenUnsatisfiable}'), `{${str(c['topologyKey'])}, ${when}}`));
    }
    const minDomains = num(c['minDomains']);
    if (minDomains !== undefined) {
      if (minDomains <= 0) errs.push(fieldInvalid(child(path, 'minDomains'), minDomains, 'must be greater than zero'));
      else if (when !== 'DoNotSchedule') errs.push(fieldInvalid(child(path, 'minDomains'), minDomains, 'can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway'));
    }
    errs.push(...validateLabelSelector(c['labelSelector'], child(path, 'labelSelector')));
  });
  return errs;
}
