// connect: the subresources a node agent serves — a pod's log, exec, attach, portforward and
// proxy — and the proxies to services and nodes. Each answers by the request's method, as the
// reference's connecters do; none is a plain object read or write.
import { methodNotAllowed } from '../../errors.js';
import type { ResourceInfo } from '../../registry/definitions.js';
import { nodeProxy, podLog, podProxy, podStream, serviceProxy } from '../node-agent.js';
import { checkPodConnectOptions } from '../options.js';
import type { Answer, Scope } from './scope.js';

/** Answers a connect request to `name`'s subresource (in the request's namespace). */
type Connecter = (scope: Scope, name: string, namespace: string) => Promise<Answer>;

/** log: read with GET (plain text); a POST streams, as exec does. */
const log: Connecter = async (scope, name, namespace) => {
  const { req, res, registry, info, query } = scope;
  if (req.method === 'POST') return podStream(registry, info, namespace, name, 'log', query);
  if (req.method !== 'GET') throw methodNotAllowed();
  const { status, text } = await podLog(registry, info, namespace, name, query);
  res.writeHead(status, { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
  return undefined;
};

/** exec, attach and portforward: streams opened with GET or POST. */
const stream: Connecter = async (scope, name, namespace) => {
  const { req, registry, info, request, query } = scope;
  if (req.method !== 'GET' && req.method !== 'POST') throw methodNotAllowed();
  return podStream(registry, info, namespace, name, request.subresource!, query);
};

/** By API group, resource and subresource ("core" for the core group). */
const CONNECTERS: Readonly<Record<string, Connecter>> = {
  'core/pods/log': log,
  'core/pods/exec': stream,
  'core/pods/attach': stream,
  'core/pods/portforward': stream,
  'core/pods/proxy': (scope, name, namespace) => podProxy(scope.registry, scope.info, namespace, name),
  'core/services/proxy': (scope, name, namespace) => serviceProxy(scope.registry, namespace, name),
  'core/nodes/proxy': (scope, name) => nodeProxy(scope.registry, name),
};

function connecterOf(info: ResourceInfo, subresource: string): Connecter | undefined {
  const key = `${info.group || 'core'}/${info.resource}/${subresource}`;
  return Object.hasOwn(CONNECTERS, key) ? CONNECTERS[key] : undefined;
}

/** Whether a subresource of `info` is a connect subresource (served whatever the method). */
export function isConnect(info: ResourceInfo, subresource: string): boolean {
  return connecterOf(info, subresource) !== undefined;
}

export async function handleConnect(scope: Scope): Promise<Answer> {
  const { info, request, query } = scope;
  const connecter = request.subresource === undefined ? undefined : connecterOf(info, request.subresource);
  if (!connecter || request.name === undefined) throw methodNotAllowed();
  if (info.group === '' && info.resource === 'pods') checkPodConnectOptions(request.subresource!, query);
  return connecter(scope, request.name, request.namespace ?? '');
}
