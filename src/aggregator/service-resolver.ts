// Where an APIService's Service is served: an address of its Endpoints that is ready, on the port
// the Service's port leads to. Only endpoints of the named Service are ever dialed (its clusterIP
// is not reachable from here). A failure carries the reason and message the reference's
// availability controller sets.
import { isObject } from '../json.js';
import type { Informer } from '../registry/informers.js';
import type { Registry } from '../registry/store.js';
import type { ServiceRef } from './apiservice-objects.js';

export interface Resolved {
  host: string;
  port: number;
}

export interface Unresolved {
  reason: 'ServiceNotFound' | 'ServicePortError' | 'MissingEndpoints';
  message: string;
}

export class ServiceResolver {
  private constructor(private readonly services: Informer, private readonly endpoints: Informer) {}

  static async of(registry: Registry): Promise<ServiceResolver> {
    const services = await registry.informer(registry.definitions.lookup('', 'v1', 'services')!);
    const endpoints = await registry.informer(registry.definitions.lookup('', 'v1', 'endpoints')!);
    return new ServiceResolver(services, endpoints);
  }

  /** Every ready address of the Service's port, or why there is none. */
  candidates(ref: ServiceRef): Resolved[] | Unresolved {
    const where = `service/${ref.name} in "${ref.namespace}"`;
    const service = this.services.get(ref.namespace, ref.name);
    if (!service) return { reason: 'ServiceNotFound', message: `${where} is not present` };
    const spec = isObject(service.spec) ? service.spec : {};
    const ports = (Array.isArray(spec.ports) ? spec.ports : []).filter(isObject);
    const servicePort = ports.find((p) => p.port === ref.port);
    if (!servicePort) return { reason: 'ServicePortError', message: `${where} is not listening on port ${ref.port}` };
    const portName = typeof servicePort.name === 'string' ? servicePort.name : '';
    const endpoints = this.endpoints.get(ref.namespace, ref.name);
    if (!endpoints) return { reason: 'MissingEndpoints', message: `cannot find endpoints for ${where}` };
    const found: Resolved[] = [];
    for (const subset of (Array.isArray(endpoints.subsets) ? endpoints.subsets : []).filter(isObject)) {
      const port = (Array.isArray(subset.ports) ? subset.ports : []).filter(isObject).find((p) => (typeof p.name === 'string' ? p.name : '') === portName);
      if (!port || typeof port.port !== 'number') continue;
      for (const address of (Array.isArray(subset.addresses) ? subset.addresses : []).filter(isObject)) {
        if (typeof address.ip === 'string') found.push({ host: address.ip, port: port.port });
      }
    }
    if (found.length === 0) return { reason: 'MissingEndpoints', message: `endpoints for ${where} have no addresses with port name "${portName}"` };
    return found;
  }

  /** One ready address, picked at random among them, or why there is none. */
  resolve(ref: ServiceRef): Resolved | Unresolved {
    const all = this.candidates(ref);
    if (!Array.isArray(all)) return all;
    return all[Math.floor(Math.random() * all.length)]!;
  }

  /** Calls `changed` on any change to a Service or Endpoints; returns the unsubscribe function. */
  subscribe(changed: () => void): () => void {
    const subs = [this.services, this.endpoints].map((i) => i.subscribe({ added: changed, updated: changed, deleted: changed }, { replay: false }));
    return () => subs.forEach((s) => s.stop());
  }
}

export function isResolved(r: Resolved | Unresolved): r is Resolved {
  return 'host' in r;
}

