// Binding a pod to a node, as the scheduler does: pods/{name}/binding, and the bindings collection
// (where the Binding names the pod). Nothing of the Binding is stored: the pod is.
import { badRequest, conflict, fieldNotSupported, fieldRequired, invalid } from '../../errors.js';
import { type JsonObject, isObject, now } from '../../json.js';
import type { CreateHook, ResourceInfo } from '../definitions.js';
import { metadataOf, objectField, stringField } from '../objects.js';
import type { Registry, WriteContext, WriteResult } from '../store.js';
import { successStatus } from './success-status.js';

/**
 * Assigns an unscheduled pod to the binding's node: spec.nodeName, the binding's annotations, and a
 * PodScheduled condition; 409 when the pod is terminating or already bound.
 */
async function bindPod(registry: Registry, pods: ResourceInfo, namespace: string, podName: string, binding: JsonObject, ctx: WriteContext): Promise<WriteResult> {
  const target = objectField(binding, 'target');
  const nodeName = stringField(target, 'name') ?? '';
  if (!nodeName) throw invalid('Binding', '', podName, [fieldRequired('target.name')]);
  const kind = stringField(target, 'kind');
  if (kind !== undefined && kind !== '' && kind !== 'Node') throw invalid('Binding', '', podName, [fieldNotSupported('target.kind', kind, ['Node', ''])]);
  const annotations = metadataOf(binding)['annotations'];
  await registry.patch(pods, namespace, podName, (current) => {
    const meta = metadataOf(current);
    if (meta['deletionTimestamp']) throw conflict({ group: '', resource: 'pods/binding' }, podName, `pod ${podName} is being deleted, cannot be assigned to a host`);
    const spec = objectField(current, 'spec');
    if (spec['nodeName']) throw conflict({ group: '', resource: 'pods/binding' }, podName, `pod ${podName} is already assigned to node "${String(spec['nodeName'])}"`);
    spec['nodeName'] = nodeName;
    current['spec'] = spec;
    if (isObject(annotations)) meta['annotations'] = { ...(isObject(meta['annotations']) ? meta['annotations'] : {}), ...annotations };
    const status = objectField(current, 'status');
    const conditions = Array.isArray(status['conditions']) ? (status['conditions'] as JsonObject[]).filter((c) => c['type'] !== 'PodScheduled') : [];
    conditions.push({ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: now() });
    status['conditions'] = conditions;
    current['status'] = status;
    return current;
  }, 'binding', { ...ctx, applied: false });
  return { status: 201, body: successStatus(201) };
}

/** pods/{name}/binding: the Binding may repeat the pod's name, never name another. */
export const bindThisPod: CreateHook = (registry, { info, namespace, name, body, writer }) => {
  const bodyName = metadataOf(body)['name'];
  if (bodyName !== undefined && bodyName !== name) throw badRequest(`name in URL does not match name in Binding object`);
  return bindPod(registry, info, namespace!, name!, body, writer);
};

/** The bindings collection: the Binding names the pod. */
export const bindNamedPod: CreateHook = (registry, { namespace, body, writer }) =>
  bindPod(registry, registry.definitions.lookup('', 'v1', 'pods')!, namespace!, String(metadataOf(body)['name'] ?? ''), body, writer);
