// discovery.k8s.io/v1 EndpointSlices: address type, endpoints' addresses, ports.
import { type FieldError, fieldDuplicate, fieldInvalid, fieldNotSupported, fieldRequired, fieldTooMany } from '../../errors.js';
import { isIP } from 'node:net';
import { isDNS1123Subdomain } from '../names.js';
import { child, dnsLabel, immutable, index, invalidAll, objs, type Obj, present, qualifiedName, str, strings } from './helpers.js';

const ADDRESS_TYPES = ['FQDN', 'IPv4', 'IPv6'];
const MAX_ENDPOINTS = 1000;
const MAX_ADDRESSES = 100;
const MAX_PORTS = 20000;

function validateAddress(type: string, address: string, field: string): FieldError[] {
  switch (type) {
    case 'IPv4':
      return isIP(address) === 4 ? [] : [fieldInvalid(field, address, 'must be a valid IPv4 address')];
    case 'IPv6':
      return isIP(address) === 6 ? [] : [fieldInvalid(field, address, 'must be a valid IPv6 address')];
    case 'FQDN': {
      const errs = invalidAll(field, address, isDNS1123Subdomain(address.toLowerCase()));
      if (errs.length === 0 && address.split('.').length < 2) errs.push(fieldInvalid(field, address, 'should be a domain with at least two segments separated by dots'));
      return errs;
    }
    default:
      return [];
  }
}

export function validateEndpointSlice(slice: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const type = str(slice['addressType']);
  if (type === '') errs.push(fieldRequired('addressType'));
  else if (!ADDRESS_TYPES.includes(type)) errs.push(fieldNotSupported('addressType', type, ADDRESS_TYPES));
  const endpoints = objs(slice['endpoints']);
  if (endpoints.length > MAX_ENDPOINTS) errs.push(fieldTooMany('endpoints', endpoints.length, MAX_ENDPOINTS));
  else {
    endpoints.forEach((ep, i) => {
      const path = index('endpoints', i);
      const addresses = strings(ep['addresses']);
      if (addresses.length === 0) errs.push(fieldRequired(child(path, 'addresses'), 'must contain at least 1 address'));
      else if (addresses.length > MAX_ADDRESSES) errs.push(fieldTooMany(child(path, 'addresses'), addresses.length, MAX_ADDRESSES));
      addresses.forEach((a, j) => errs.push(...validateAddress(type, a, index(child(path, 'addresses'), j))));
      if (present(ep['nodeName'])) errs.push(...invalidAll(child(path, 'nodeName'), str(ep['nodeName']), isDNS1123Subdomain(str(ep['nodeName']))));
      if (present(ep['hostname'])) errs.push(...dnsLabel(str(ep['hostname']), child(path, 'hostname')));
    });
  }
  const ports = objs(slice['ports']);
  if (ports.length > MAX_PORTS) return [...errs, fieldTooMany('ports', ports.length, MAX_PORTS)];
  const names = new Set<string>();
  ports.forEach((p, i) => {
    const path = index('ports', i);
    const name = str(p['name']);
    if (name !== '') errs.push(...dnsLabel(name, child(path, 'name')));
    if (names.has(name)) errs.push(fieldDuplicate(child(path, 'name'), name));
    names.add(name);
    if (present(p['protocol']) && !['SCTP', 'TCP', 'UDP'].includes(str(p['protocol']))) errs.push(fieldNotSupported(child(path, 'protocol'), p['protocol'], ['SCTP', 'TCP', 'UDP']));
    if (present(p['appProtocol'])) errs.push(...qualifiedName(str(p['appProtocol']), child(path, 'appProtocol')));
  });
  return errs;
}

export function validateEndpointSliceUpdate(slice: Obj, old: Obj): FieldError[] {
  return [...validateEndpointSlice(slice), ...immutable(slice['addressType'], old['addressType'], 'addressType')];
}
