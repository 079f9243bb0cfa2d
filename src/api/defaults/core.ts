// Defaults of the core group (v1).
import { ensureObject, entriesOf, noEntries, objectAt, objectsAt, setIfEmpty, setIfNil, type Obj } from './fields.js';
import { defaultPodTemplateAt } from './pod.js';
import { defaultSharedSources } from './volumes.js';
import { isObject, copyJson } from '../../json.js';

/** Seconds of ClientIP session affinity when none are given (3 hours). */
const CLIENT_IP_AFFINITY_SECONDS = 10800;

function defaultServiceSpec(spec: Obj): void {
  setIfEmpty(spec, 'sessionAffinity', 'None');
  if (spec['sessionAffinity'] === 'None') delete spec['sessionAffinityConfig'];
  if (spec['sessionAffinity'] === 'ClientIP') {
    const config = spec['sessionAffinityConfig'];
    const clientIP = isObject(config) ? config['clientIP'] : undefined;
    const missing = config === undefined || config === null || (isObject(config) && (!isObject(clientIP) || clientIP['timeoutSeconds'] === undefined || clientIP['timeoutSeconds'] === null));
    if (missing) spec['sessionAffinityConfig'] = { clientIP: { timeoutSeconds: CLIENT_IP_AFFINITY_SECONDS } };
  }
  setIfEmpty(spec, 'type', 'ClusterIP');
  for (const port of objectsAt(spec, 'ports')) {
    setIfEmpty(port, 'protocol', 'TCP');
    const target = port['targetPort'];
    if ((target === undefined || target === null || target === 0 || target === '') && typeof port['port'] === 'number') port['targetPort'] = port['port'];
  }
  const type = spec['type'];
  if (type === 'NodePort' || type === 'LoadBalancer') setIfEmpty(spec, 'externalTrafficPolicy', 'Cluster');
  if (type === 'ClusterIP' || type === 'NodePort' || type === 'LoadBalancer') setIfNil(spec, 'internalTrafficPolicy', 'Cluster');
  if (type === 'LoadBalancer') setIfNil(spec, 'allocateLoadBalancerNodePorts', true);
}

export function defaultService(service: Obj): void {
  const spec = ensureObject(service, 'spec');
  if (spec) defaultServiceSpec(spec);
  const status = ensureObject(service, 'status');
  if (status) setIfNil(status, 'loadBalancer', {});
}

/** Selector and labels come from the template's labels when empty; one replica. */
export function defaultReplicationController(rc: Obj): void {
  const spec = ensureObject(rc, 'spec');
  if (spec) {
    const template = objectAt(spec, 'template');
    const templateMeta = template && objectAt(template, 'metadata');
    const labels = templateMeta && entriesOf(templateMeta['labels']);
    if (labels) {
      if (noEntries(spec['selector'])) spec['selector'] = labels;
      const meta = ensureObject(rc, 'metadata');
      if (meta && noEntries(meta['labels'])) meta['labels'] = copyJson(labels);
    }
    setIfNil(spec, 'replicas', 1);
    defaultPodTemplateAt(spec, 'template', false);
  }
  const status = ensureObject(rc, 'status');
  if (status) setIfNil(status, 'replicas', 0);
}

export function defaultPersistentVolume(pv: Obj): void {
  const spec = ensureObject(pv, 'spec');
  if (spec) {
    setIfEmpty(spec, 'persistentVolumeReclaimPolicy', 'Retain');
    setIfNil(spec, 'volumeMode', 'Filesystem');
    defaultSharedSources(spec);
  }
  const status = ensureObject(pv, 'status');
  if (status) setIfEmpty(status, 'phase', 'Pending');
}

export function defaultEndpoints(endpoints: Obj): void {
  for (const subset of objectsAt(endpoints, 'subsets')) {
    for (const port of objectsAt(subset, 'ports')) setIfEmpty(port, 'protocol', 'TCP');
  }
}

/** A Container limit item: default limits from max, default requests from the limits, then min. */
function defaultLimitRangeItem(item: Obj): void {
  if (item['type'] !== 'Container') return;
  const fill = (key: string, ...sources: string[]): void => {
    const current = item[key];
    if (current !== undefined && current !== null && !isObject(current)) return;
    const target: Obj = isObject(current) ? current : {};
    for (const source of sources) {
      const from = objectAt(item, source);
      if (from) for (const [name, quantity] of Object.entries(from)) if (!(name in target)) target[name] = quantity;
    }
    if (Object.keys(target).length > 0) item[key] = target;
  };
  fill('default', 'max');
  fill('defaultRequest', 'default', 'min');
}

export function defaultLimitRange(limitRange: Obj): void {
  const spec = ensureObject(limitRange, 'spec');
  if (spec) for (const item of objectsAt(spec, 'limits')) defaultLimitRangeItem(item);
}

/** Allocatable defaults to capacity; daemonEndpoints and nodeInfo are struct values. */
export function defaultNode(node: Obj): void {
  ensureObject(node, 'spec');
  const status = ensureObject(node, 'status');
  if (!status) return;
  const capacity = entriesOf(status['capacity']);
  if (capacity) setIfNil(status, 'allocatable', capacity);
  const daemonEndpoints = ensureObject(status, 'daemonEndpoints');
  const kubelet = daemonEndpoints && ensureObject(daemonEndpoints, 'kubeletEndpoint');
  if (kubelet) setIfNil(kubelet, 'Port', 0);
  const nodeInfo = ensureObject(status, 'nodeInfo');
  if (nodeInfo) {
    for (const key of ['machineID', 'systemUUID', 'bootID', 'kernelVersion', 'osImage', 'containerRuntimeVersion', 'kubeletVersion', 'kubeProxyVersion', 'operatingSystem', 'architecture']) {
      setIfNil(nodeInfo, key, '');
    }
  }
}

/** Fields of Event written even when zero (times as null). */
export function defaultCoreEvent(event: Obj): void {
  setIfNil(event, 'involvedObject', {});
  setIfNil(event, 'source', {});
  for (const key of ['firstTimestamp', 'lastTimestamp', 'eventTime']) setIfNil(event, key, null);
  setIfNil(event, 'reportingComponent', '');
  setIfNil(event, 'reportingInstance', '');
}

export const defaultPodTemplateObject = (podTemplate: Obj): void => defaultPodTemplateAt(podTemplate, 'template', true);

export const defaultSecret = (secret: Obj): void => setIfEmpty(secret, 'type', 'Opaque');

export function defaultNamespace(namespace: Obj): void {
  ensureObject(namespace, 'spec');
  const status = ensureObject(namespace, 'status');
  if (status) setIfEmpty(status, 'phase', 'Active');
}

/** A struct value, written {} when empty. */
export function defaultResourceQuota(quota: Obj): void {
  ensureObject(quota, 'spec');
}
