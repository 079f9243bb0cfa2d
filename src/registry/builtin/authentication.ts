// authentication.k8s.io: token reviews are asked, never stored (so quota never charges them); a
// create is answered from the server's authenticator.
import { tokenReview } from './reviews.js';
import type { BuiltinGroup } from './types.js';

export const authentication: BuiltinGroup = {
  name: 'authentication.k8s.io',
  resources: { tokenreviews: { quota: null, create: tokenReview } },
};
