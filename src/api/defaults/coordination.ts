// coordination.k8s.io/v1 has no defaulter; a Lease's spec is a struct value, written {} when empty.
import { ensureObject, type Obj } from './fields.js';

export function defaultLease(lease: Obj): void {
  ensureObject(lease, 'spec');
}
