// The endpointslicemirroring controller: Endpoints written by users for a Service without a
// selector are mirrored into EndpointSlices (named `<endpoints>-<random>`, owned by the
// Endpoints, labelled as the Endpoints plus the service name and this manager), so consumers of
// slices see them too. Endpoints labelled `endpointslice.kubernetes.io/skip-mirror: "true"` (the
// API server's own) are left alone; the mirrored slices go when the Endpoints, the Service or the
// reason to mirror goes.
import type { ResourceInfo } from '../../registry/definitions.js';
import type { Informer, ObjectVersion, Subscription } from '../../registry/informers.js';
import { familyOfIp } from '../../registry/allocators/ip-range.js';
import { StatusError } from '../../errors.js';
import { metadataOf, storedAnnotationsIn } from '../../registry/objects.js';
import type { Registry } from '../../registry/store.js';
import { type JsonObject, isObject, jsonEqual } from '../../json.js';
import { EventRecorder } from '../kit/events.js';
import { controllerReference } from '../kit/owned.js';
import { WorkQueue, keyOf, splitKey } from '../kit/work-queue.js';
import { controllerWriter } from '../kit/writer.js';
import { MANAGED_BY_LABEL, SERVICE_NAME_LABEL } from './endpoint-slices.js';
import { isNamespaceTerminating } from './write-errors.js';
import { labelsOf, serviceSelector } from './pods.js';
import { repackSubsets } from './subsets.js';
import { type DesiredGroup, planSlices, reuseDeleted } from './slice-planner.js';
import { SliceExpectations, sliceContent } from './slice-writes.js';
import { TRIGGER_TIME_ANNOTATION } from './trigger-time.js';

const MANAGED_BY = 'endpointslicemirroring-controller.k8s.io';
const SKIP_MIRROR_LABEL = 'endpointslice.kubernetes.io/skip-mirror';
const LEADER_ANNOTATION = 'control-plane.alpha.kubernetes.io/leader';
const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
/** Addresses mirrored per subset; a subset maps to (at most) one slice. */
export const MAX_MIRRORED_PER_SUBSET = 1000;

const annotationsOf = storedAnnotationsIn;

function shouldMirror(endpoints: JsonObject): boolean {
  return labelsOf(endpoints)[SKIP_MIRROR_LABEL] !== 'true' && !(LEADER_ANNOTATION in annotationsOf(endpoints));
}

function addressEndpoint(address: JsonObject, ready: boolean): JsonObject {
  const endpoint: JsonObject = { addresses: [address['ip']], conditions: { ready } };
  if (typeof address['hostname'] === 'string' && address['hostname']) endpoint['hostname'] = address['hostname'];
  if (isObject(address['targetRef'])) endpoint['targetRef'] = address['targetRef'];
  if (typeof address['nodeName'] === 'string') endpoint['nodeName'] = address['nodeName'];
  return endpoint;
}

/** The slices' content mirroring an Endpoints: per (repacked) subset's ports and address type, its addresses. */
export function mirroredGroups(endpoints: JsonObject): DesiredGroup[] {
  const groups = new Map<string, DesiredGroup>();
  for (const subset of repackSubsets(endpoints['subsets'])) {
    const ports = (Array.isArray(subset['ports']) ? subset['ports'].filter(isObject) : []).map((p) => {
      const port: JsonObject = { name: p['name'] ?? '', protocol: p['protocol'] ?? 'TCP', port: p['port'] };
      if (p['appProtocol'] !== undefined) port['appProtocol'] = p['appProtocol'];
      return port;
    });
    let added = 0;
    const take = (list: unknown, ready: boolean) => {
      for (const address of Array.isArray(list) ? list.filter(isObject) : []) {
        if (added >= MAX_MIRRORED_PER_SUBSET) return;
        const family = typeof address['ip'] === 'string' ? familyOfIp(address['ip']) : undefined;
        // An address that is not an IP is not mirrored.
        if (!family) continue;
        const key = `${family}\u0000${JSON.stringify(ports)}`;
        let group = groups.get(key);
        if (!group) groups.set(key, (group = { addressType: family, ports, endpoints: [] }));
        group.endpoints.push(addressEndpoint(address, ready));
        added++;
      }
    };
    take(subset['addresses'], true);
    take(subset['notReadyAddresses'], false);
  }
  return [...groups.values()];
}

/** The mirrored slices' labels and annotations: the Endpoints' own, plus the service name and manager. */
function mirroredMeta(endpoints: JsonObject): { labels: Record<string, string>; annotations: Record<string, string> } {
  const labels: Record<string, string> = { ...labelsOf(endpoints), [SERVICE_NAME_LABEL]: String(metadataOf(endpoints)['name']), [MANAGED_BY_LABEL]: MANAGED_BY };
  const annotations: Record<string, string> = { ...annotationsOf(endpoints) };
  delete annotations[TRIGGER_TIME_ANNOTATION];
  delete annotations[LAST_APPLIED_ANNOTATION];
  return { labels, annotations };
}

