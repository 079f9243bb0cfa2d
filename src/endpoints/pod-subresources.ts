// Pod subresources that are not plain object writes: binding (the scheduler's), eviction (checked
// against PodDisruptionBudgets), and those a node agent serves (log, exec, attach, portforward,
// proxy) — answered as the reference answers when it cannot reach one, never with a fake success.
import { connect } from 'node:net';
import type { ResourceInfo } from '../registry/definitions.js';
import { selectsLabels } from '../api/label-selector-object.js';
import { badRequest, conflict, fieldNotSupported, fieldRequired, internalError, invalid, notFound, StatusError } from '../errors.js';
import { metadataOf, stringField } from '../registry/objects.js';
import { SYSTEM_WRITER, type DeleteOptions, type Registry, type WriteContext } from '../registry/store.js';
import { type JsonObject, isObject, now } from '../json.js';

type Answer = { status: number; body: Buffer };

const PODS = { group: '', resource: 'pods' };

function successStatus(code: number): Buffer {
  return Buffer.from(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code }));
}

async function podOf(registry: Registry, info: ResourceInfo, namespace: string, name: string): Promise<JsonObject> {
  const pod = await registry.getObject(info, namespace, name);
  if (!pod) throw notFound(PODS, name);
  return pod;
}

function specOf(obj: JsonObject): JsonObject {
  return isObject(obj['spec']) ? obj['spec'] : {};
}

function statusOf(obj: JsonObject): JsonObject {
  return isObject(obj['status']) ? obj['status'] : {};
}

// ---- binding ----

/**
 * pods/{name}/binding (and the bindings collection): assigns an unscheduled pod to a node, as the
 * scheduler does — spec.nodeName, the binding's annotations, and a PodScheduled condition.
 */
export async function bindPod(registry: Registry, info: ResourceInfo, namespace: string, podName: string, binding: JsonObject, ctx: WriteContext): Promise<Answer> {
  const target = isObject(binding['target']) ? binding['target'] : {};
  const nodeName = stringField(target, 'name') ?? '';
  if (!nodeName) throw invalid('Binding', '', podName, [fieldRequired('target.name')]);
  const kind = stringField(target, 'kind');
  if (kind !== undefined && kind !== '' && kind !== 'Node') throw invalid('Binding', '', podName, [fieldNotSupported('target.kind', kind, ['Node', ''])]);
  const annotations = metadataOf(binding)['annotations'];
  await registry.patch(info, namespace, podName, (current) => {
    const meta = metadataOf(current);
    if (meta['deletionTimestamp']) throw conflict({ group: '', resource: 'pods/binding' }, podName, `pod ${podName} is being deleted, cannot be assigned to a host`);
    const spec = specOf(current);
    if (spec['nodeName']) throw conflict({ group: '', resource: 'pods/binding' }, podName, `pod ${podName} is already assigned to node "${String(spec['nodeName'])}"`);
    spec['nodeName'] = nodeName;
    current['spec'] = spec;
    if (isObject(annotations)) meta['annotations'] = { ...(isObject(meta['annotations']) ? meta['annotations'] : {}), ...annotations };
    const status = statusOf(current);
    const conditions = Array.isArray(status['conditions']) ? (status['conditions'] as JsonObject[]).filter((c) => c['type'] !== 'PodScheduled') : [];
    conditions.push({ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: now() });
    status['conditions'] = conditions;
    current['status'] = status;
    return current;
  }, 'binding', { ...ctx, applied: false });
  return { status: 201, body: successStatus(201) };
}

// ---- eviction ----

/** The budgets that select a pod (policy/v1: an empty selector selects every pod). */
async function budgetsFor(registry: Registry, pod: JsonObject, namespace: string): Promise<JsonObject[]> {
  const pdbInfo = registry.definitions.lookup('policy', 'v1', 'poddisruptionbudgets');
  if (!pdbInfo) return [];
  const list = await registry.list(pdbInfo, namespace, { kind: 'current' });
  const labels = metadataOf(pod)['labels'] as Record<string, string> | undefined;
  return list.items.map((b) => JSON.parse(b.toString()) as JsonObject).filter((pdb) => {
    return selectsLabels(specOf(pdb)['selector'], labels);
  });
}

