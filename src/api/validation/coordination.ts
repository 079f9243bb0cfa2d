// coordination.k8s.io/v1 Leases: a positive duration, non-negative transitions.
import { type FieldError, fieldInvalid } from '../../errors.js';
import { num, obj, type Obj } from './helpers.js';

export function validateLease(lease: Obj): FieldError[] {
  const spec = obj(lease['spec']);
  const errs: FieldError[] = [];
  const duration = num(spec['leaseDurationSeconds']);
  if (duration !== undefined && duration <= 0) errs.push(fieldInvalid('spec.leaseDurationSeconds', duration, 'must be greater than 0'));
  const transitions = num(spec['leaseTransitions']);
  if (transitions !== undefined && transitions < 0) errs.push(fieldInvalid('spec.leaseTransitions', transitions, 'must be greater than or equal to 0'));
  return errs;
}
