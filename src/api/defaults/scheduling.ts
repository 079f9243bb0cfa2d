// Defaults of scheduling.k8s.io/v1.
import { setIfNil, type Obj } from './fields.js';

export function defaultPriorityClass(priorityClass: Obj): void {
  setIfNil(priorityClass, 'preemptionPolicy', 'PreemptLowerPriority');
  // value has no omitempty: written 0 when not given.
  setIfNil(priorityClass, 'value', 0);
  // globalDefault is an omitempty bool: false is not written (nor owned in managedFields).
  if (priorityClass['globalDefault'] === false || priorityClass['globalDefault'] === null) delete priorityClass['globalDefault'];
}
