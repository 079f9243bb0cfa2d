// The endpointslice controller: each Service with a selector gets EndpointSlices (named
// `<service>-<random>`, owned by the Service) of the address types of its IP families, holding
// the selected pods that have an IP, ready, serving or terminating, up to 100 to a slice, grouped
// by the ports they resolve the Service's ports to; a Service selecting no pod gets one empty
// slice. Slices go with the Service (the garbage collector follows their owner reference).
import type { ResourceInfo } from '../../registry/definitions.js';
import type { Informer, ObjectVersion, Subscription } from '../../registry/informers.js';
import { StatusError } from '../../errors.js';
import { metadataOf } from '../../registry/objects.js';
import type { Registry } from '../../registry/store.js';
import { type JsonObject, jsonEqual } from '../../json.js';
import { EventRecorder } from '../kit/events.js';
import { controllerReference } from '../kit/owned.js';
import { WorkQueue, keyOf, splitKey } from '../kit/work-queue.js';
import { controllerWriter } from '../kit/writer.js';
import { HEADLESS_LABEL } from './endpoints.js';
import { isNamespaceTerminating } from './write-errors.js';
import {
  findPort, isIpv6, isPodReady, isServiceIpSet, labelsOf, podIps, podReference, servicePorts, serviceSelector,
  shouldPodBeInEndpoints, shouldSetHostname, specOf,
} from './pods.js';
import { ServicePodFollower } from './service-watch.js';
import { type DesiredGroup, type SlicePlan, planSlices, reuseDeleted } from './slice-planner.js';
import { SliceExpectations, sliceContent } from './slice-writes.js';
import { TRIGGER_TIME_ANNOTATION, TriggerTimeTracker, formatTriggerTime } from './trigger-time.js';

export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
export const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
const MANAGED_BY = 'endpointslice-controller.k8s.io';
const ZONE_LABEL = 'topology.kubernetes.io/zone';

/** Labels the slice controllers set themselves; a Service's own are not copied over them. */
export function isReservedLabel(key: string): boolean {
  return key === SERVICE_NAME_LABEL || key === MANAGED_BY_LABEL || key === HEADLESS_LABEL;
}

/** The address types of a Service: of its IP families, else of its cluster IP, else (headless) both. */
export function addressTypesOf(service: JsonObject): string[] {
  const spec = specOf(service);
  const families = Array.isArray(spec['ipFamilies']) ? spec['ipFamilies'] : [];
  const types = [...new Set(families.filter((f): f is string => f === 'IPv4' || f === 'IPv6'))];
  if (types.length) return types;
  if (isServiceIpSet(service)) return [isIpv6(String(spec['clusterIP'])) ? 'IPv6' : 'IPv4'];
  return ['IPv4', 'IPv6'];
}

/** The ports a pod offers for the Service (a port the pod lacks is left out). */
function endpointPorts(service: JsonObject, pod: JsonObject): JsonObject[] {
  const out: JsonObject[] = [];
  for (const servicePort of servicePorts(service)) {
    const port = findPort(pod, servicePort);
    if (port === undefined) continue;
    const p: JsonObject = { name: servicePort['name'] ?? '', protocol: servicePort['protocol'] ?? 'TCP', port };
    if (servicePort['appProtocol'] !== undefined) p['appProtocol'] = servicePort['appProtocol'];
    out.push(p);
  }
  return out;
}

function podEndpoint(pod: JsonObject, service: JsonObject, addressType: string, zoneOf: (node: string) => string | undefined): JsonObject {
  const serving = isPodReady(pod);
  const terminating = Boolean(metadataOf(pod)['deletionTimestamp']);
  // A terminating pod is never ready, unless the Service publishes pods not ready.
  const ready = specOf(service)['publishNotReadyAddresses'] === true || (serving && !terminating);
  const endpoint: JsonObject = {
    addresses: podIps(pod).filter((ip) => isIpv6(ip) === (addressType === 'IPv6')),
    conditions: { ready, serving, terminating },
  };
  if (shouldSetHostname(pod, service)) endpoint['hostname'] = specOf(pod)['hostname'];
  endpoint['targetRef'] = podReference(pod);
  const node = specOf(pod)['nodeName'];
  if (typeof node === 'string' && node) {
    endpoint['nodeName'] = node;
    const zone = zoneOf(node);
    if (zone) endpoint['zone'] = zone;
  }
  return endpoint;
}