export class EndpointSliceMirroringController {
  private readonly writer = controllerWriter('endpointslicemirroring-controller');
  private readonly events: EventRecorder;
  private readonly expectations = new SliceExpectations();
  private readonly queue: WorkQueue;
  private readonly subscriptions: Subscription[] = [];
  private endpoints!: Informer;
  private services!: Informer;
  private slices!: Informer;
  private readonly sliceInfo: ResourceInfo | undefined;
  private readonly endpointsInfo: ResourceInfo;
  private readonly serviceInfo: ResourceInfo;

  constructor(private readonly registry: Registry) {
    this.events = new EventRecorder(registry, 'endpoint-slice-mirroring-controller', this.writer);
    this.queue = new WorkQueue((key) => this.sync(key), { onError: (key, err) => console.error(`endpointslicemirroring controller: ${key}:`, err) });
    this.sliceInfo = registry.definitions.lookup('discovery.k8s.io', 'v1', 'endpointslices');
    this.endpointsInfo = registry.definitions.lookup('', 'v1', 'endpoints')!;
    this.serviceInfo = registry.definitions.lookup('', 'v1', 'services')!;
  }

  async start(): Promise<void> {
    if (!this.sliceInfo) return;
    this.slices = await this.registry.informer(this.sliceInfo);
    this.endpoints = await this.registry.informer(this.endpointsInfo);
    this.services = await this.registry.informer(this.serviceInfo);
    const changed = (o: ObjectVersion) => this.queue.add(keyOf(o.namespace, o.name));
    const handlers = { added: changed, updated: changed, deleted: changed };
    this.subscriptions.push(this.endpoints.subscribe(handlers));
    this.subscriptions.push(this.services.subscribe(handlers, { replay: false }));
    const sliceChanged = (o: ObjectVersion) => {
      const labels = labelsOf(o.object);
      if (labels[MANAGED_BY_LABEL] === MANAGED_BY && labels[SERVICE_NAME_LABEL]) this.queue.add(keyOf(o.namespace, labels[SERVICE_NAME_LABEL]));
    };
    this.subscriptions.push(this.slices.subscribe({ updated: sliceChanged, deleted: sliceChanged }, { replay: false }));
  }

  stop(): void {
    for (const s of this.subscriptions) s.stop();
    this.queue.stop();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  private async sync(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const ns = namespace!;
    if (!this.expectations.satisfied(key, ns, this.slices)) {
      this.queue.addAfter(key, 20);
      return;
    }
    const mirrored = this.slices.list(ns).filter((s) => {
      const l = labelsOf(s);
      return l[SERVICE_NAME_LABEL] === name && l[MANAGED_BY_LABEL] === MANAGED_BY && !metadataOf(s)['deletionTimestamp'];
    });
    const endpoints = this.endpoints.get(ns, name);
    const service = this.services.get(ns, name);
    const mirror = endpoints && service && !serviceSelector(service) && shouldMirror(endpoints);
    const groups = mirror ? mirroredGroups(endpoints) : [];
    const meta = endpoints ? mirroredMeta(endpoints) : { labels: {}, annotations: {} };
    const uid = endpoints && metadataOf(endpoints)['uid'];
    const owned = (s: JsonObject) => Array.isArray(metadataOf(s)['ownerReferences'])
      && (metadataOf(s)['ownerReferences'] as JsonObject[]).some((r) => r['uid'] === uid && r['kind'] === 'Endpoints');
    const current = mirror ? mirrored.filter(owned) : [];
    const metaChanged = (s: JsonObject) => !jsonEqual(labelsOf(s), meta.labels) || !jsonEqual(annotationsOf(s), meta.annotations);
    const plan = planSlices(current, groups, metaChanged, MAX_MIRRORED_PER_SUBSET);
    plan.delete.push(...mirrored.filter((s) => !current.includes(s)).map((s) => String(metadataOf(s)['name'])));
    reuseDeleted(plan, mirrored);
    if (plan.create.length === 0 && plan.update.length === 0 && plan.delete.length === 0) return;
    const shapeMeta = (base: JsonObject): JsonObject => {
      const m: JsonObject = { ...base, labels: meta.labels, annotations: meta.annotations };
      if (Object.keys(meta.annotations).length === 0) delete m['annotations'];
      return m;
    };
    try {
      await this.expectations.apply(this.registry, this.sliceInfo!, this.writer, key, ns, plan, {
        create: (write) => ({
          apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
          metadata: shapeMeta({ generateName: `${name}-`, namespace: ns, ownerReferences: [controllerReference({ ...endpoints!, apiVersion: 'v1', kind: 'Endpoints' })] }),
          addressType: write.addressType, ...sliceContent(write),
        }),
        metadata: shapeMeta,
      });
    } catch (err) {
      // A namespace being deleted refuses new slices: nothing to retry.
      if (isNamespaceTerminating(err)) return;
      // A slice gone meanwhile: the next sync sees it.
      if (err instanceof StatusError && err.code === 404) throw err;
      if (endpoints) this.events.record(endpoints, 'Warning', 'FailedToUpdateEndpointSlices', `Error updating EndpointSlices for Endpoints ${ns}/${name}: ${err instanceof Error ? err.message : String(err)}`);
      throw err;
    }
  }
}
