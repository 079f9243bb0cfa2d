// CertificateApproval, CertificateSigning and CertificateSubjectRestriction, with a recording authorizer.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { certificateApproval } from '../../src/admission/plugins/certificate-approval.js';
import { certificateSigning } from '../../src/admission/plugins/certificate-signing.js';
import { certificateSubjectRestriction } from '../../src/admission/plugins/certificate-subject-restriction.js';
import { csrOrganizations } from '../../src/admission/plugins/csr-subject.js';
import type { Attributes, Authorizer } from '../../src/auth/types.js';
import { fixture } from '../helpers.js';
import { admit, attributes, refused, testServices } from './support.js';
import { type JsonObject } from '../../src/json.js';

const GVR = 'certificates.k8s.io/v1/certificatesigningrequests';
const JANE = { name: 'jane', groups: ['system:authenticated'] };
/** CN=mallory, O=developers, O=system:masters (an EC P-256 request made with openssl for this test). */
const MASTERS_REQUEST = 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIOE1JR2lBZ0VBTUVBeEVEQU9CZ05WQkFNTUIyMWhiR3h2Y25reEV6QVJCZ05WQkFvTUNtUmxkbVZzYjNCbApjbk14RnpBVkJnTlZCQW9NRG5ONWMzUmxiVHB0WVhOMFpYSnpNRmt3RXdZSEtvWkl6ajBDQVFZSUtvWkl6ajBECkFRY0RRZ0FFS0FMVVV4dSsrczVMZnRjOUdIOWxyKzIvalc2Sk1zcFJqL1c2TUJNRm9hTHcvcjRhU0Y5NGNsWkwKU3BveU9YR1lNcWg4QVFVcXRUNDN4NFVyYnVGT1RhQUFNQW9HQ0NxR1NNNDlCQU1DQTBrQU1FWUNJUURKZXN3UQpReC9IT2FWcUlPems3cmZWMStyVC9kdkE5Rnh3eGRMc2xXeWM3Z0loQU5yUzZFS1NLL2phR1EzbU5CNmtDemUrCnIrZEpwYjlYR3RjRHovNjFLVkFoCi0tLS0tRU5EIENFUlRJRklDQVRFIFJFUVVFU1QtLS0tLQo=';
const JANE_REQUEST = String(((fixture('create/certificates.k8s.io-v1-certificatesigningrequests').request.body as JsonObject)['spec'] as JsonObject)['request']);

/** Allows exactly the "verb name" pairs given, and records what it was asked. */
function authorizerAllowing(...allowed: string[]): Authorizer & { asked: Attributes[] } {
  const asked: Attributes[] = [];
  return {
    asked,
    authorize(attrs) {
      asked.push(attrs);
      return { allowed: allowed.includes(`${attrs.verb} ${attrs.name}`), reason: '' };
    },
  };
}

const csr = (signerName: string, status: JsonObject = {}, request = JANE_REQUEST): JsonObject => ({
  apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'req' },
  spec: { request, signerName, usages: ['client auth'] }, status,
});

describe('CertificateApproval admission', () => {
  it('asks for approve on the signer, then on its domain wildcard', async () => {
    const authorizer = authorizerAllowing('approve example.com/*');
    const services = await testServices(authorizer);
    const obj = csr('example.com/issuer');
    await admit(certificateApproval, services, attributes(services, { operation: 'UPDATE', gvr: GVR, subresource: 'approval', object: obj, oldObject: obj, user: JANE }));
    assert.deepEqual(authorizer.asked.map((a) => [a.verb, a.apiGroup, a.apiVersion, a.resource, a.name, a.user.name, a.resourceRequest]), [
      ['approve', 'certificates.k8s.io', '*', 'signers', 'example.com/issuer', 'jane', true],
      ['approve', 'certificates.k8s.io', '*', 'signers', 'example.com/*', 'jane', true],
    ]);
  });

  it('refuses approvers without the verb, and only on the approval subresource', async () => {
    const services = await testServices(authorizerAllowing());
    const obj = csr('kubernetes.io/kube-apiserver-client');
    await refused(admit(certificateApproval, services, attributes(services, { operation: 'UPDATE', gvr: GVR, subresource: 'approval', object: obj, oldObject: obj, user: JANE })), 403,
      'certificatesigningrequests.certificates.k8s.io "req" is forbidden: user not permitted to approve requests with signerName "kubernetes.io/kube-apiserver-client"');
    await admit(certificateApproval, services, attributes(services, { operation: 'UPDATE', gvr: GVR, subresource: 'status', object: obj, oldObject: obj, user: JANE }));
  });
});

describe('CertificateSigning admission', () => {
  it('needs sign on the signer to set status.certificate, and nothing for other status changes', async () => {
    const services = await testServices(authorizerAllowing('sign example.com/issuer'));
    const before = csr('example.com/issuer');
    const issued = csr('example.com/issuer', { certificate: 'Y2VydA==' });
    await admit(certificateSigning, services, attributes(services, { operation: 'UPDATE', gvr: GVR, subresource: 'status', object: issued, oldObject: before, user: JANE }));
    const other = await testServices(authorizerAllowing());
    await refused(admit(certificateSigning, other, attributes(other, { operation: 'UPDATE', gvr: GVR, subresource: 'status', object: issued, oldObject: before, user: JANE })), 403,
      'certificatesigningrequests.certificates.k8s.io "req" is forbidden: user not permitted to sign requests with signerName "example.com/issuer"');
    const conditioned = csr('example.com/issuer', { conditions: [{ type: 'Approved', status: 'True' }] });
    await admit(certificateSigning, other, attributes(other, { operation: 'UPDATE', gvr: GVR, subresource: 'status', object: conditioned, oldObject: before, user: JANE }));
  });
});

describe('CertificateSubjectRestriction admission', () => {
  it('reads the subject organizations of a request', () => {
    assert.deepEqual(csrOrganizations(JANE_REQUEST), ['developers']);
    assert.deepEqual(csrOrganizations(MASTERS_REQUEST), ['developers', 'system:masters']);
    assert.throws(() => csrOrganizations(Buffer.from('-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n').toString('base64')), /PEM block type must be CERTIFICATE REQUEST/);
  });

  it('refuses system:masters for the kube-apiserver-client signer only', async () => {
    const services = await testServices();
    await refused(admit(certificateSubjectRestriction, services, attributes(services, { gvr: GVR, object: csr('kubernetes.io/kube-apiserver-client', {}, MASTERS_REQUEST) })), 403,
      'certificatesigningrequests.certificates.k8s.io "req" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed');
    await admit(certificateSubjectRestriction, services, attributes(services, { gvr: GVR, object: csr('example.com/issuer', {}, MASTERS_REQUEST) }));
    await admit(certificateSubjectRestriction, services, attributes(services, { gvr: GVR, object: csr('kubernetes.io/kube-apiserver-client') }));
    await refused(admit(certificateSubjectRestriction, services, attributes(services, { gvr: GVR, object: csr('kubernetes.io/kube-apiserver-client', {}, 'bm90IHBlbQ==') })), 403,
      'certificatesigningrequests.certificates.k8s.io "req" is forbidden: failed to parse CSR: PEM block type must be CERTIFICATE REQUEST');
  });
});
