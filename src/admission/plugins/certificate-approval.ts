// CertificateApproval: approving or denying a CSR (its approval subresource) needs the `approve`
// verb on its signer.
import type { AdmissionPlugin } from '../types.js';
import { authorizedForSigner } from './signer-authorization.js';
import { forbidden, isResource, objectOf, stringOf } from './support.js';

export const certificateApproval: AdmissionPlugin = {
  name: 'CertificateApproval',
  operations: ['UPDATE'],
  validate(a, { authorizer }) {
    if (a.subresource !== 'approval' || !isResource(a, 'certificates.k8s.io', 'certificatesigningrequests')) return;
    // The new object's signer: changing it through this endpoint is invalid anyway.
    const signerName = stringOf(objectOf(objectOf(a.object)?.['spec'])?.['signerName']) ?? '';
    if (authorizer && !authorizedForSigner(authorizer, a.user, 'approve', signerName)) {
      throw forbidden(a, `user not permitted to approve requests with signerName ${JSON.stringify(signerName)}`);
    }
  },
};
