// authentication.k8s.io: token reviews are asked, never stored, so quota never charges them.
import type { BuiltinGroup } from './types.js';

export const authentication: BuiltinGroup = {
  name: 'authentication.k8s.io',
  resources: { tokenreviews: { quota: null } },
};
