// scheduling.k8s.io/v1 PriorityClasses: user values up to 1e9, system- names reserved, value fixed.
import { type FieldError, fieldForbidden } from '../../errors.js';
import { enumField, immutable, num, obj, type Obj, present, str } from './helpers.js';

const HIGHEST_USER_PRIORITY = 1000000000;
const SYSTEM_CLASSES: Record<string, number> = { 'system-node-critical': 2000001000, 'system-cluster-critical': 2000000000 };

export function validatePriorityClass(pc: Obj): FieldError[] {
  const name = str(obj(pc['metadata'])['name']);
  const value = num(pc['value']) ?? 0;
  const errs: FieldError[] = [];
  if (name.startsWith('system-')) {
    const known = SYSTEM_CLASSES[name];
    let why: string | undefined;
    if (known === undefined) why = `${name} is not a known system priority class`;
    else if (known !== value) why = `value of ${name} PriorityClass must be ${known}`;
    else if (pc['globalDefault'] === true) why = `globalDefault of ${name} PriorityClass must be false`;
    if (why) errs.push(fieldForbidden('metadata.name', `priority class names with 'system-' prefix are reserved for system use only. error: ${why}`));
  } else if (value > HIGHEST_USER_PRIORITY) {
    errs.push(fieldForbidden('value', `maximum allowed value of a user defined priority is ${HIGHEST_USER_PRIORITY}`));
  }
  if (present(pc['preemptionPolicy'])) errs.push(...enumField(pc['preemptionPolicy'], 'preemptionPolicy', ['PreemptLowerPriority', 'Never']));
  return errs;
}

export function validatePriorityClassUpdate(pc: Obj, old: Obj): FieldError[] {
  const errs: FieldError[] = [];
  if ((num(pc['value']) ?? 0) !== (num(old['value']) ?? 0)) errs.push(fieldForbidden('value', 'may not be changed in an update.'));
  errs.push(...immutable(pc['preemptionPolicy'], old['preemptionPolicy'], 'preemptionPolicy'));
  return errs;
}
