// Per-resource facts the OpenAPI documents do not carry: how names are validated, whether
// metadata.generation is tracked, and what a delete answers with. Learned from the reference's
// recorded responses (../shared/reference/create) and its documented behaviour.
import type { NameRule } from './names.js';

export interface ResourcePolicy {
  nameRule: NameRule;
  tracksGeneration: boolean;
  returnsDeletedObject: boolean;
}

const PATH_SEGMENT_NAMES = new Set([
  'rbac.authorization.k8s.io/roles',
  'rbac.authorization.k8s.io/rolebindings',
  'rbac.authorization.k8s.io/clusterroles',
  'rbac.authorization.k8s.io/clusterrolebindings',
  'certificates.k8s.io/certificatesigningrequests',
  'flowcontrol.apiserver.k8s.io/flowschemas',
  'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations',
]);

// Resources whose create answer carries metadata.generation (see the create fixtures).
const GENERATION = new Set([
  'admissionregistration.k8s.io/mutatingwebhookconfigurations',
  'admissionregistration.k8s.io/validatingwebhookconfigurations',
  'apiextensions.k8s.io/customresourcedefinitions',
  'apps/daemonsets',
  'apps/deployments',
  'apps/replicasets',
  'apps/statefulsets',
  'batch/cronjobs',
  'batch/jobs',
  '/podtemplates',
  '/replicationcontrollers',
  'discovery.k8s.io/endpointslices',
  'flowcontrol.apiserver.k8s.io/flowschemas',
  'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations',
  'networking.k8s.io/ingressclasses',
  'networking.k8s.io/ingresses',
  'networking.k8s.io/networkpolicies',
  'policy/poddisruptionbudgets',
  'scheduling.k8s.io/priorityclasses',
]);

// Registries that answer a delete with the object rather than a Status.
const RETURNS_DELETED = new Set([
  '/pods',
  '/services',
  '/serviceaccounts',
  '/namespaces',
  'storage.k8s.io/storageclasses',
  'apiextensions.k8s.io/customresourcedefinitions',
]);

export function resourcePolicy(group: string, resource: string): ResourcePolicy {
  const id = `${group}/${resource}`;
  let nameRule: NameRule = 'subdomain';
  if (id === '/namespaces') nameRule = 'label';
  else if (id === '/services') nameRule = 'dns1035';
  else if (PATH_SEGMENT_NAMES.has(id)) nameRule = 'path';
  return { nameRule, tracksGeneration: GENERATION.has(id), returnsDeletedObject: RETURNS_DELETED.has(id) };
}