function tooManyRequests(message: string, cause?: string): StatusError {
  return new StatusError(429, 'TooManyRequests', message, cause ? { causes: [{ reason: 'DisruptionBudget', message: cause }] } : {});
}

/**
 * pods/{name}/eviction: deletes the pod unless a PodDisruptionBudget forbids it (429). Pods that
 * are not running (pending, finished, terminating) are deleted without consulting budgets.
 */
export async function evictPod(registry: Registry, info: ResourceInfo, namespace: string, podName: string, eviction: JsonObject, options: DeleteOptions): Promise<Answer> {
  const evictionName = stringField(metadataOf(eviction), 'name');
  if (evictionName !== undefined && evictionName !== podName) throw badRequest('name in URL does not match name in Eviction object');
  const deleteOptions = isObject(eviction['deleteOptions']) ? eviction['deleteOptions'] : {};
  const opts: DeleteOptions = { ...options };
  if (typeof deleteOptions['gracePeriodSeconds'] === 'number') opts.gracePeriodSeconds = deleteOptions['gracePeriodSeconds'];
  if (isObject(deleteOptions['preconditions'])) {
    const p = deleteOptions['preconditions'];
    opts.preconditions = { uid: stringField(p, 'uid'), resourceVersion: stringField(p, 'resourceVersion') };
  }
  if (Array.isArray(deleteOptions['dryRun']) && deleteOptions['dryRun'].includes('All')) opts.dryRun = true;
  const pod = await podOf(registry, info, namespace, podName);
  const phase = statusOf(pod)['phase'];
  const terminating = Boolean(metadataOf(pod)['deletionTimestamp']);
  if (phase === 'Running' && !terminating) await takeDisruption(registry, pod, namespace, podName, opts.dryRun ?? false);
  await registry.delete(info, namespace, podName, opts);
  return { status: 201, body: successStatus(201) };
}

