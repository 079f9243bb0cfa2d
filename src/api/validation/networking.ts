// networking.k8s.io/v1: Ingress, IngressClass and NetworkPolicy.
import { type FieldError, fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, fieldTooLong } from '../../errors.js';
import { isDNS1123Subdomain, isValidPathSegmentName, regexError } from '../names.js';
import { child, dns1035Label, dnsSubdomain, immutable, index, invalidAll, invalidRendered, isValidCIDR, isValidIP, isValidPortName, isValidPortNum, num, obj, objs, type Obj, present, str, strings } from './helpers.js';
import { validateLabelSelector } from './label-selector.js';
import { isObject } from '../../json.js';

const WILDCARD_FMT = '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*';

function isWildcardSubdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push('must be no more than 253 characters');
  if (!new RegExp(`^${WILDCARD_FMT}$`).test(value)) {
    errs.push(regexError("a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character", WILDCARD_FMT, '*.example.com'));
  }
  return errs;
}

const hostErrors = (host: string, field: string): FieldError[] =>
  invalidAll(field, host, host.includes('*') ? isWildcardSubdomain(host) : isDNS1123Subdomain(host));

/** A TypedLocalObjectReference (resource backends, class parameters). */
function validateTypedReference(ref: Obj, field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (present(ref['apiGroup'])) errs.push(...dnsSubdomain(str(ref['apiGroup']), child(field, 'apiGroup')));
  for (const k of ['kind', 'name']) {
    const v = str(ref[k]);
    if (v === '') errs.push(fieldRequired(child(field, k), `${k} is required`));
    else errs.push(...invalidAll(child(field, k), v, isValidPathSegmentName(v)));
  }
  return errs;
}

function validateBackend(backend: Obj, field: string): FieldError[] {
  const hasResource = isObject(backend['resource']);
  const hasService = isObject(backend['service']);
  if (hasResource && hasService) return [fieldInvalid(field, '', 'cannot set both resource and service backends')];
  if (hasResource) return validateTypedReference(obj(backend['resource']), child(field, 'resource'));
  if (!hasService) return [fieldInvalid(field, '', 'resource or service backend is required')];
  const service = obj(backend['service']);
  const errs: FieldError[] = [];
  const name = str(service['name']);
  if (name === '') errs.push(fieldRequired(child(field, 'service', 'name')));
  else errs.push(...dns1035Label(name, child(field, 'service', 'name')));
  const port = obj(service['port']);
  const portName = str(port['name']);
  const portNumber = num(port['number']) ?? 0;
  if (portName !== '' && portNumber !== 0) errs.push(fieldInvalid(field, '', 'cannot set both port name & port number'));
  else if (portName !== '') errs.push(...invalidAll(child(field, 'service', 'port', 'name'), portName, isValidPortName(portName)));
  else if (portNumber !== 0) errs.push(...invalidAll(child(field, 'service', 'port', 'number'), portNumber, isValidPortNum(portNumber)));
  else errs.push(fieldRequired(field, 'port name or number is required'));
  return errs;
}

function validatePath(path: Obj, field: string): FieldError[] {
  if (!present(path['pathType'])) return [fieldRequired(child(field, 'pathType'), 'pathType must be specified')];
  const errs: FieldError[] = [];
  const p = str(path['path']);
  const pathField = child(field, 'path');
  switch (str(path['pathType'])) {
    case 'Exact':
    case 'Prefix':
      if (!p.startsWith('/')) errs.push(fieldInvalid(pathField, p, 'must be an absolute path'));
      if (p !== '') {
        for (const seq of ['//', '/./', '/../', '%2f', '%2F']) if (p.includes(seq)) errs.push(fieldInvalid(pathField, p, `must not contain '${seq}'`));
        for (const suffix of ['/..', '/.']) if (p.endsWith(suffix)) errs.push(fieldInvalid(pathField, p, `cannot end with '${suffix}'`));
      }
      break;
    case 'ImplementationSpecific':
      if (p !== '' && !p.startsWith('/')) errs.push(fieldInvalid(pathField, p, 'must be an absolute path'));
      break;
    default:
      errs.push(fieldNotSupported(child(field, 'pathType'), str(path['pathType']), ['Exact', 'ImplementationSpecific', 'Prefix']));
  }
  errs.push(...validateBackend(obj(path['backend']), child(field, 'backend')));
  return errs;
}

