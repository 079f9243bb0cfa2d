// A Service's allocated fields read from and written to its JSON (spec.clusterIP(s), ipFamilies,
// ipFamilyPolicy, ports[].nodePort, healthCheckNodePort), and the reference's rules that link
// them across an update. Absent fields read as the Go zero values ("" and 0).
import { type JsonObject } from '../../json.js';

export interface ServicePortFields {
  name?: string;
  protocol?: string;
  port?: number;
  nodePort?: number;
}

export interface ServiceSpecFields {
  type?: string;
  clusterIP?: string;
  clusterIPs?: string[];
  ipFamilies?: string[];
  ipFamilyPolicy?: string;
  selector?: Record<string, string>;
  ports?: ServicePortFields[];
  externalTrafficPolicy?: string;
  healthCheckNodePort?: number;
  allocateLoadBalancerNodePorts?: boolean;
  loadBalancerClass?: string;
}

export const CLUSTER_IP_NONE = 'None';

/** The spec of a Service (made an object when absent). */
export function serviceSpec(svc: JsonObject): ServiceSpecFields {
  const spec = svc['spec'];
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) svc['spec'] = {};
  return svc['spec'] as ServiceSpecFields;
}

/** The spec of a Service, read only (an empty one when absent). */
export function readSpec(svc: JsonObject): ServiceSpecFields {
  const spec = svc['spec'];
  return typeof spec === 'object' && spec !== null && !Array.isArray(spec) ? (spec as ServiceSpecFields) : {};
}

export function serviceName(svc: JsonObject): string {
  const meta = svc['metadata'] as { name?: unknown } | undefined;
  return typeof meta?.name === 'string' ? meta.name : '';
}

/** spec.type, ClusterIP when unset (as the reference defaults it). */
export function typeOf(spec: ServiceSpecFields): string {
  return typeof spec.type === 'string' && spec.type !== '' ? spec.type : 'ClusterIP';
}

export function clusterIpOf(spec: ServiceSpecFields): string {
  return typeof spec.clusterIP === 'string' ? spec.clusterIP : '';
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.map((v) => (typeof v === 'string' ? v : String(v))) : [];
}

export function clusterIpsOf(spec: ServiceSpecFields): string[] {
  return stringList(spec.clusterIPs);
}

export function familiesOf(spec: ServiceSpecFields): string[] {
  return stringList(spec.ipFamilies);
}

export function policyOf(spec: ServiceSpecFields): string | undefined {
  return typeof spec.ipFamilyPolicy === 'string' ? spec.ipFamilyPolicy : undefined;
}

export function portsOf(spec: ServiceSpecFields): ServicePortFields[] {
  return Array.isArray(spec.ports) ? spec.ports.filter((p) => typeof p === 'object' && p !== null) : [];
}

export function nodePortOf(port: ServicePortFields): number {
  return typeof port.nodePort === 'number' ? port.nodePort : 0;
}

export function healthCheckNodePortOf(spec: ServiceSpecFields): number {
  return typeof spec.healthCheckNodePort === 'number' ? spec.healthCheckNodePort : 0;
}

export function hasSelector(spec: ServiceSpecFields): boolean {
  return typeof spec.selector === 'object' && spec.selector !== null && Object.keys(spec.selector).length > 0;
}

export function isHeadless(spec: ServiceSpecFields): boolean {
  return clusterIpsOf(spec)[0] === CLUSTER_IP_NONE;
}

export function setClusterIps(spec: ServiceSpecFields, ips: string[] | undefined): void {
  if (ips === undefined || ips.length === 0) delete spec.clusterIPs;
  else spec.clusterIPs = ips;
}

export function needsClusterIp(spec: ServiceSpecFields): boolean {
  return typeOf(spec) !== 'ExternalName';
}

export function needsNodePorts(spec: ServiceSpecFields): boolean {
  const type = typeOf(spec);
  return type === 'NodePort' || type === 'LoadBalancer';
}

/** A LoadBalancer with externalTrafficPolicy Local gets a health check node port. */
export function needsHealthCheckNodePort(spec: ServiceSpecFields): boolean {
  return typeOf(spec) === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local';
}

/** Whether ports without a nodePort get one (allocateLoadBalancerNodePorts: false says no). */
export function allocatesNodePorts(spec: ServiceSpecFields): boolean {
  const type = typeOf(spec);
  if (type === 'NodePort') return true;
  return type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts !== false;
}

export function nodePortsOf(spec: ServiceSpecFields): number[] {
  return portsOf(spec).map(nodePortOf).filter((n) => n !== 0);
}

