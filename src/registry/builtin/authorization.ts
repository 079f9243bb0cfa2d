// authorization.k8s.io: access reviews are asked, never stored (so quota never charges them); a
// create is answered from the server's authorizer.
import { localSubjectAccessReview, selfSubjectAccessReview, selfSubjectRulesReview, subjectAccessReview } from './reviews.js';
import type { BuiltinGroup } from './types.js';

export const authorization: BuiltinGroup = {
  name: 'authorization.k8s.io',
  resources: {
    localsubjectaccessreviews: { quota: null, create: localSubjectAccessReview },
    selfsubjectaccessreviews: { quota: null, create: selfSubjectAccessReview },
    selfsubjectrulesreviews: { quota: null, create: selfSubjectRulesReview },
    subjectaccessreviews: { quota: null, create: subjectAccessReview },
  },
};
