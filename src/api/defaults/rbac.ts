// Defaults of rbac.authorization.k8s.io/v1: the API group of role references and subjects.
// A role without rules is written by Go as `rules: null`; that null is not added here, since
// the field manager would then record the field as the creator's.
import { objectAt, objectsAt, setIfEmpty, type Obj } from './fields.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** Users and groups belong to the RBAC group (service accounts to the core group, ""). */
function defaultSubject(subject: Obj): void {
  if (subject['kind'] === 'User' || subject['kind'] === 'Group') setIfEmpty(subject, 'apiGroup', RBAC_GROUP);
}

export function defaultBinding(binding: Obj): void {
  const roleRef = objectAt(binding, 'roleRef');
  if (roleRef) setIfEmpty(roleRef, 'apiGroup', RBAC_GROUP);
  for (const subject of objectsAt(binding, 'subjects')) defaultSubject(subject);
}