/** Counts the eviction against the pod's budget, or refuses it as the reference does. */
async function takeDisruption(registry: Registry, pod: JsonObject, namespace: string, podName: string, dryRun: boolean): Promise<void> {
  const budgets = await budgetsFor(registry, pod, namespace);
  if (budgets.length === 0) return;
  if (budgets.length > 1) throw internalError('This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
  const pdb = budgets[0]!;
  const pdbName = String(metadataOf(pdb)['name']);
  const status = statusOf(pdb);
  const generation = Number(metadataOf(pdb)['generation'] ?? 0);
  if (Number(status['observedGeneration'] ?? 0) < generation) {
    throw tooManyRequests('Cannot evict pod as it would violate the pod\'s disruption budget.', `The disruption budget ${pdbName} is still being processed by the server.`);
  }
  const allowed = Number(status['disruptionsAllowed'] ?? 0);
  if (allowed < 0) throw new StatusError(403, 'Forbidden', 'pdb disruptions allowed is negative', {});
  if (allowed === 0) {
    throw tooManyRequests('Cannot evict pod as it would violate the pod\'s disruption budget.',
      `The disruption budget ${pdbName} needs ${Number(status['desiredHealthy'] ?? 0)} healthy pods and has ${Number(status['currentHealthy'] ?? 0)} currently`);
  }
  if (dryRun) return;
  const pdbInfo = registry.definitions.lookup('policy', 'v1', 'poddisruptionbudgets')!;
  // The budget's status records the disruption before the pod goes, so a racing eviction sees it.
  await registry.patch(pdbInfo, namespace, pdbName, (current) => {
    const s = statusOf(current);
    const left = Number(s['disruptionsAllowed'] ?? 0);
    if (left <= 0) throw tooManyRequests('Cannot evict pod as it would violate the pod\'s disruption budget.', `The disruption budget ${pdbName} needs ${Number(s['desiredHealthy'] ?? 0)} healthy pods and has ${Number(s['currentHealthy'] ?? 0)} currently`);
    s['disruptionsAllowed'] = left - 1;
    s['disruptedPods'] = { ...(isObject(s['disruptedPods']) ? s['disruptedPods'] : {}), [podName]: now() };
    current['status'] = s;
    return current;
  }, 'status', SYSTEM_WRITER);
}

// ---- node-agent subresources ----

/** A plain (non-API) error as the reference reports it: 500, the message alone, no reason. */
function unknownError(message: string): StatusError {
  return new StatusError(500, undefined, message);
}

/** The container a log/exec/attach request means: the one named, or the only one. */
function containerOf(pod: JsonObject, podName: string, requested: string | null): string {
  const spec = specOf(pod);
  const names = (key: string) => (Array.isArray(spec[key]) ? (spec[key] as JsonObject[]).map((c) => String(c['name'])) : []);
  const containers = names('containers');
  const init = names('initContainers');
  const ephemeral = names('ephemeralContainers');
  if (requested) {
    if (![...containers, ...init, ...ephemeral].includes(requested)) throw badRequest(`container ${requested} is not valid for pod ${podName}`);
    return requested;
  }
  if (containers.length === 1) return containers[0]!;
  let message = `a container name must be specified for pod ${podName}, choose one of: [${containers.join(' ')}]`;
  if (init.length) message += ` or one of the init containers: [${init.join(' ')}]`;
  throw badRequest(message);
}

/** The node agent's address of a node: its preferred address and kubelet port (as the reference picks them). */
async function kubeletOf(registry: Registry, nodeName: string): Promise<{ host: string; port: number }> {
  const nodes = registry.definitions.lookup('', 'v1', 'nodes')!;
  const node = await registry.getObject(nodes, undefined, nodeName);
  if (!node) throw notFound({ group: '', resource: 'nodes' }, nodeName);
  const status = statusOf(node);
  const addresses = Array.isArray(status['addresses']) ? (status['addresses'] as JsonObject[]) : [];
  for (const type of ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP']) {
    const found = addresses.find((a) => a['type'] === type && a['address']);
    if (found) {
      const endpoints = isObject(status['daemonEndpoints']) ? status['daemonEndpoints'] : {};
      const kubelet = isObject(endpoints['kubeletEndpoint']) ? endpoints['kubeletEndpoint'] : {};
      return { host: String(found['address']), port: typeof kubelet['Port'] === 'number' && kubelet['Port'] > 0 ? kubelet['Port'] : 10250 };
    }
  }
  const known = addresses.map((a) => `{${String(a['type'])} ${String(a['address'])}}`).join(' ');
  throw unknownError(`no preferred addresses found; known addresses: [${known}]`);
}

/** Tries the node agent's port; capstan does not proxy to node agents, so reaching one is still an error. */
function dialError(host: string, port: number, url: string): Promise<StatusError> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 5000 });
    const fail = (why: string) => {
      socket.destroy();
      resolve(unknownError(`Get "${url}": dial tcp ${host.includes(':') ? `[${host}]` : host}:${port}: ${why}`));
    };
    socket.once('connect', () => {
      socket.destroy();
      resolve(new StatusError(502, 'BadGateway', `the node agent at ${host}:${port} was reached, but this server does not stream from node agents`, {}));
    });
    socket.once('timeout', () => fail('i/o timeout'));
    socket.once('error', (err: NodeJS.ErrnoException) => fail(err.code === 'ECONNREFUSED' ? 'connect: connection refused' : err.message));
  });
}

/**
 * pods/{name}/log: an unscheduled pod has no logs yet (the reference answers an empty 200); a
 * scheduled one needs its node agent.
 */
export async function podLog(registry: Registry, info: ResourceInfo, namespace: string, podName: string, query: URLSearchParams): Promise<{ status: number; text: string }> {
  const pod = await podOf(registry, info, namespace, podName);
  const container = containerOf(pod, podName, query.get('container'));
  const nodeName = stringField(specOf(pod), 'nodeName');
  if (!nodeName) return { status: 200, text: '' };
  const kubelet = await kubeletOf(registry, nodeName);
  throw await dialError(kubelet.host, kubelet.port, `https://${kubelet.host}:${kubelet.port}/containerLogs/${namespace}/${podName}/${container}`);
}

