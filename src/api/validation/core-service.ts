// Services: ports, type, selector, session affinity, external names and IPs, and the cluster IPs
// an update may not change.
import { type FieldError, fieldDuplicate, fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired } from '../../errors.js';
import { isQualifiedName, validateLabels } from '../names.js';
import { child, dnsLabel, dnsSubdomain, enumField, index, invalidAll, invalidRendered, IP_MESSAGE, isValidCIDR, isValidIP, isValidPortNum, num, obj, objs, type Obj, portNumOrName, present, str, strings } from './helpers.js';
import { goStringSlice, intOrString } from './go-syntax.js';
import { isObject } from '../../json.js';

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const KUBELET_PORT = 10250;

/** clusterIPs as the strategy fills them: from clusterIP when only that is given. */
function clusterIPs(spec: Obj): string[] {
  const ips = strings(spec['clusterIPs']);
  if (ips.length === 0 && str(spec['clusterIP']) !== '') return [str(spec['clusterIP'])];
  return ips;
}

const typeOf = (spec: Obj): string => str(spec['type']) || 'ClusterIP';

function isHeadless(spec: Obj): boolean {
  const ips = clusterIPs(spec);
  return typeOf(spec) === 'ClusterIP' && ips.length === 1 && ips[0] === 'None';
}

/** Go's %#v of the (protocol, port) key the reference uses for duplicate ports. */
function servicePortKey(protocol: string, port: number): string {
  return `core.ServicePort{Name:"", Protocol:${JSON.stringify(protocol)}, AppProtocol:(*string)(nil), Port:${port}, TargetPort:${intOrString(0)}, NodePort:0}`;
}

function validatePort(port: Obj, requireName: boolean, names: Set<string>, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(port['name']);
  if (requireName && name === '') errs.push(fieldRequired(child(field, 'name')));
  else if (name !== '') {
    errs.push(...dnsLabel(name, child(field, 'name')));
    if (names.has(name)) errs.push(fieldDuplicate(child(field, 'name'), name));
    else names.add(name);
  }
  const p = num(port['port']) ?? 0;
  errs.push(...invalidAll(child(field, 'port'), p, isValidPortNum(p)));
  errs.push(...enumField(port['protocol'], child(field, 'protocol'), PROTOCOLS, { defaulted: true }));
  // targetPort is defaulted to the port when absent.
  if (present(port['targetPort'])) errs.push(...portNumOrName(port['targetPort'], child(field, 'targetPort')));
  if (present(port['appProtocol'])) errs.push(...invalidAll(child(field, 'appProtocol'), str(port['appProtocol']), isQualifiedName(str(port['appProtocol']))));
  return errs;
}

function validateClusterIPs(spec: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const ips = strings(spec['clusterIPs']);
  ips.forEach((ip, i) => {
    if (i === 0 && ip === 'None') {
      if (ips.length > 1) errs.push(invalidRendered('spec.clusterIPs', goStringSlice(ips), "'None' must be the first and only value"));
      return;
    }
    if (!isValidIP(ip)) errs.push(fieldInvalid(index('spec.clusterIPs', i), ip, IP_MESSAGE));
  });
  const ip = str(spec['clusterIP']);
  if (ips.length === 0 && ip !== '' && ip !== 'None' && !isValidIP(ip)) errs.push(fieldInvalid('spec.clusterIP', ip, IP_MESSAGE));
  return errs;
}

