// rbac.authorization.k8s.io: what is special about each of its resources. Their names are path
// segments; a PUT of a missing object creates it. The namespaced kinds and the cluster-wide ones
// differ only in where their rules and subjects may point.
import { defaultBinding } from '../../api/defaults/rbac.js';
import { clusterRoleBindingTable, roleBindingTable, type TablePrinter } from '../../api/printers/index.js';
import { validateBinding, validateBindingUpdate, validateRole } from '../../api/validation/rbac.js';
import { createOnUpdate } from '../strategies.js';
import type { BuiltinGroup, BuiltinSpec } from './types.js';

const role = (namespaced: boolean): BuiltinSpec => ({
  nameRule: 'path',
  validation: { create: (o) => validateRole(o, namespaced) },
  strategy: createOnUpdate,
});

const binding = (namespaced: boolean, table: TablePrinter): BuiltinSpec => ({
  nameRule: 'path',
  defaults: { v1: defaultBinding },
  validation: { create: (o) => validateBinding(o, namespaced), update: (o, old) => validateBindingUpdate(o, old, namespaced) },
  strategy: createOnUpdate,
  table,
});

export const rbac: BuiltinGroup = {
  name: 'rbac.authorization.k8s.io',
  resources: {
    clusterrolebindings: binding(false, clusterRoleBindingTable),
    clusterroles: role(false),
    rolebindings: binding(true, roleBindingTable),
    roles: role(true),
  },
};
