// DenyServiceExternalIPs: no Service may gain external IPs (it may keep those it has).
import type { AdmissionPlugin } from '../types.js';
import { arrayOf, forbidden, isResource, objectOf } from './support.js';

export const denyServiceExternalIPs: AdmissionPlugin = {
  name: 'DenyServiceExternalIPs',
  operations: ['CREATE', 'UPDATE'],
  validate(a) {
    if (a.subresource || !isResource(a, '', 'services')) return;
    const ips = (o: unknown) => arrayOf(objectOf(objectOf(o)?.['spec'])?.['externalIPs']);
    const old = new Set(ips(a.oldObject));
    if (ips(a.object).every((ip) => old.has(ip))) return;
    throw forbidden(a, 'Use of external IPs is denied by admission control');
  },
};
