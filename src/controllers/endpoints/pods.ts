// What the endpoint controllers read from pods and Services alike: which pods a Service selects,
// which of them belong in its endpoints, their addresses of a family, and a Service port's number
// on a pod (a named targetPort looked up in the pod's container ports).
import { familyOfIp } from '../../registry/allocators/ip-range.js';
import { metadataOf } from '../../registry/objects.js';
import { type JsonObject, deepFreeze, isObject } from '../../json.js';
import { isPodReady, readyCondition } from '../kit/owned.js';

export type AddressFamily = 'IPv4' | 'IPv6';

export function specOf(obj: JsonObject): JsonObject {
  return isObject(obj['spec']) ? obj['spec'] : {};
}

function statusOf(obj: JsonObject): JsonObject {
  return isObject(obj['status']) ? obj['status'] : {};
}

export function labelsOf(obj: JsonObject): Record<string, string> {
  const labels = metadataOf(obj)['labels'];
  return isObject(labels) ? (labels as Record<string, string>) : {};
}

/**
 * A Service's selector map; undefined when it has none (its endpoints are the user's). An empty
 * one counts as none: the reference stores it as protobuf, which reads an empty map back as nil.
 */
export function serviceSelector(service: JsonObject): Record<string, string> | undefined {
  const selector = specOf(service)['selector'];
  return isObject(selector) && Object.keys(selector).length > 0 ? (selector as Record<string, string>) : undefined;
}

/** A Service selector (a plain map) selects the labels holding every pair; an empty one selects all. */
export function selectorMatches(selector: Record<string, string>, labels: Record<string, string> | undefined): boolean {
  for (const [key, value] of Object.entries(selector)) if (labels?.[key] !== value) return false;
  return true;
}

/** A cluster IP set (neither headless nor an ExternalName Service). */
export function isServiceIpSet(service: JsonObject): boolean {
  const ip = specOf(service)['clusterIP'];
  return typeof ip === 'string' && ip !== '' && ip !== 'None';
}

/** The pod's IPs: status.podIPs, else status.podIP (the reference's conversion fills the first from the second). */
export function podIps(pod: JsonObject): string[] {
  const status = statusOf(pod);
  const ips = Array.isArray(status['podIPs']) ? status['podIPs'].flatMap((p) => (isObject(p) && typeof p['ip'] === 'string' && p['ip'] ? [p['ip']] : [])) : [];
  const primary = typeof status['podIP'] === 'string' ? status['podIP'] : '';
  if (primary && ips[0] !== primary) return [primary, ...ips.filter((ip) => ip !== primary)];
  return ips;
}

export function isIpv6(ip: string): boolean {
  return familyOfIp(ip) === 'IPv6';
}

/** Not finished, with an IP, and (unless terminating pods are included) not being deleted. */
export function shouldPodBeInEndpoints(pod: JsonObject, includeTerminating: boolean): boolean {
  const phase = statusOf(pod)['phase'];
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  if (podIps(pod).length === 0) return false;
  return includeTerminating || !metadataOf(pod)['deletionTimestamp'];
}

export { isPodReady };

/** The hostname is published when the pod names the Service as its subdomain. */
export function shouldSetHostname(pod: JsonObject, service: JsonObject): boolean {
  const spec = specOf(pod);
  return typeof spec['hostname'] === 'string' && spec['hostname'] !== '' && spec['subdomain'] === metadataOf(service)['name']
    && metadataOf(pod)['namespace'] === metadataOf(service)['namespace'];
}

export function servicePorts(service: JsonObject): JsonObject[] {
  const ports = specOf(service)['ports'];
  return Array.isArray(ports) ? ports.filter(isObject) : [];
}

/**
 * The port a Service port reaches on the pod: a numeric targetPort as it is (the port itself when
 * unset), a named one as the pod's container port of that name and protocol; undefined when the
 * pod has no such port.
 */
export function findPort(pod: JsonObject, servicePort: JsonObject): number | undefined {
  const target = servicePort['targetPort'] ?? servicePort['port'];
  if (typeof target === 'number') return target;
  if (typeof target !== 'string') return undefined;
  if (/^\d+$/.test(target)) return Number(target);
  const protocol = servicePort['protocol'] ?? 'TCP';
  const containers = specOf(pod)['containers'];
  for (const c of Array.isArray(containers) ? containers : []) {
    if (!isObject(c) || !Array.isArray(c['ports'])) continue;
    for (const p of c['ports']) {
      if (isObject(p) && p['name'] === target && (p['protocol'] ?? 'TCP') === protocol && typeof p['containerPort'] === 'number') return p['containerPort'];
    }
  }
  return undefined;
}

/** The pod reference endpoints carry. */
export function podReference(pod: JsonObject): JsonObject {
  const meta = metadataOf(pod);
  return { kind: 'Pod', namespace: meta['namespace'], name: meta['name'], uid: meta['uid'] };
}

/** The last view made, and the pod it was made of (see podView). */
let lastPod: JsonObject | undefined;
let lastView: JsonObject | undefined;

/**
 * What the endpoint controllers read of a pod, in the pod's own shape (so the functions above take
 * either): kept for every pod instead of the whole object. Made of a frozen, shared pod
 * (ObjectVersion.frozen), it is frozen too and holds the pod's own labels, ports and pod IPs; the
 * endpoints and EndpointSlice controllers follow the same changes one after the other, so the
 * second is given the view the first was (one view per pod kept, not two: ~15 objects each).
 */
export function podView(pod: JsonObject): JsonObject {
  if (pod === lastPod) return lastView!;
  const meta = metadataOf(pod);
  const spec = specOf(pod);
  const status = statusOf(pod);
  const metadata: JsonObject = { name: meta['name'], namespace: meta['namespace'], uid: meta['uid'] };
  if (meta['labels'] !== undefined) metadata['labels'] = meta['labels'];
  if (meta['deletionTimestamp'] !== undefined) metadata['deletionTimestamp'] = meta['deletionTimestamp'];
  const containers = Array.isArray(spec['containers'])
    ? spec['containers'].map((c) => (isObject(c) && Array.isArray(c['ports']) ? { ports: c['ports'] } : {}))
    : [];
  const view: JsonObject = { metadata, spec: { nodeName: spec['nodeName'], hostname: spec['hostname'], subdomain: spec['subdomain'], containers } };
  const ready = readyCondition(pod);
  view['status'] = {
    phase: status['phase'], podIP: status['podIP'], podIPs: status['podIPs'],
    conditions: ready ? [{ type: 'Ready', status: ready['status'], lastTransitionTime: ready['lastTransitionTime'] }] : [],
  };
  lastPod = pod;
  lastView = deepFreeze(view);
  return lastView;
}
