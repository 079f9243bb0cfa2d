// Defaults of rbac.authorization.k8s.io/v1: the API group of role references and subjects.
import { objectAt, objectsAt, setIfEmpty, type Obj } from './fields.js';
import type { DefaulterTable } from './types.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** Users and groups belong to the RBAC group (service accounts to the core group, ""). */
function defaultSubject(subject: Obj): void {
  if (subject['kind'] === 'User' || subject['kind'] === 'Group') setIfEmpty(subject, 'apiGroup', RBAC_GROUP);
}

/** rules has no omitempty: a role without rules (an aggregated one) is written with null. */
function defaultRole(role: Obj): void {
  if (role['rules'] === undefined) role['rules'] = null;
}

function defaultBinding(binding: Obj): void {
  const roleRef = objectAt(binding, 'roleRef');
  if (roleRef) setIfEmpty(roleRef, 'apiGroup', RBAC_GROUP);
  for (const subject of objectsAt(binding, 'subjects')) defaultSubject(subject);
}

export const RBAC: DefaulterTable = {
  'v1/Role': defaultRole,
  'v1/ClusterRole': defaultRole,
  'v1/RoleBinding': defaultBinding,
  'v1/ClusterRoleBinding': defaultBinding,
};
