// authorization.k8s.io: access reviews are asked, never stored, so quota never charges them.
import type { BuiltinGroup } from './types.js';

export const authorization: BuiltinGroup = {
  name: 'authorization.k8s.io',
  resources: {
    localsubjectaccessreviews: { quota: null },
    selfsubjectaccessreviews: { quota: null },
    selfsubjectrulesreviews: { quota: null },
    subjectaccessreviews: { quota: null },
  },
};
