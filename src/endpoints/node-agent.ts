// What a node agent serves — a pod's log, exec, attach, portforward and proxy, and the proxies to
// nodes and services — answered as the reference answers when it cannot reach one, never with a
// fake success (capstan runs no node agents and does not stream from them).
import { connect } from 'node:net';
import type { ResourceInfo } from '../registry/definitions.js';
import { badRequest, notFound, StatusError } from '../errors.js';
import { objectField, stringField } from '../registry/objects.js';
import type { Registry } from '../registry/store.js';
import type { JsonObject } from '../json.js';

const PODS = { group: '', resource: 'pods' };

async function podOf(registry: Registry, info: ResourceInfo, namespace: string, name: string): Promise<JsonObject> {
  const pod = await registry.getObject(info, namespace, name);
  if (!pod) throw notFound(PODS, name);
  return pod;
}

const specOf = (obj: JsonObject): JsonObject => objectField(obj, 'spec');
const statusOf = (obj: JsonObject): JsonObject => objectField(obj, 'status');

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
      const kubelet = objectField(objectField(status, 'daemonEndpoints'), 'kubeletEndpoint');
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
