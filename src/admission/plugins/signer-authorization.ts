// Whether a user may act for a CSR signer: the verb on `signers` of certificates.k8s.io, named by
// the signer, or by its domain with a wildcard ("example.com/*").
import type { Authorizer } from '../../auth/types.js';
import type { UserInfo } from '../../api/user.js';

export function authorizedForSigner(authorizer: Authorizer, user: UserInfo, verb: 'approve' | 'sign', signerName: string): boolean {
  const domain = signerName.split('/')[0]!;
  return [signerName, `${domain}/*`].some((name) => authorizer.authorize({
    user, verb, resourceRequest: true, apiGroup: 'certificates.k8s.io', apiVersion: '*', resource: 'signers', name,
  }).allowed);
}