/** pods/{name}/exec, attach and portforward: these stream from the node agent the pod runs on. */
export async function podStream(registry: Registry, info: ResourceInfo, namespace: string, podName: string, subresource: string, query: URLSearchParams): Promise<never> {
  const pod = await podOf(registry, info, namespace, podName);
  const container = subresource === 'portforward' ? '' : containerOf(pod, podName, query.get('container'));
  const nodeName = stringField(specOf(pod), 'nodeName');
  if (!nodeName) throw badRequest(`pod ${podName} does not have a host assigned`);
  const kubelet = await kubeletOf(registry, nodeName);
  const path = subresource === 'portforward' ? `portForward/${namespace}/${podName}` : `${subresource}/${namespace}/${podName}/${container}`;
  throw await dialError(kubelet.host, kubelet.port, `https://${kubelet.host}:${kubelet.port}/${path}`);
}

/** pods/{name}/proxy: needs the pod's IP (none until a node agent reports it). */
export async function podProxy(registry: Registry, info: ResourceInfo, namespace: string, podName: string): Promise<never> {
  const pod = await podOf(registry, info, namespace, podName);
  const ip = stringField(statusOf(pod), 'podIP');
  if (!ip) throw badRequest('address not allowed');
  const spec = specOf(pod);
  const first = (Array.isArray(spec['containers']) ? (spec['containers'] as JsonObject[]) : []).flatMap((c) => (Array.isArray(c['ports']) ? (c['ports'] as JsonObject[]) : []))[0];
  const port = typeof first?.['containerPort'] === 'number' ? first['containerPort'] : 80;
  const err = await dialError(ip, port, `http://${ip}:${port}/`);
  throw err.code === 502 ? err : new StatusError(503, 'ServiceUnavailable', `error trying to reach service: ${err.message.replace(/^Get "[^"]*": /, '')}`, {});
}

/** services/{name}/proxy: a service without ready endpoints cannot be reached. */
export async function serviceProxy(registry: Registry, namespace: string, serviceName: string): Promise<never> {
  const services = registry.definitions.lookup('', 'v1', 'services')!;
  const service = await registry.getObject(services, namespace, serviceName);
  if (!service) throw notFound({ group: '', resource: 'services' }, serviceName);
  const endpointsInfo = registry.definitions.lookup('', 'v1', 'endpoints')!;
  const endpoints = await registry.getObject(endpointsInfo, namespace, serviceName);
  const subsets = endpoints && Array.isArray(endpoints['subsets']) ? (endpoints['subsets'] as JsonObject[]) : [];
  const target = subsets.flatMap((s) => {
    const addresses = Array.isArray(s['addresses']) ? (s['addresses'] as JsonObject[]) : [];
    const ports = Array.isArray(s['ports']) ? (s['ports'] as JsonObject[]) : [];
    return addresses.length && ports.length ? [{ ip: String(addresses[0]!['ip']), port: Number(ports[0]!['port']) }] : [];
  })[0];
  if (!target) throw new StatusError(503, 'ServiceUnavailable', `no endpoints available for service "${serviceName}"`, {});
  const err = await dialError(target.ip, target.port, `http://${target.ip}:${target.port}/`);
  throw err.code === 502 ? err : new StatusError(503, 'ServiceUnavailable', `error trying to reach service: ${err.message.replace(/^Get "[^"]*": /, '')}`, {});
}

/** nodes/{name}/proxy: needs the node's agent. */
export async function nodeProxy(registry: Registry, nodeName: string): Promise<never> {
  const kubelet = await kubeletOf(registry, nodeName);
  const err = await dialError(kubelet.host, kubelet.port, `https://${kubelet.host}:${kubelet.port}/`);
  throw err.code === 502 ? err : new StatusError(503, 'ServiceUnavailable', `error trying to reach service: ${err.message.replace(/^Get "[^"]*": /, '')}`, {});
}