export function validateIngress(ingress: Obj): FieldError[] {
  const spec = obj(ingress['spec']);
  const errs: FieldError[] = [];
  const rules = objs(spec['rules']);
  if (rules.length === 0 && !isObject(spec['defaultBackend'])) {
    const rendered = Array.isArray(spec['rules']) ? '[]networking.IngressRule{}' : '[]networking.IngressRule(nil)';
    errs.push(invalidRendered('spec', rendered, 'either `defaultBackend` or `rules` must be specified'));
  }
  if (isObject(spec['defaultBackend'])) errs.push(...validateBackend(spec['defaultBackend'], 'spec.defaultBackend'));
  rules.forEach((rule, i) => {
    const path = index('spec.rules', i);
    const host = str(rule['host']);
    if (host !== '') {
      if (isValidIP(host)) errs.push(fieldInvalid(child(path, 'host'), host, 'must be a DNS name, not an IP address'));
      errs.push(...hostErrors(host, child(path, 'host')));
    }
    if (isObject(rule['http'])) {
      const paths = objs(rule['http']['paths']);
      if (paths.length === 0) errs.push(fieldRequired(child(path, 'http', 'paths')));
      paths.forEach((p, j) => errs.push(...validatePath(p, index(child(path, 'http', 'paths'), j))));
    }
  });
  objs(spec['tls']).forEach((tls, i) => {
    strings(tls['hosts']).forEach((host, j) => errs.push(...hostErrors(host, index(child(index('spec.tls', i), 'hosts'), j))));
  });
  if (present(spec['ingressClassName'])) errs.push(...dnsSubdomain(str(spec['ingressClassName']), 'spec.ingressClassName'));
  return errs;
}

const HTTP_PATH_FMT = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";

