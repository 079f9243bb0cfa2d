// The `kubernetes` Service in `default`, its Endpoints and its EndpointSlice: how clients inside
// the cluster find the API server. Kept as the reference's bootstrap controller and master
// endpoint reconciler keep them: made at start, made again when deleted, and put back when their
// ports or address drift (on any change to them, and every 10 s). A client of the registry. On a
// store several servers share, the endpoints are every live server's address (the reference's
// lease reconciler, registry/master-leases.ts), and a change another server made is not answered
// at once (only a deletion is): servers that disagree on a port then take turns every 10 s, as the
// reference's, instead of rewriting each other without pause.
import { SerialRun } from '../registry/serial-run.js';
import type { ResourceInfo } from '../registry/definitions.js';
import { StatusError } from '../errors.js';
import { familyOfIp } from '../registry/allocators/ip-range.js';
import { metadataOf } from '../registry/objects.js';
import type { MasterLeases } from '../registry/master-leases.js';
import { SYSTEM_WRITER, type Registry } from '../registry/store.js';
import type { ObjectVersion, Subscription } from '../registry/informers.js';
import { type JsonObject, jsonEqual } from '../json.js';

export interface KubernetesServiceOptions {
  /** The Service's address: the first of the primary service range. */
  clusterIp: string;
  /** Where clients reach this server (the advertise address). */
  address: string;
  /** The server's secure port. */
  port: number;
  /** On a store other servers share: where the live servers' addresses are kept. */
  masterLeases?: MasterLeases;
}

const NAMESPACE = 'default';
const NAME = 'kubernetes';
const SERVICE_PORT = 443;
const PORT_NAME = 'https';
const RESYNC_MS = 10_000;

/** The address the Endpoints name: --advertise-address, else the bind address, else loopback. */
export function advertisedAddress(advertise: string | undefined, bindAddress: string): string {
  if (advertise) return advertise;
  if (familyOfIp(bindAddress) && bindAddress !== '0.0.0.0' && bindAddress !== '::') return bindAddress;
  return '127.0.0.1';
}

export class KubernetesServiceController {
  private readonly subscriptions: Subscription[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly runs = new SerialRun(() => this.reconcile(), 'kubernetes service');

  constructor(private readonly registry: Registry, private readonly options: KubernetesServiceOptions) {}

  private info(group: string, version: string, resource: string): ResourceInfo {
    return this.registry.definitions.lookup(group, version, resource)!;
  }

  async start(): Promise<void> {
    // A failure (the address taken by another Service, say) is logged and tried again later.
    await this.reconcile().catch((err: unknown) => console.error('kubernetes service:', err));
    for (const info of [this.info('', 'v1', 'services'), this.info('', 'v1', 'endpoints'), this.info('discovery.k8s.io', 'v1', 'endpointslices')]) {
      const changed = (o: ObjectVersion) => {
        if (o.name === NAME && o.namespace === NAMESPACE) this.runs.request();
      };
      const informer = await this.registry.informer(info);
      const shared = this.options.masterLeases !== undefined;
      this.subscriptions.push(informer.subscribe(shared ? { deleted: changed } : { added: changed, updated: changed, deleted: changed }, { replay: false }));
    }
    this.timer = setInterval(() => this.runs.request(), RESYNC_MS);
    this.timer.unref();
  }

  /** Stops watching and waits for a reconcile under way. */
  async stop(): Promise<void> {
    for (const s of this.subscriptions) s.stop();
    clearInterval(this.timer);
    await this.runs.stop();
    await this.options.masterLeases?.remove();
  }

  /** The servers' addresses: this one's, or every live one's on a shared store. */
  private async addresses(): Promise<string[]> {
    const leases = this.options.masterLeases;
    if (!leases) return [this.options.address];
    await leases.renew();
    return leases.live();
  }

  async reconcile(): Promise<void> {
    await this.ensureService();
    const addresses = await this.addresses();
    try {
      await this.ensureEndpoints(addresses);
    } catch (err) {
      // Endpoints may not name a loopback address (the reference refuses it too, and its
      // reconciler logs the same error); the Service and its EndpointSlice are kept regardless.
      if (!(err instanceof StatusError && err.code === 422)) throw err;
      if (!this.endpointsRefused) console.error(`note: the kubernetes Service has no Endpoints: ${this.options.address} is a loopback address (give --advertise-address a reachable one)`);
      this.endpointsRefused = true;
    }
    await this.ensureEndpointSlice(addresses);
  }

  /** The Endpoints were refused (a loopback advertise address): said once, not every resync. */
  private endpointsRefused = false;

  private async ensureService(): Promise<void> {
    const info = this.info('', 'v1', 'services');
    const ports = [{ name: PORT_NAME, protocol: 'TCP', port: SERVICE_PORT, targetPort: this.options.port }];
    const current = await this.registry.getObject(info, NAMESPACE, NAME);
    if (!current) {
      await this.create(info, {
        apiVersion: 'v1', kind: 'Service',
        metadata: { name: NAME, namespace: NAMESPACE, labels: { component: 'apiserver', provider: 'kubernetes' } },
        // No selector: this reconciler keeps the endpoints, not the endpoints controller.
        spec: { ports, clusterIP: this.options.clusterIp, sessionAffinity: 'None', type: 'ClusterIP' },
      });
      return;
    }
    const spec = (current['spec'] ?? {}) as JsonObject;
    // As the reference, only the ports and the type are put back.
    if (spec['type'] === 'ClusterIP' && jsonEqual(spec['ports'], ports)) return;
    await this.patch(info, (svc) => {
      const next = (svc['spec'] ?? {}) as JsonObject;
      svc['spec'] = { ...next, ports, type: 'ClusterIP' };
    });
  }

  private async ensureEndpoints(addresses: readonly string[]): Promise<void> {
    const info = this.info('', 'v1', 'endpoints');
    const subsets = [{ addresses: addresses.map((ip) => ({ ip })), ports: [{ name: PORT_NAME, port: this.options.port, protocol: 'TCP' }] }];
    // The EndpointSlice is written here too, so the mirroring controller is told to leave it.
    const skipMirror = 'endpointslice.kubernetes.io/skip-mirror';
    const current = await this.registry.getObject(info, NAMESPACE, NAME);
    if (!current) {
      await this.create(info, { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: NAME, namespace: NAMESPACE, labels: { [skipMirror]: 'true' } }, subsets });
      return;
    }
    const labels = (metadataOf(current)['labels'] ?? {}) as Record<string, string>;
    if (labels[skipMirror] === 'true' && jsonEqual(current['subsets'], subsets)) return;
    await this.patch(info, (eps) => {
      const meta = metadataOf(eps);
      meta['labels'] = { ...((meta['labels'] ?? {}) as Record<string, string>), [skipMirror]: 'true' };
      eps['subsets'] = subsets;
    });
  }

