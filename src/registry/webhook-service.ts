// A webhook's service reference resolved to an address: the service's port (by number) and, through
// its Endpoints (or, failing those, its EndpointSlices), a ready address serving that port's name.
// There is no cluster network, so the service's own IP is never dialled.
import type { Registry } from './store.js';
import { type JsonObject, isObject } from '../json.js';

export interface ServiceReference {
  namespace: string;
  name: string;
  path?: string;
  port: number;
}

export interface Address {
  host: string;
  port: number;
}

/** Resolution failures carry the reference's text (they show after `Post "…":`). */
export class ResolveError extends Error {}

const ROUTABLE_TYPES = new Set(['ClusterIP', 'NodePort', 'LoadBalancer']);
const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

function objects(v: unknown): JsonObject[] {
  return Array.isArray(v) ? v.filter(isObject) : [];
}

function pick<T>(items: T[]): T {
  return items[Math.floor(Math.random() * items.length)]!;
}

async function getObject(registry: Registry, group: string, version: string, resource: string, namespace: string, name: string): Promise<JsonObject | undefined> {
  const info = registry.definitions.lookup(group, version, resource);
  if (!info) return undefined;
  // The informer may lag a write just made.
  return (await registry.informer(info)).get(namespace, name) ?? registry.getObject(info, namespace, name);
}

export async function resolveService(registry: Registry, ref: ServiceReference): Promise<Address> {
  const service = await getObject(registry, '', 'v1', 'services', ref.namespace, ref.name);
  if (!service) throw new ResolveError(`service ${JSON.stringify(ref.name)} not found`);
  const spec = isObject(service['spec']) ? service['spec'] : {};
  const type = typeof spec['type'] === 'string' ? spec['type'] : 'ClusterIP';
  if (!ROUTABLE_TYPES.has(type)) throw new ResolveError(`unsupported service type ${JSON.stringify(type)}`);
  const servicePort = objects(spec['ports']).find((p) => p['port'] === ref.port);
  if (!servicePort) throw new ResolveError(`no service port ${ref.port} found for service ${JSON.stringify(ref.name)}`);
  const portName = typeof servicePort['name'] === 'string' ? servicePort['name'] : '';
  const noEndpoints = new ResolveError(`no endpoints available for service ${JSON.stringify(ref.name)}`);

  const endpoints = await getObject(registry, '', 'v1', 'endpoints', ref.namespace, ref.name);
  if (endpoints) {
    const subsets = objects(endpoints['subsets']);
    for (const subset of subsets) {
      const addresses = objects(subset['addresses']).filter((a) => typeof a['ip'] === 'string');
      const port = objects(subset['ports']).find((p) => (typeof p['name'] === 'string' ? p['name'] : '') === portName);
      if (addresses.length && port && typeof port['port'] === 'number') return { host: String(pick(addresses)['ip']), port: port['port'] };
    }
    throw noEndpoints;
  }
  const slices = await slicesOf(registry, ref);
  if (!slices.length) throw new ResolveError(`endpoints ${JSON.stringify(ref.name)} not found`);
  const address = fromEndpointSlices(slices, portName);
  if (!address) throw noEndpoints;
  return address;
}

async function slicesOf(registry: Registry, ref: ServiceReference): Promise<JsonObject[]> {
  const info = registry.definitions.versionsOf('discovery.k8s.io', 'endpointslices')[0];
  if (!info) return [];
  return (await registry.informer(info)).list(ref.namespace).filter((s) => {
    const labels = isObject(s['metadata']) && isObject(s['metadata']['labels']) ? s['metadata']['labels'] : {};
    return labels[SERVICE_NAME_LABEL] === ref.name;
  });
}

function fromEndpointSlices(slices: JsonObject[], portName: string): Address | undefined {
  for (const slice of slices) {
    const port = objects(slice['ports']).find((p) => (typeof p['name'] === 'string' ? p['name'] : '') === portName);
    if (!port || typeof port['port'] !== 'number') continue;
    const ready = objects(slice['endpoints']).filter((e) => !isObject(e['conditions']) || e['conditions']['ready'] !== false);
    const addresses = ready.flatMap((e) => (Array.isArray(e['addresses']) ? e['addresses'].filter((a): a is string => typeof a === 'string') : []));
    if (addresses.length) return { host: pick(addresses), port: port['port'] };
  }
  return undefined;
}
