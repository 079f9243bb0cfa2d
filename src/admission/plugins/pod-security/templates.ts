// Where a workload keeps the pod it makes: the pod template's metadata and spec of each resource
// PodSecurity looks into (it warns and audits these; it enforces only on pods).
import { objectOf, type JsonObject } from '../support.js';

/** "group/resource" → the path to the pod template within the object. */
const TEMPLATE_PATHS = new Map<string, string[]>([
  ['/podtemplates', ['template']],
  ['/replicationcontrollers', ['spec', 'template']],
  ['apps/replicasets', ['spec', 'template']],
  ['apps/deployments', ['spec', 'template']],
  ['apps/statefulsets', ['spec', 'template']],
  ['apps/daemonsets', ['spec', 'template']],
  ['batch/jobs', ['spec', 'template']],
  ['batch/cronjobs', ['spec', 'jobTemplate', 'spec', 'template']],
]);

export function hasPodTemplate(group: string, resource: string): boolean {
  return TEMPLATE_PATHS.has(`${group}/${resource}`);
}

/** The template's metadata and spec, or undefined when the object has no template (an optional one). */
export function podTemplateOf(group: string, resource: string, obj: JsonObject): { metadata: JsonObject; spec: JsonObject } | undefined {
  let at: JsonObject | undefined = obj;
  for (const key of TEMPLATE_PATHS.get(`${group}/${resource}`) ?? []) at = objectOf(at?.[key]);
  if (!at) return undefined;
  return { metadata: objectOf(at['metadata']) ?? {}, spec: objectOf(at['spec']) ?? {} };
}