/** IsDomainPrefixedPath: "example.com/path". */
function domainPrefixedPath(value: string, field: string): FieldError[] {
  if (value === '') return [fieldRequired(field)];
  const slash = value.indexOf('/');
  if (slash <= 0 || slash === value.length - 1) return [fieldInvalid(field, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const host = value.slice(0, slash);
  const path = value.slice(slash + 1);
  const errs = invalidAll(field, host, isDNS1123Subdomain(host));
  if (!new RegExp(`^${HTTP_PATH_FMT}$`).test(path)) errs.push(fieldInvalid(field, path, regexError('Invalid path', HTTP_PATH_FMT)));
  return errs;
}

export function validateIngressClass(ic: Obj): FieldError[] {
  const spec = obj(ic['spec']);
  const controller = str(spec['controller']);
  const errs = controller.length > 250 ? [fieldTooLong('spec.controller', 250)] : [];
  errs.push(...domainPrefixedPath(controller, 'spec.controller'));
  if (isObject(spec['parameters'])) {
    const params = spec['parameters'];
    if (str(params['kind']) === '') errs.push(fieldRequired('spec.parameters.kind', 'kind is required'));
    if (str(params['name']) === '') errs.push(fieldRequired('spec.parameters.name', 'name is required'));
    const scope = str(params['scope']);
    if (present(params['scope']) && scope !== 'Cluster' && scope !== 'Namespace') errs.push(fieldNotSupported('spec.parameters.scope', scope, ['Cluster', 'Namespace']));
    if (scope === 'Namespace' && str(params['namespace']) === '') errs.push(fieldRequired('spec.parameters.namespace', '`parameters.scope` is set to "Namespace"'));
    if (scope === 'Cluster' && present(params['namespace'])) errs.push(fieldForbidden('spec.parameters.namespace', '`parameters.scope` is set to "Cluster"'));
  }
  return errs;
}

export function validateIngressClassUpdate(ic: Obj, old: Obj): FieldError[] {
  return [...validateIngressClass(ic), ...immutable(obj(ic['spec'])['controller'], obj(old['spec'])['controller'], 'spec.controller')];
}

function validatePolicyPort(port: Obj, field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (present(port['protocol']) && !['TCP', 'UDP', 'SCTP'].includes(str(port['protocol']))) errs.push(fieldNotSupported(child(field, 'protocol'), port['protocol'], ['TCP', 'UDP', 'SCTP']));
  const p = port['port'];
  const endPort = num(port['endPort']);
  if (typeof p === 'number') {
    errs.push(...invalidAll(child(field, 'port'), p, isValidPortNum(p)));
    if (endPort !== undefined) {
      if (endPort < p) errs.push(fieldInvalid(child(field, 'endPort'), p, 'must be greater than or equal to `port`'));
      errs.push(...invalidAll(child(field, 'endPort'), endPort, isValidPortNum(endPort)));
    }
  } else if (typeof p === 'string') {
    if (endPort !== undefined) errs.push(fieldInvalid(child(field, 'endPort'), endPort, 'may not be specified when `port` is non-numeric'));
    errs.push(...invalidAll(child(field, 'port'), p, isValidPortName(p)));
  } else if (endPort !== undefined) {
    errs.push(fieldInvalid(child(field, 'endPort'), endPort, 'may not be specified when `port` is not specified'));
  }
  return errs;
}

function validatePeer(peer: Obj, field: string): FieldError[] {
  const errs: FieldError[] = [];
  let peers = 0;
  for (const k of ['podSelector', 'namespaceSelector']) {
    if (!isObject(peer[k])) continue;
    peers++;
    errs.push(...validateLabelSelector(peer[k], child(field, k)));
  }
  if (isObject(peer['ipBlock'])) {
    peers++;
    const block = peer['ipBlock'];
    const cidr = str(block['cidr']);
    if (cidr === '') errs.push(fieldRequired(child(field, 'ipBlock', 'cidr')));
    else if (!isValidCIDR(cidr)) errs.push(fieldInvalid(child(field, 'ipBlock', 'cidr'), cidr, 'not a valid CIDR'));
    else {
      strings(block['except']).forEach((except, i) => {
        if (!isValidCIDR(except)) errs.push(fieldInvalid(index(child(field, 'ipBlock', 'except'), i), except, 'not a valid CIDR'));
      });
    }
  }
  if (peers === 0) errs.push(fieldRequired(field, 'must specify a peer'));
  else if (peers > 1 && isObject(peer['ipBlock'])) errs.push(fieldForbidden(field, 'may not specify both ipBlock and another peer'));
  return errs;
}

export function validateNetworkPolicy(np: Obj): FieldError[] {
  const spec = obj(np['spec']);
  const errs = validateLabelSelector(spec['podSelector'], 'spec.podSelector');
  objs(spec['ingress']).forEach((rule, i) => {
    const path = index('spec.ingress', i);
    objs(rule['ports']).forEach((p, j) => errs.push(...validatePolicyPort(p, index(child(path, 'ports'), j))));
    objs(rule['from']).forEach((p, j) => errs.push(...validatePeer(p, index(child(path, 'from'), j))));
  });
  objs(spec['egress']).forEach((rule, i) => {
    const path = index('spec.egress', i);
    objs(rule['to']).forEach((p, j) => errs.push(...validatePeer(p, index(child(path, 'to'), j))));
    objs(rule['ports']).forEach((p, j) => errs.push(...validatePolicyPort(p, index(child(path, 'ports'), j))));
  });
  const types = strings(spec['policyTypes']);
  if (types.length > 2) return [...errs, fieldInvalid('spec.policyTypes', types, 'may not specify more than two policyTypes')];
  types.forEach((t, i) => {
    if (t !== 'Ingress' && t !== 'Egress') errs.push(fieldNotSupported(index('spec.policyTypes', i), t, ['Ingress', 'Egress']));
  });
  return errs;
}
