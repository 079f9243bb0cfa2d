// flowcontrol.apiserver.k8s.io FlowSchemas and PriorityLevelConfigurations (the basic rules).
import { type FieldError, fieldInvalid, fieldNotSupported, fieldRequired } from '../../errors.js';
import { child, inclusiveRange, index, num, obj, objs, type Obj, present, str } from './helpers.js';
import { isObject } from '../../json.js';

export function validateFlowSchema(fs: Obj): FieldError[] {
  const spec = obj(fs['spec']);
  const errs: FieldError[] = [];
  const precedence = num(spec['matchingPrecedence']);
  if (precedence !== undefined && (precedence <= 0 || precedence > 10000)) errs.push(fieldInvalid('spec.matchingPrecedence', precedence, inclusiveRange(1, 10000)));
  if (isObject(spec['distinguisherMethod'])) {
    const type = str(spec['distinguisherMethod']['type']);
    if (type !== 'ByNamespace' && type !== 'ByUser') errs.push(fieldNotSupported('spec.distinguisherMethod.type', type, ['ByNamespace', 'ByUser']));
  }
  if (str(obj(spec['priorityLevelConfiguration'])['name']) === '') errs.push(fieldRequired('spec.priorityLevelConfiguration.name', 'must reference a priority level'));
  objs(spec['rules']).forEach((rule, i) => {
    const path = index('spec.rules', i);
    if (objs(rule['subjects']).length === 0) errs.push(fieldRequired(child(path, 'subjects'), 'subjects must contain at least one value'));
    if (objs(rule['resourceRules']).length === 0 && objs(rule['nonResourceRules']).length === 0) {
      errs.push(fieldRequired(path, 'at least one of resourceRules and nonResourceRules has to be non-empty'));
    }
  });
  return errs;
}

export function validatePriorityLevelConfiguration(plc: Obj): FieldError[] {
  const spec = obj(plc['spec']);
  const type = str(spec['type']);
  const errs: FieldError[] = [];
  switch (type) {
    case 'Exempt':
      if (present(spec['limited'])) errs.push(fieldInvalid('spec.limited', 'field must be empty', 'must be nil if the type is not Limited'));
      break;
    case 'Limited':
      if (!isObject(spec['limited'])) errs.push(fieldRequired('spec.limited', 'must not be empty when type is Limited'));
      break;
    default:
      errs.push(fieldNotSupported('spec.type', type, ['Exempt', 'Limited']));
  }
  return errs;
}
