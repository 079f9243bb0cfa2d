// policy/v1 PodDisruptionBudgets: minAvailable or maxUnavailable (not both), a valid selector.
import { type FieldError, fieldInvalid } from '../../errors.js';
import { isNotMoreThan100Percent, validateIntOrPercent } from './apps.js';
import { obj, type Obj, present } from './helpers.js';
import { validateLabelSelector } from './label-selector.js';

export function validatePodDisruptionBudget(pdb: Obj): FieldError[] {
  const spec = obj(pdb['spec']);
  const errs: FieldError[] = [];
  if (present(spec['minAvailable']) && present(spec['maxUnavailable'])) errs.push(fieldInvalid('spec', spec, 'minAvailable and maxUnavailable cannot be both set'));
  for (const k of ['minAvailable', 'maxUnavailable']) {
    if (!present(spec[k])) continue;
    errs.push(...validateIntOrPercent(spec[k], `spec.${k}`), ...isNotMoreThan100Percent(spec[k], `spec.${k}`));
  }
  errs.push(...validateLabelSelector(spec['selector'], 'spec.selector'));
  return errs;
}
