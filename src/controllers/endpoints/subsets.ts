// An Endpoints object's subsets as the reference's endpoints controller writes them: one address
// per selected pod (of the Service's IP family) and port, packed into the canonical layout of its
// RepackSubsets (each set of addresses with the ports they all offer; an address not ready on a
// port is not ready there), sorted; and truncated at 1000 addresses, ready ones kept first.

import { type JsonObject, isObject } from '../../json.js';
import {
  findPort, isIpv6, isPodReady, podIps, podReference, servicePorts, shouldPodBeInEndpoints, shouldSetHostname, specOf,
} from './pods.js';

export const MAX_ENDPOINTS_ADDRESSES = 1000;

interface Entry {
  address: JsonObject;
  ready: boolean;
  port: JsonObject | undefined;
}

/** The pod's address for the Service: the IP of the Service's (first) family; undefined when the pod has none. */
export function podAddress(service: JsonObject, pod: JsonObject): JsonObject | undefined {
  const spec = specOf(service);
  const families = Array.isArray(spec['ipFamilies']) ? spec['ipFamilies'] : [];
  const ips = podIps(pod);
  let v6: boolean;
  if (families.length > 0) v6 = families[0] === 'IPv6';
  else if (typeof spec['clusterIP'] === 'string' && spec['clusterIP'] && spec['clusterIP'] !== 'None') v6 = isIpv6(spec['clusterIP']);
  else v6 = ips[0] !== undefined && isIpv6(ips[0]);
  const ip = ips.find((candidate) => isIpv6(candidate) === v6);
  if (!ip) return undefined;
  const address: JsonObject = { ip };
  if (shouldSetHostname(pod, service)) address['hostname'] = specOf(pod)['hostname'];
  // The reference names the pod's node even when empty, which validation refuses: left out then.
  const node = specOf(pod)['nodeName'];
  if (typeof node === 'string' && node) address['nodeName'] = node;
  address['targetRef'] = podReference(pod);
  return address;
}

function endpointPort(servicePort: JsonObject, port: number): JsonObject {
  const out: JsonObject = {};
  if (typeof servicePort['name'] === 'string' && servicePort['name']) out['name'] = servicePort['name'];
  out['port'] = port;
  out['protocol'] = servicePort['protocol'] ?? 'TCP';
  if (servicePort['appProtocol'] !== undefined) out['appProtocol'] = servicePort['appProtocol'];
  return out;
}

/** The subsets of a Service from the pods it selects. */
export function subsetsFor(service: JsonObject, pods: JsonObject[]): JsonObject[] {
  const publishNotReady = specOf(service)['publishNotReadyAddresses'] === true;
  const ports = servicePorts(service);
  const entries: Entry[] = [];
  for (const pod of pods) {
    if (!shouldPodBeInEndpoints(pod, publishNotReady)) continue;
    const address = podAddress(service, pod);
    if (!address) continue;
    const ready = publishNotReady || isPodReady(pod);
    // A headless Service without ports gets subsets without ports, which repacking drops (as the reference).
    for (const servicePort of ports) {
      const port = findPort(pod, servicePort);
      if (port === undefined) continue;
      entries.push({ address, ready, port: endpointPort(servicePort, port) });
    }
  }
  return repack(entries);
}

/** Subsets in the canonical layout (user Endpoints are mirrored from it). */
export function repackSubsets(subsets: unknown): JsonObject[] {
  const entries: Entry[] = [];
  for (const subset of Array.isArray(subsets) ? subsets.filter(isObject) : []) {
    const ports = Array.isArray(subset['ports']) ? subset['ports'].filter(isObject) : [];
    for (const port of ports) {
      for (const [field, ready] of [['addresses', true], ['notReadyAddresses', false]] as const) {
        const list = Array.isArray(subset[field]) ? subset[field].filter(isObject) : [];
        for (const address of list) entries.push({ address, ready, port });
      }
    }
  }
  return repack(entries);
}

function addressKey(address: JsonObject): string {
  const ref = isObject(address['targetRef']) ? address['targetRef'] : {};
  return `${String(address['ip'])}\u0000${String(ref['uid'] ?? '')}`;
}

