// CertificateSubjectRestriction: the kube-apiserver-client signer will not issue certificates for
// the system:masters group, whose members bypass authorization.
import type { AdmissionPlugin } from '../types.js';
import { csrOrganizations } from './csr-subject.js';
import { forbidden, isResource, objectOf, stringOf } from './support.js';

const API_SERVER_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client';

export const certificateSubjectRestriction: AdmissionPlugin = {
  name: 'CertificateSubjectRestriction',
  operations: ['CREATE'],
  validate(a) {
    if (a.subresource || !isResource(a, 'certificates.k8s.io', 'certificatesigningrequests')) return;
    const spec = objectOf(objectOf(a.object)?.['spec']) ?? {};
    if (stringOf(spec['signerName']) !== API_SERVER_CLIENT_SIGNER) return;
    let organizations: string[];
    try {
      organizations = csrOrganizations(stringOf(spec['request']) ?? '');
    } catch (err) {
      throw forbidden(a, `failed to parse CSR: ${(err as Error).message}`);
    }
    if (organizations.includes('system:masters')) {
      throw forbidden(a, `use of ${API_SERVER_CLIENT_SIGNER} signer with system:masters group is not allowed`);
    }
  },
};
