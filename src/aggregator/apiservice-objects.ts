// Reading and writing APIService objects: the shapes the controllers share.
import { isObject, rfc3339, type JsonObject } from '../json.js';
import type { ResourceInfo } from '../registry/definitions.js';
import type { Registry, WriteContext } from '../registry/store.js';
import { StatusError } from '../errors.js';

export const GROUP = 'apiregistration.k8s.io';
export const RESOURCE = 'apiservices';
/** The label the reference's autoregister controller puts on the APIServices it keeps. */
export const AUTOMANAGED_LABEL = 'kube-aggregator.kubernetes.io/automanaged';

/** The aggregator's writes are kube-apiserver's own. */
export const AGGREGATOR_WRITER: WriteContext = { manager: 'kube-apiserver' };

export interface ServiceRef {
  namespace: string;
  name: string;
  port: number;
}

/** The parts of an APIService the aggregator acts on. */
export interface APIServiceView {
  name: string;
  group: string;
  version: string;
  groupPriorityMinimum: number;
  versionPriority: number;
  /** Absent for a local APIService. */
  service?: ServiceRef;
  caBundle?: string;
  insecureSkipTLSVerify: boolean;
}

export function viewOf(obj: JsonObject): APIServiceView {
  const meta = isObject(obj.metadata) ? obj.metadata : {};
  const spec = isObject(obj.spec) ? obj.spec : {};
  const svc = isObject(spec.service) ? spec.service : undefined;
  return {
    name: String(meta.name ?? ''),
    group: typeof spec.group === 'string' ? spec.group : '',
    version: typeof spec.version === 'string' ? spec.version : '',
    groupPriorityMinimum: typeof spec.groupPriorityMinimum === 'number' ? spec.groupPriorityMinimum : 0,
    versionPriority: typeof spec.versionPriority === 'number' ? spec.versionPriority : 0,
    ...(svc ? { service: { namespace: String(svc.namespace ?? ''), name: String(svc.name ?? ''), port: typeof svc.port === 'number' ? svc.port : 443 } } : {}),
    ...(typeof spec.caBundle === 'string' && spec.caBundle !== '' ? { caBundle: spec.caBundle } : {}),
    insecureSkipTLSVerify: spec.insecureSkipTLSVerify === true,
  };
}

export interface AvailableCondition {
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
}

/** The Available condition an APIService carries now, if any. */
export function availableCondition(obj: JsonObject): JsonObject | undefined {
  const status = isObject(obj.status) ? obj.status : {};
  const conditions = Array.isArray(status.conditions) ? status.conditions : [];
  return conditions.find((c): c is JsonObject => isObject(c) && c.type === 'Available');
}

export function isAvailable(obj: JsonObject): boolean {
  return availableCondition(obj)?.status === 'True';
}

export function apiServiceInfo(registry: Registry): ResourceInfo | undefined {
  return registry.definitions.lookup(GROUP, 'v1', RESOURCE);
}

/**
 * Sets the Available condition through the status subresource when it differs; the transition
 * time moves only when the status does, as the reference's. A conflict (someone wrote meanwhile)
 * is left to the next check. True when it wrote.
 */
export async function setAvailable(registry: Registry, info: ResourceInfo, current: JsonObject, wanted: AvailableCondition): Promise<boolean> {
  const old = availableCondition(current);
  if (old && old.status === wanted.status && old.reason === wanted.reason && old.message === wanted.message) return false;
  const condition: JsonObject = {
    type: 'Available', status: wanted.status,
    lastTransitionTime: old && old.status === wanted.status && typeof old.lastTransitionTime === 'string' ? old.lastTransitionTime : rfc3339(new Date()),
    reason: wanted.reason, message: wanted.message,
  };
  const status = isObject(current.status) ? current.status : {};
  const others = (Array.isArray(status.conditions) ? status.conditions : []).filter((c) => !(isObject(c) && c.type === 'Available'));
  const name = String((current.metadata as JsonObject).name);
  try {
    await registry.update(info, undefined, name, { ...current, status: { ...status, conditions: [...others, condition] } }, 'status', AGGREGATOR_WRITER);
    return true;
  } catch (err) {
    if (err instanceof StatusError && (err.code === 409 || err.code === 404)) return false;
    throw err;
  }
}
