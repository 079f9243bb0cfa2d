// Pod updates: the new pod's own checks, then only images, the deadline, added tolerations and
// (one case of) the grace period may change; anything else is refused with a diff of the specs.
// Writes to pods/ephemeralcontainers have their own rule.
import { type FieldError, fieldForbidden, fieldInvalid, fieldRequired } from '../../errors.js';
import { validateOnlyAddedTolerations } from './core-pod-scheduling.js';
import { validatePodContents } from './core-pod.js';
import { arr, child, inclusiveRange, index, num, obj, objs, type Obj, str } from './helpers.js';
import { podSpecDiff } from './pod-spec-diff.js';

const MAX_INT32 = 2147483647;

const UPDATABLE = 'pod updates may not change fields other than `spec.containers[*].image`, `spec.initContainers[*].image`, `spec.activeDeadlineSeconds`, `spec.tolerations` (only additions to existing tolerations) or `spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

/** Container lists may not grow or shrink, and images may not be emptied. */
function validateContainerUpdates(next: unknown, old: unknown, field: string): { errors: FieldError[]; stop: boolean } {
  const nextList = objs(next);
  if (nextList.length !== objs(old).length) return { errors: [fieldForbidden(field, 'pod updates may not add or remove containers')], stop: true };
  const errors: FieldError[] = [];
  nextList.forEach((c, i) => {
    const image = str(c['image']);
    if (image === '') errors.push(fieldRequired(child(index(field, i), 'image')));
    if (image.trim() !== image) errors.push(fieldInvalid(child(index(field, i), 'image'), image, 'must not have leading or trailing whitespace'));
  });
  return { errors, stop: false };
}

/** ValidatePodUpdate: the new pod's own checks, then only images, deadline, tolerations and (one case of) grace period may change. */
export function validatePodUpdate(pod: Obj, old: Obj): FieldError[] {
  const errs = validatePodContents(pod);
  const spec = obj(pod['spec']);
  const oldSpec = obj(old['spec']);
  for (const list of ['containers', 'initContainers']) {
    const { errors, stop } = validateContainerUpdates(spec[list], oldSpec[list], child('spec', list));
    errs.push(...errors);
    if (stop) return errs;
  }
  const deadline = num(spec['activeDeadlineSeconds']);
  const oldDeadline = num(oldSpec['activeDeadlineSeconds']);
  if (deadline !== undefined) {
    if (deadline < 0 || deadline > MAX_INT32) return [...errs, fieldInvalid('spec.activeDeadlineSeconds', deadline, inclusiveRange(0, MAX_INT32))];
    if (oldDeadline !== undefined && oldDeadline < deadline) return [...errs, fieldInvalid('spec.activeDeadlineSeconds', deadline, 'must be less than or equal to previous value')];
  } else if (oldDeadline !== undefined) {
    errs.push(fieldInvalid('spec.activeDeadlineSeconds', null, 'must not update from a positive integer to nil value'));
  }
  errs.push(...validateOnlyAddedTolerations(spec['tolerations'], oldSpec['tolerations'], 'spec.tolerations'));

  // What may change is taken from the old spec; anything else that differs is refused, with a diff.
  // Only its top-level fields are set (lists replaced, not changed): a shallow copy is enough.
  const munged: Obj = { ...spec };
  for (const list of ['containers', 'initContainers']) {
    if (!Array.isArray(munged[list])) continue;
    munged[list] = objs(munged[list]).map((c, i) => {
      const image = objs(oldSpec[list])[i]?.['image'];
      const copy = { ...c };
      if (image === undefined) delete copy['image'];
      else copy['image'] = image;
      return copy;
    });
  }
  setOrDelete(munged, 'activeDeadlineSeconds', oldSpec['activeDeadlineSeconds']);
  const oldGrace = num(oldSpec['terminationGracePeriodSeconds']);
  if (oldGrace !== undefined && oldGrace < 0 && munged['terminationGracePeriodSeconds'] === 1) munged['terminationGracePeriodSeconds'] = oldGrace;
  setOrDelete(munged, 'tolerations', oldSpec['tolerations']);
  const diff = podSpecDiff(oldSpec, munged);
  if (diff !== '') errs.push(fieldForbidden('spec', `${UPDATABLE}\n${diff}`));
  return errs;
}

function setOrDelete(o: Obj, k: string, v: unknown): void {
  if (v === undefined) delete o[k];
  else o[k] = v;
}

/** pods/ephemeralcontainers: containers may be added, never changed or removed once there. */
export function validateEphemeralContainersUpdate(pod: Obj, old: Obj): FieldError[] {
  const byName = (p: Obj) => new Map(arr(obj(p['spec'])['ephemeralContainers']).map((c) => [String(obj(c)['name']), c]));
  const before = byName(old);
  const after = byName(pod);
  const errs: FieldError[] = [];
  for (const [name, container] of before) {
    const now = after.get(name);
    if (!now) errs.push(fieldForbidden('spec.ephemeralContainers', `existing ephemeral containers ${JSON.stringify(name)} may not be removed\n`));
    else if (JSON.stringify(now) !== JSON.stringify(container)) errs.push(fieldForbidden('spec.ephemeralContainers', `existing ephemeral containers ${JSON.stringify(name)} may not be changed\n`));
  }
  return errs;
}
