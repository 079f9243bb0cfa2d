// policy/v1 has no defaulter; a PodDisruptionBudget's status counts are written even when zero.
import { ensureObject, setIfNil, type Obj } from './fields.js';

export function defaultPodDisruptionBudget(budget: Obj): void {
  ensureObject(budget, 'spec');
  const status = ensureObject(budget, 'status');
  if (status) for (const field of ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods']) setIfNil(status, field, 0);
}