/** The slices' content a Service wants: per address type, endpoints grouped by their ports. */
export function desiredGroups(service: JsonObject, pods: JsonObject[], addressTypes: string[], zoneOf: (node: string) => string | undefined = () => undefined): DesiredGroup[] {
  const groups = new Map<string, DesiredGroup>();
  for (const pod of pods) {
    if (!shouldPodBeInEndpoints(pod, true)) continue;
    const ports = endpointPorts(service, pod);
    for (const addressType of addressTypes) {
      const endpoint = podEndpoint(pod, service, addressType, zoneOf);
      if ((endpoint['addresses'] as string[]).length === 0) continue;
      const key = `${addressType}\u0000${JSON.stringify(ports)}`;
      let group = groups.get(key);
      if (!group) groups.set(key, (group = { addressType, ports, endpoints: [] }));
      group.endpoints.push(endpoint);
    }
  }
  return [...groups.values()];
}

/** The labels of a Service's slices: its own (but the reserved ones), the headless mark, the service name and manager. */
export function sliceLabels(service: JsonObject, managedBy: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(labelsOf(service))) if (!isReservedLabel(k)) labels[k] = v;
  if (!isServiceIpSet(service)) labels[HEADLESS_LABEL] = '';
  labels[SERVICE_NAME_LABEL] = String(metadataOf(service)['name']);
  labels[MANAGED_BY_LABEL] = managedBy;
  return labels;
}

export class EndpointSliceController {
  private readonly writer = controllerWriter('endpointslice-controller');
  private readonly events: EventRecorder;
  private readonly tracker = new TriggerTimeTracker();
  private readonly expectations = new SliceExpectations();
  private readonly queue: WorkQueue;
  private readonly follower: ServicePodFollower;
  private readonly subscriptions: Subscription[] = [];
  private slices!: Informer;
  private nodes: Informer | undefined;
  private readonly sliceInfo: ResourceInfo | undefined;

  constructor(private readonly registry: Registry) {
    this.events = new EventRecorder(registry, 'endpoint-slice-controller', this.writer);
    this.queue = new WorkQueue((key) => this.sync(key), { onError: (key, err) => console.error(`endpointslice controller: ${key}:`, err) });
    this.follower = new ServicePodFollower(registry, (key) => this.queue.add(key));
    this.sliceInfo = registry.definitions.lookup('discovery.k8s.io', 'v1', 'endpointslices');
  }

  async start(): Promise<void> {
    if (!this.sliceInfo) return;
    this.slices = await this.registry.informer(this.sliceInfo);
    const nodeInfo = this.registry.definitions.lookup('', 'v1', 'nodes');
    if (nodeInfo) this.nodes = await this.registry.informer(nodeInfo);
    await this.follower.start();
    // A managed slice changed or removed by someone else is put back.
    const sliceChanged = (o: ObjectVersion) => {
      const labels = labelsOf(o.object);
      if (labels[MANAGED_BY_LABEL] === MANAGED_BY && labels[SERVICE_NAME_LABEL]) this.follower.add(keyOf(o.namespace, labels[SERVICE_NAME_LABEL]));
    };
    this.subscriptions.push(this.slices.subscribe({ updated: sliceChanged, deleted: sliceChanged }, { replay: false }));
  }

