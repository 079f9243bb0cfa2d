// The scale subresource (autoscaling/v1 Scale) of deployments, replicasets, statefulsets and
// replicationcontrollers: a view of spec.replicas, status.replicas and the selector.
import { formatLabelSelector, formatLabels } from '../api/printers/format.js';
import { badRequest, fieldInvalid, invalid } from '../errors.js';
import { metadataOf } from './objects.js';
import { type JsonObject, isObject, copyJson } from '../json.js';

function selectorOf(obj: JsonObject, resource: string): string {
  const spec = isObject(obj['spec']) ? obj['spec'] : {};
  // ReplicationControllers select with a plain map; the apps kinds with a LabelSelector.
  if (resource === 'replicationcontrollers') return formatLabels(spec['selector']).replace(/^<none>$/, '');
  return formatLabelSelector(spec['selector']).replace(/^<none>$/, '');
}

export function toScale(obj: JsonObject, resource: string): JsonObject {
  const meta = metadataOf(obj);
  const spec = isObject(obj['spec']) ? obj['spec'] : {};
  const status = isObject(obj['status']) ? obj['status'] : {};
  const scaleMeta: JsonObject = {};
  for (const k of ['name', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp']) if (meta[k] !== undefined) scaleMeta[k] = meta[k];
  const scaleStatus: JsonObject = { replicas: typeof status['replicas'] === 'number' ? status['replicas'] : 0 };
  const selector = selectorOf(obj, resource);
  if (selector) scaleStatus['selector'] = selector;
  // autoscaling/v1 ScaleSpec.replicas is omitempty: zero replicas is `spec: {}`.
  const replicas = typeof spec['replicas'] === 'number' ? spec['replicas'] : 0;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: scaleMeta,
    spec: replicas === 0 ? {} : { replicas },
    status: scaleStatus,
  };
}

/**
 * What a GET of a missing object's scale names as not found: the reference's scale endpoints say
 * `{resource}/scale` in the apps group, `replicationcontrollers/scale` in autoscaling; others (custom
 * resources) the resource itself.
 */
export function scaleNotFoundResource(info: { group: string; resource: string }): { group: string; resource: string } {
  if (info.group === 'apps') return { group: 'apps', resource: `${info.resource}/scale` };
  if (info.group === '' && info.resource === 'replicationcontrollers') return { group: 'autoscaling', resource: 'replicationcontrollers/scale' };
  return info;
}

/**
 * The parent with the replicas a Scale asks for (422 for a negative or non-integer count);
 * `withReplicas` writes them where the resource keeps them (spec.replicas when absent).
 */
export function applyScale(parent: JsonObject, scale: unknown, withReplicas?: (obj: JsonObject, replicas: number) => JsonObject): JsonObject {
  if (!isObject(scale)) throw badRequest('the body of a scale request must be a Scale object');
  const spec = isObject(scale['spec']) ? scale['spec'] : {};
  const replicas = spec['replicas'] ?? 0;
  const name = String(metadataOf(parent)['name'] ?? '');
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw invalid('Scale', 'autoscaling', name, [fieldInvalid('spec.replicas', replicas, 'must be greater than or equal to 0')]);
  }
  let next = copyJson(parent);
  if (withReplicas) next = withReplicas(next, replicas);
  else next['spec'] = { ...(isObject(next['spec']) ? next['spec'] : {}), replicas };
  const version = stringOrUndefined(metadataOf(scale)['resourceVersion']);
  if (version !== undefined) metadataOf(next)['resourceVersion'] = version;
  return next;
}

function stringOrUndefined(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}