/** ValidateService (1.25), in the reference's order. Type, session affinity and traffic policies are defaulted. */
export function validateService(service: Obj): FieldError[] {
  const spec = obj(service['spec']);
  const type = typeOf(spec);
  const headless = isHeadless(spec);
  const ports = objs(spec['ports']);
  const errs: FieldError[] = [];
  if (ports.length === 0 && !headless && type !== 'ExternalName') errs.push(fieldRequired('spec.ports'));
  switch (type) {
    case 'LoadBalancer':
      if (headless) errs.push(fieldInvalid('spec.clusterIPs[0]', 'None', "may not be set to 'None' for LoadBalancer services"));
      ports.forEach((p, i) => {
        if (p['port'] === KUBELET_PORT) errs.push(fieldInvalid(index('spec.ports', i), KUBELET_PORT, `may not expose port ${KUBELET_PORT} externally since it is used by kubelet`));
      });
      break;
    case 'NodePort':
      if (headless) errs.push(fieldInvalid('spec.clusterIPs[0]', 'None', "may not be set to 'None' for NodePort services"));
      break;
    case 'ExternalName': {
      if (strings(spec['clusterIPs']).length > 0) errs.push(fieldForbidden('spec.clusterIPs', 'may not be set for ExternalName services'));
      if (strings(spec['ipFamilies']).length > 0) errs.push(fieldForbidden('spec.ipFamilies', 'may not be set for ExternalName services'));
      if (present(spec['ipFamilyPolicy'])) errs.push(fieldForbidden('spec.ipFamilyPolicy', 'may not be set for ExternalName services'));
      // A CNAME may end with a dot (fully qualified).
      const cname = str(spec['externalName']).replace(/\.$/, '');
      if (cname !== '') errs.push(...dnsSubdomain(cname, 'spec.externalName'));
      else errs.push(fieldRequired('spec.externalName'));
      break;
    }
  }
  const names = new Set<string>();
  ports.forEach((p, i) => errs.push(...validatePort(p, ports.length > 1, names, index('spec.ports', i))));
  if (isObject(spec['selector'])) errs.push(...validateLabels(spec['selector'], 'spec.selector'));
  errs.push(...enumField(spec['sessionAffinity'], 'spec.sessionAffinity', ['ClientIP', 'None'], { defaulted: true }));
  if (spec['sessionAffinity'] === 'ClientIP') {
    const timeout = num(obj(obj(spec['sessionAffinityConfig'])['clientIP'])['timeoutSeconds']);
    if (timeout !== undefined && (timeout <= 0 || timeout > 86400)) {
      errs.push(fieldInvalid('spec.sessionAffinityConfig.clientIP.timeoutSeconds', timeout, 'must be greater than 0 and less than 86400'));
    }
  } else if (spec['sessionAffinity'] === 'None' && present(spec['sessionAffinityConfig'])) {
    errs.push(fieldForbidden('spec.sessionAffinityConfig', 'must not be set when session affinity is None'));
  }
  errs.push(...validateClusterIPs(spec));
  strings(spec['externalIPs']).forEach((ip, i) => {
    if (!isValidIP(ip)) errs.push(fieldInvalid(index('spec.externalIPs', i), ip, IP_MESSAGE));
  });
  errs.push(...enumField(spec['type'], 'spec.type', TYPES, { defaulted: true }));
  if (type === 'ClusterIP') {
    ports.forEach((p, i) => {
      if ((num(p['nodePort']) ?? 0) !== 0) errs.push(fieldForbidden(child(index('spec.ports', i), 'nodePort'), "may not be used when `type` is 'ClusterIP'"));
    });
  }
  const nodePorts = new Set<string>();
  ports.forEach((p, i) => {
    const nodePort = num(p['nodePort']) ?? 0;
    if (nodePort === 0) return;
    const id = `${str(p['protocol']) || 'TCP'}/${nodePort}`;
    if (nodePorts.has(id)) errs.push(fieldDuplicate(child(index('spec.ports', i), 'nodePort'), nodePort));
    nodePorts.add(id);
  });
  const seen = new Set<string>();
  ports.forEach((p, i) => {
    const protocol = str(p['protocol']) || 'TCP';
    const id = `${protocol}/${num(p['port']) ?? 0}`;
    if (seen.has(id)) errs.push({ type: 'FieldValueDuplicate', field: index('spec.ports', i), detail: `Duplicate value: ${servicePortKey(protocol, num(p['port']) ?? 0)}` });
    seen.add(id);
  });
  const ranges = strings(spec['loadBalancerSourceRanges']);
  if (ranges.length > 0) {
    if (type !== 'LoadBalancer') errs.push(fieldForbidden('spec.LoadBalancerSourceRanges', "may only be used when `type` is 'LoadBalancer'"));
    if (ranges.some((r) => !isValidCIDR(r.trim()))) errs.push(fieldInvalid('spec.LoadBalancerSourceRanges', `[${ranges.join(' ')}]`, 'must be a list of IP ranges. For example, 10.240.0.0/24,10.250.0.0/24 '));
  }
  if (present(spec['allocateLoadBalancerNodePorts']) && type !== 'LoadBalancer') {
    errs.push(fieldForbidden('spec.allocateLoadBalancerNodePorts', "may only be used when `type` is 'LoadBalancer'"));
  }
  if (present(spec['externalTrafficPolicy'])) errs.push(...enumField(spec['externalTrafficPolicy'], 'spec.externalTrafficPolicy', ['Cluster', 'Local']));
  if (present(spec['internalTrafficPolicy'])) errs.push(...enumField(spec['internalTrafficPolicy'], 'spec.internalTrafficPolicy', ['Cluster', 'Local']));
  if (present(spec['ipFamilyPolicy'])) errs.push(...enumField(spec['ipFamilyPolicy'], 'spec.ipFamilyPolicy', ['PreferDualStack', 'RequireDualStack', 'SingleStack']));
  strings(spec['ipFamilies']).forEach((family, i) => {
    if (family !== 'IPv4' && family !== 'IPv6') errs.push(fieldNotSupported(index('spec.ipFamilies', i), family, ['IPv4', 'IPv6']));
  });
  return errs;
}

/** The primary cluster IP may not change (unless the type changes to or from ExternalName). */
function validateClusterIPUpdate(spec: Obj, oldSpec: Obj): FieldError[] {
  if (typeOf(spec) === 'ExternalName' || typeOf(oldSpec) === 'ExternalName') return [];
  if (isHeadless(spec) && isHeadless(oldSpec)) return [];
  const next = clusterIPs(spec);
  const old = clusterIPs(oldSpec);
  // A write without cluster IPs keeps the allocated ones (the reference copies them over first).
  if (next.length === 0) return [];
  const rendered = goStringSlice(strings(spec['clusterIPs']).length ? strings(spec['clusterIPs']) : next);
  const errs: FieldError[] = [];
  if (old.length === next.length) {
    old.forEach((ip, i) => {
      if (ip !== next[i]) errs.push(invalidRendered(index('spec.clusterIPs', i), rendered, 'may not change once set'));
    });
  } else if (old.length > next.length) {
    if (next.length === 0) errs.push(invalidRendered('spec.clusterIPs[0]', rendered, 'primary clusterIP can not be unset'));
    if (old.length > 0 && next.length > 0 && next[0] !== old[0]) errs.push(invalidRendered('spec.clusterIPs[0]', rendered, 'may not change once set'));
    if (next.length === 1 && spec['ipFamilyPolicy'] !== 'SingleStack') {
      errs.push(invalidRendered('spec.clusterIPs[0]', rendered, "`ipFamilyPolicy` must be set to 'SingleStack' when releasing the secondary clusterIP"));
    }
  } else if (old.length > 0 && next[0] !== old[0]) {
    errs.push(invalidRendered('spec.clusterIPs[0]', rendered, 'may not change once set'));
  }
  return errs;
}

export function validateServiceUpdate(service: Obj, old: Obj): FieldError[] {
  return [...validateClusterIPUpdate(obj(service['spec']), obj(old['spec'])), ...validateService(service)];
}