function sameList(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

export function sameClusterIps(a: ServiceSpecFields, b: ServiceSpecFields): boolean {
  return sameList(clusterIpsOf(a), clusterIpsOf(b));
}

export function sameFamilies(a: ServiceSpecFields, b: ServiceSpecFields): boolean {
  return sameList(familiesOf(a), familiesOf(b));
}

/**
 * Keeps clusterIP and clusterIPs in step, as the reference does before allocating: clients that
 * know only the singular field still work.
 */
export function normalizeClusterIps(spec: ServiceSpecFields, old?: ServiceSpecFields): void {
  const ip = clusterIpOf(spec);
  if (!old) {
    if (ip !== '' && clusterIpsOf(spec).length === 0) spec.clusterIPs = [ip];
    return;
  }
  const oldIp = clusterIpOf(old);
  // An old client left clusterIPs out while patching something else.
  if (clusterIpsOf(old).length > 0 && clusterIpsOf(spec).length === 0 && oldIp === ip) setClusterIps(spec, clusterIpsOf(old));
  if (oldIp !== ip && sameClusterIps(old, spec)) {
    // clusterIP was cleared (clear clusterIPs with it) or changed (validation judges the change).
    setClusterIps(spec, oldIp !== '' && ip === '' ? undefined : [ip]);
  }
}

/**
 * Puts back what the server allocated when an update leaves it out, so that resubmitting the
 * manifest a Service was created from works.
 */
export function patchAllocatedValues(spec: ServiceSpecFields, old: ServiceSpecFields): void {
  if (needsClusterIp(old) && needsClusterIp(spec)) {
    if (clusterIpOf(spec) === '' && clusterIpOf(old) !== '') spec.clusterIP = clusterIpOf(old);
    if (clusterIpsOf(spec).length === 0 && clusterIpsOf(old).length > 0) spec.clusterIPs = clusterIpsOf(old);
  }
  if (needsNodePorts(old) && needsNodePorts(spec)) {
    const newPorts = new Set(nodePortsOf(spec));
    // Ports kept in both cannot be given to another port.
    const used = new Set(nodePortsOf(old).filter((n) => newPorts.has(n)));
    const byName = new Map<string, number>();
    for (const p of portsOf(old)) byName.set(p.name ?? '', nodePortOf(p));
    for (const p of portsOf(spec)) {
      if (nodePortOf(p) !== 0) continue;
      const previous = byName.get(p.name ?? '') ?? 0;
      if (previous !== 0 && !used.has(previous)) p.nodePort = previous;
    }
  }
  if (needsHealthCheckNodePort(old) && needsHealthCheckNodePort(spec) && healthCheckNodePortOf(spec) === 0) {
    const previous = healthCheckNodePortOf(old);
    if (previous !== 0) spec.healthCheckNodePort = previous;
  }
}

/**
 * Clears the fields a new type no longer uses, when the update left them as they were (the
 * reference's strategy does this before validation; what they held is released on commit).
 */
export function dropTypeDependentFields(svc: JsonObject, oldSvc: JsonObject): void {
  const spec = serviceSpec(svc);
  const old = readSpec(oldSvc);
  if (needsClusterIp(old) && !needsClusterIp(spec)) {
    if (sameClusterIps(old, spec) && clusterIpOf(old) === clusterIpOf(spec)) {
      delete spec.clusterIP;
      delete spec.clusterIPs;
    }
    if (sameFamilies(old, spec)) delete spec.ipFamilies;
    if (policyOf(old) === policyOf(spec)) delete spec.ipFamilyPolicy;
  }
  if (needsNodePorts(old) && !needsNodePorts(spec)) {
    const before = new Set(nodePortsOf(old));
    // Users may add, remove or change ports, as long as no new node port appears.
    if (nodePortsOf(spec).every((n) => before.has(n))) for (const p of portsOf(spec)) delete p.nodePort;
  }
  if (needsHealthCheckNodePort(old) && !needsHealthCheckNodePort(spec) && healthCheckNodePortOf(old) === healthCheckNodePortOf(spec)) {
    delete spec.healthCheckNodePort;
  }
  const wasLoadBalancer = typeOf(old) === 'LoadBalancer';
  const isLoadBalancer = typeOf(spec) === 'LoadBalancer';
  if (wasLoadBalancer && !isLoadBalancer) {
    if (typeof spec.allocateLoadBalancerNodePorts === 'boolean' && spec.allocateLoadBalancerNodePorts === old.allocateLoadBalancerNodePorts) {
      delete spec.allocateLoadBalancerNodePorts;
    }
    if (spec.loadBalancerClass === old.loadBalancerClass) delete spec.loadBalancerClass;
  }
  if (needsNodePorts(old) && !needsNodePorts(spec) && spec.externalTrafficPolicy === old.externalTrafficPolicy) {
    delete spec.externalTrafficPolicy;
  }
  // A load balancer's status means nothing once the Service is not one (replaced, not changed in
  // place: the status may be shared with the stored object).
  const status = svc['status'];
  if (!isLoadBalancer && typeof status === 'object' && status !== null && !Array.isArray(status) && (status as JsonObject)['loadBalancer'] !== undefined) {
    svc['status'] = { ...(status as JsonObject), loadBalancer: {} };
  }
}
