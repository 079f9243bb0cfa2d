// CertificateSigning: issuing a certificate (setting status.certificate through the status
// subresource) needs the `sign` verb on the CSR's signer.
import { isDeepStrictEqual } from 'node:util';
import type { AdmissionPlugin } from '../types.js';
import { authorizedForSigner } from './signer-authorization.js';
import { forbidden, isResource, objectOf, stringOf } from './support.js';

export const certificateSigning: AdmissionPlugin = {
  name: 'CertificateSigning',
  operations: ['UPDATE'],
  validate(a, { authorizer }) {
    if (a.subresource !== 'status' || !isResource(a, 'certificates.k8s.io', 'certificatesigningrequests')) return;
    const certificate = (o: unknown) => objectOf(objectOf(o)?.['status'])?.['certificate'];
    if (isDeepStrictEqual(certificate(a.object), certificate(a.oldObject))) return;
    const signerName = stringOf(objectOf(objectOf(a.oldObject)?.['spec'])?.['signerName']) ?? '';
    if (authorizer && !authorizedForSigner(authorizer, a.user, 'sign', signerName)) {
      throw forbidden(a, `user not permitted to sign requests with signerName ${JSON.stringify(signerName)}`);
    }
  },
};