  private async ensureEndpointSlice(addresses: readonly string[]): Promise<void> {
    const info = this.info('discovery.k8s.io', 'v1', 'endpointslices');
    const addressType = familyOfIp(this.options.address) === 'IPv6' ? 'IPv6' : 'IPv4';
    const labels = { 'kubernetes.io/service-name': NAME };
    const endpoints = addresses.map((address) => ({ addresses: [address], conditions: { ready: true } }));
    const ports = [{ name: PORT_NAME, protocol: 'TCP', port: this.options.port }];
    const desired: JsonObject = { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: NAME, namespace: NAMESPACE, labels }, addressType, endpoints, ports };
    const current = await this.registry.getObject(info, NAMESPACE, NAME);
    if (!current) {
      await this.create(info, desired);
      return;
    }
    if (current['addressType'] !== addressType) {
      // addressType cannot change: the slice is made again.
      await this.ignoreMissing(this.registry.delete(info, NAMESPACE, NAME));
      await this.create(info, desired);
      return;
    }
    if (jsonEqual(metadataOf(current)['labels'], labels) && jsonEqual(current['endpoints'], endpoints) && jsonEqual(current['ports'], ports)) return;
    await this.patch(info, (slice) => {
      metadataOf(slice)['labels'] = labels;
      slice['endpoints'] = endpoints;
      slice['ports'] = ports;
    });
  }

  private async create(info: ResourceInfo, obj: JsonObject): Promise<void> {
    try {
      await this.registry.create(info, NAMESPACE, obj, SYSTEM_WRITER);
    } catch (err) {
      // Made meanwhile by someone else: the next pass looks at it.
      if (!(err instanceof StatusError && err.code === 409)) throw err;
    }
  }

  private async patch(info: ResourceInfo, change: (obj: JsonObject) => void): Promise<void> {
    await this.ignoreMissing(this.registry.patch(info, NAMESPACE, NAME, (current) => {
      change(current);
      return current;
    }, undefined, SYSTEM_WRITER));
  }

  private async ignoreMissing(write: Promise<unknown>): Promise<void> {
    try {
      await write;
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 404)) throw err;
    }
  }
}