  stop(): void {
    this.follower.stop();
    for (const s of this.subscriptions) s.stop();
    this.queue.stop();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  private zoneOf = (node: string): string | undefined => {
    const obj = this.nodes?.get(undefined, node);
    return obj ? labelsOf(obj)[ZONE_LABEL] || undefined : undefined;
  };

  private async sync(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const ns = namespace!;
    const service = this.follower.services.get(ns, name);
    if (!service) {
      this.tracker.forget(key);
      this.expectations.forget(key);
      return;
    }
    if (specOf(service)['type'] === 'ExternalName') return;
    const selector = serviceSelector(service);
    if (!selector) return;
    if (!this.expectations.satisfied(key, ns, this.slices)) {
      // The informer has not seen the previous sync's writes yet.
      this.queue.addAfter(key, 20);
      return;
    }
    const pods = this.follower.selectedPods(service, selector);
    const triggerTime = this.tracker.compute(key, service, pods);
    const addressTypes = addressTypesOf(service);
    const labels = sliceLabels(service, MANAGED_BY);
    const uid = metadataOf(service)['uid'];
    const mine = this.slices.list(ns).filter((s) => {
      const l = labelsOf(s);
      return l[SERVICE_NAME_LABEL] === name && l[MANAGED_BY_LABEL] === MANAGED_BY && !metadataOf(s)['deletionTimestamp'];
    });
    const owned = (s: JsonObject) => Array.isArray(metadataOf(s)['ownerReferences'])
      && (metadataOf(s)['ownerReferences'] as JsonObject[]).some((r) => r['uid'] === uid && r['kind'] === 'Service');
    const current = mine.filter((s) => owned(s) && addressTypes.includes(String(s['addressType'])));
    const stale = mine.filter((s) => !current.includes(s)).map((s) => String(metadataOf(s)['name']));
    const labelsChanged = (s: JsonObject) => !jsonEqual(labelsOf(s), labels);
    const plan = planSlices(current, desiredGroups(service, pods, addressTypes, this.zoneOf), labelsChanged);
    plan.delete.push(...stale);
    this.addPlaceholders(plan, current, addressTypes, labelsChanged);
    reuseDeleted(plan, mine);
    if (plan.create.length === 0 && plan.update.length === 0 && plan.delete.length === 0) return;

    const annotate = (annotations: Record<string, unknown>) => {
      if (triggerTime) annotations[TRIGGER_TIME_ANNOTATION] = formatTriggerTime(triggerTime);
      else delete annotations[TRIGGER_TIME_ANNOTATION];
      return annotations;
    };
    try {
      await this.expectations.apply(this.registry, this.sliceInfo!, this.writer, key, ns, plan, {
        create: (write) => {
          const annotations = annotate({});
          const metadata: JsonObject = { generateName: `${name}-`, namespace: ns, labels };
          if (Object.keys(annotations).length) metadata['annotations'] = annotations;
          metadata['ownerReferences'] = [controllerReference({ ...service, apiVersion: 'v1', kind: 'Service' })];
          return { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata, addressType: write.addressType, ...sliceContent(write) };
        },
        metadata: (cur) => {
          const annotations = annotate({ ...((cur['annotations'] ?? {}) as JsonObject) });
          const meta: JsonObject = { ...cur, labels, annotations };
          if (Object.keys(annotations).length === 0) delete meta['annotations'];
          return meta;
        },
      });
    } catch (err) {
      // A namespace being deleted refuses new slices: nothing to retry.
      if (isNamespaceTerminating(err)) return;
      // A slice gone meanwhile: the next sync sees it.
      if (err instanceof StatusError && err.code === 404) throw err;
      this.events.record(service, 'Warning', 'FailedToUpdateEndpointSlices', `Error updating Endpoint Slices for Service ${ns}/${name}: ${err instanceof Error ? err.message : String(err)}`);
      throw err;
    }
  }

  /** An address type left with no slice gets an empty one (an empty one about to go is kept instead). */
  private addPlaceholders(plan: SlicePlan, current: JsonObject[], addressTypes: string[], labelsChanged: (s: JsonObject) => boolean): void {
    const typeOf = new Map(current.map((s) => [String(metadataOf(s)['name']), String(s['addressType'])]));
    for (const addressType of addressTypes) {
      const remains = plan.kept.some((s) => s['addressType'] === addressType) || plan.update.some((u) => u.addressType === addressType)
        || plan.create.some((c) => c.addressType === addressType);
      if (remains) continue;
      const deleting = plan.delete.filter((n) => typeOf.get(n) === addressType);
      const only = deleting.length === 1 ? current.find((s) => metadataOf(s)['name'] === deleting[0]) : undefined;
      if (only && !labelsChanged(only) && !(Array.isArray(only['endpoints']) && only['endpoints'].length) && !(Array.isArray(only['ports']) && only['ports'].length)) {
        plan.delete.splice(plan.delete.indexOf(deleting[0]!), 1);
        plan.kept.push(only);
      } else plan.create.push({ addressType, ports: [], endpoints: [] });
    }
  }
}
