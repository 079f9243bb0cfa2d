// certificates.k8s.io/v1 CertificateSigningRequests: a PEM CSR with a valid signature, usages,
// a signer name.
import { type FieldError, fieldDuplicate, fieldInvalid, fieldNotSupported, fieldRequired, fieldTooLong } from '../../errors.js';
import { isDNS1123Label, isDNS1123Subdomain } from '../names.js';
import { csrProblem } from './csr.js';
import { byteSlice } from './go-syntax.js';
import { immutable, index, invalidRendered, num, obj, type Obj, str, strings } from './helpers.js';

const USAGES = [
  'signing', 'digital signature', 'content commitment', 'key encipherment', 'key agreement', 'data encipherment', 'cert sign', 'crl sign',
  'encipher only', 'decipher only', 'any', 'server auth', 'client auth', 'code signing', 'email protection', 's/mime', 'ipsec end system',
  'ipsec tunnel', 'ipsec user', 'timestamping', 'ocsp signing', 'microsoft sgc', 'netscape sgc',
].sort();

/** ValidateSignerName: "domain/path", the domain with at least two labels. */
export function validateSignerName(name: string, field: string): FieldError[] {
  if (name === '') return [fieldRequired(field)];
  const parts = name.split('/');
  if (parts.length !== 2) return [fieldInvalid(field, name, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  const [domain, path] = parts as [string, string];
  const errs: FieldError[] = [];
  if (domain.length > 253) errs.push(fieldTooLong(field, 253));
  const labels = domain.split('.');
  for (const label of labels) {
    const msgs = isDNS1123Label(label);
    if (msgs.length) {
      errs.push(...msgs.map((m) => fieldInvalid(field, domain, `validating label ${JSON.stringify(label)}: ${m}`)));
      break;
    }
  }
  if (labels.length < 2) errs.push(fieldInvalid(field, domain, 'should be a domain with at least two segments separated by dots'));
  for (const component of path.split('.')) {
    const msgs = isDNS1123Subdomain(component);
    if (msgs.length) {
      errs.push(...msgs.map((m) => fieldInvalid(field, path, `validating component ${JSON.stringify(component)}: ${m}`)));
      break;
    }
  }
  if (name.length > 571) errs.push(fieldTooLong(field, 571));
  return errs;
}

export function validateCertificateSigningRequest(csr: Obj): FieldError[] {
  const spec = obj(csr['spec']);
  const errs: FieldError[] = [];
  const request = Buffer.from(str(spec['request']), 'base64');
  const problem = csrProblem(request);
  if (problem) errs.push(invalidRendered('spec.request', byteSlice(request), problem));
  const usages = strings(spec['usages']);
  if (usages.length === 0) errs.push(fieldRequired('spec.usages'));
  usages.forEach((u, i) => {
    if (!USAGES.includes(u)) errs.push(fieldNotSupported(index('spec.usages', i), u, USAGES));
  });
  const seen = new Set<string>();
  usages.forEach((u, i) => {
    if (seen.has(u)) errs.push(fieldDuplicate(index('spec.usages', i), u));
    seen.add(u);
  });
  const signer = str(spec['signerName']);
  if (signer === 'kubernetes.io/legacy-unknown') errs.push(fieldInvalid('spec.signerName', signer, 'the legacy signerName is not allowed via this API version'));
  else errs.push(...validateSignerName(signer, 'spec.signerName'));
  const expiration = num(spec['expirationSeconds']);
  if (expiration !== undefined && expiration < 600) errs.push(fieldInvalid('spec.expirationSeconds', expiration, 'may not specify a duration less than 600 seconds (10 minutes)'));
  return errs;
}

/** The request itself is fixed once submitted. */
export function validateCertificateSigningRequestUpdate(csr: Obj, old: Obj): FieldError[] {
  return immutable(obj(csr['spec'])['request'], obj(old['spec'])['request'], 'spec.request');
}