function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** Addresses by IP, then by their pod's uid, as the reference sorts them. */
export function compareAddresses(a: JsonObject, b: JsonObject): number {
  const byIp = compareBytes(String(a['ip']), String(b['ip']));
  if (byIp !== 0) return byIp;
  const ua = isObject(a['targetRef']) ? String(a['targetRef']['uid'] ?? '') : '';
  const ub = isObject(b['targetRef']) ? String(b['targetRef']['uid'] ?? '') : '';
  return ua < ub ? -1 : ua > ub ? 1 : 0;
}

function comparePorts(a: JsonObject, b: JsonObject): number {
  return compareBytes(JSON.stringify([a['name'] ?? '', a['port'], a['protocol']]), JSON.stringify([b['name'] ?? '', b['port'], b['protocol']]));
}

function repack(entries: Entry[]): JsonObject[] {
  const addresses = new Map<string, JsonObject>();
  // port (as a key) → its port and address key → ready; not ready on a port wins over ready.
  const byPort = new Map<string, { port: JsonObject; ready: Map<string, boolean> }>();
  for (const e of entries) {
    if (!e.port) continue;
    const key = addressKey(e.address);
    if (!addresses.has(key)) addresses.set(key, e.address);
    const portKey = JSON.stringify([e.port['name'] ?? '', e.port['port'], e.port['protocol'], e.port['appProtocol'] ?? null]);
    let slot = byPort.get(portKey);
    if (!slot) byPort.set(portKey, (slot = { port: e.port, ready: new Map() }));
    const was = slot.ready.get(key);
    if (was === undefined || was) slot.ready.set(key, e.ready);
  }
  // Ports offered by the same addresses (in the same readiness) share a subset.
  const groups = new Map<string, { ready: Map<string, boolean>; ports: JsonObject[] }>();
  for (const { port, ready } of byPort.values()) {
    const signature = [...ready.entries()].map(([k, r]) => `${k}\u0000${r ? 1 : 0}`).sort().join('\u0001');
    const group = groups.get(signature);
    if (group) group.ports.push(port);
    else groups.set(signature, { ready, ports: [port] });
  }
  const subsets: JsonObject[] = [];
  for (const { ready, ports } of groups.values()) {
    const readyAddresses: JsonObject[] = [];
    const notReady: JsonObject[] = [];
    for (const [key, r] of ready) (r ? readyAddresses : notReady).push(addresses.get(key)!);
    readyAddresses.sort(compareAddresses);
    notReady.sort(compareAddresses);
    ports.sort(comparePorts);
    const subset: JsonObject = {};
    if (readyAddresses.length) subset['addresses'] = readyAddresses;
    if (notReady.length) subset['notReadyAddresses'] = notReady;
    subset['ports'] = ports;
    subsets.push(subset);
  }
  return subsets.sort((a, b) => compareBytes(JSON.stringify(a), JSON.stringify(b)));
}

function count(subsets: JsonObject[], field: 'addresses' | 'notReadyAddresses'): number {
  return subsets.reduce((n, s) => n + (Array.isArray(s[field]) ? s[field].length : 0), 0);
}

export function addressCount(subsets: JsonObject[]): number {
  return count(subsets, 'addresses') + count(subsets, 'notReadyAddresses');
}

/**
 * Subsets cut to 1000 addresses, each subset keeping its share: not-ready ones cut first; ready
 * ones cut (and every not-ready one dropped) when they alone are over. Undefined when under.
 */
export function truncated(subsets: JsonObject[]): JsonObject[] | undefined {
  const ready = count(subsets, 'addresses');
  const notReady = count(subsets, 'notReadyAddresses');
  if (ready + notReady <= MAX_ENDPOINTS_ADDRESSES) return undefined;
  const cutReady = ready > MAX_ENDPOINTS_ADDRESSES;
  const max = cutReady ? MAX_ENDPOINTS_ADDRESSES : MAX_ENDPOINTS_ADDRESSES - ready;
  const total = cutReady ? ready : notReady;
  let room = max;
  return subsets.map((subset) => {
    const field = cutReady ? 'addresses' : 'notReadyAddresses';
    const list = Array.isArray(subset[field]) ? (subset[field] as JsonObject[]) : [];
    const share = Math.min(room, Math.ceil((list.length / total) * max));
    const kept = list.slice(0, share);
    room -= kept.length;
    const out: JsonObject = { ...subset };
    if (kept.length) out[field] = kept;
    else delete out[field];
    if (cutReady) delete out['notReadyAddresses'];
    return out;
  });
}

