// Objects of versions kube-apiserver no longer serves (removed in 1.16–1.25) moved to the version
// that replaced them, field by field as the reference converted them through its internal types.
// Most kept their shape and only change apiVersion; the others:
// - Ingress (extensions/v1beta1, networking.k8s.io/v1beta1): `backend` is `defaultBackend`, a
//   backend's serviceName/servicePort is service.name and port.number or port.name, a path with
//   no pathType gets ImplementationSpecific (the old versions' default);
// - Deployment, DaemonSet, ReplicaSet (extensions/v1beta1, apps/v1beta1, apps/v1beta2):
//   rollbackTo and templateGeneration go; a missing selector is the template's labels (the old
//   versions' default; apps/v1 requires one);
// - HorizontalPodAutoscaler autoscaling/v2beta1: its metrics in v2's shape;
// - EndpointSlice discovery.k8s.io/v1beta1: topology's zone is `zone`, the rest deprecatedTopology
//   (its hostname dropped when it is the nodeName);
// - CertificateSigningRequest certificates.k8s.io/v1beta1: no signerName is
//   kubernetes.io/legacy-unknown;
// - CustomResourceDefinition apiextensions.k8s.io/v1beta1: the CRD-wide version, schema,
//   subresources and printer columns go to each version.
// PodSecurityPolicy went in 1.25 with no replacement.
import { isObject, type JsonObject, copyJson } from '../../json.js';
import { metricSpecToV2, metricStatusToV2 } from './autoscaling.js';

type Converter = (obj: JsonObject) => JsonObject;

interface Replacement {
  apiVersion: string;
  convert?: Converter;
}

const obj = (v: unknown): JsonObject | undefined => (isObject(v) ? v : undefined);

function ingressBackend(b: unknown): unknown {
  const backend = obj(b);
  if (!backend) return b;
  const { serviceName, servicePort, ...rest } = backend;
  if (serviceName === undefined && servicePort === undefined) return rest;
  const port = typeof servicePort === 'number' ? { number: servicePort } : typeof servicePort === 'string' ? (/^\d+$/.test(servicePort) ? { number: Number(servicePort) } : { name: servicePort }) : undefined;
  return { ...rest, service: { name: serviceName ?? '', ...(port ? { port } : {}) } };
}

const ingress: Converter = (o) => {
  const out = copyJson(o);
  const spec = obj(out['spec']);
  if (spec) {
    if ('backend' in spec) {
      spec['defaultBackend'] = ingressBackend(spec['backend']);
      delete spec['backend'];
    }
    for (const rule of Array.isArray(spec['rules']) ? spec['rules'] : []) {
      const paths = obj(obj(rule)?.['http'])?.['paths'];
      for (const p of Array.isArray(paths) ? paths.filter(isObject) : []) {
        p['pathType'] ??= 'ImplementationSpecific';
        if ('backend' in p) p['backend'] = ingressBackend(p['backend']);
      }
    }
  }
  return out;
};

const workload: Converter = (o) => {
  const out = copyJson(o);
  const spec = obj(out['spec']);
  if (spec) {
    delete spec['rollbackTo'];
    delete spec['templateGeneration'];
    const labels = obj(obj(obj(spec['template'])?.['metadata'])?.['labels']);
    if (spec['selector'] === undefined && labels) spec['selector'] = { matchLabels: { ...labels } };
  }
  return out;
};

const hpaV2beta1: Converter = (o) => {
  const out = copyJson(o);
  const spec = obj(out['spec']);
  if (spec && Array.isArray(spec['metrics'])) spec['metrics'] = spec['metrics'].filter(isObject).map(metricSpecToV2);
  const status = obj(out['status']);
  if (status && Array.isArray(status['currentMetrics'])) status['currentMetrics'] = status['currentMetrics'].filter(isObject).map(metricStatusToV2);
  return out;
};

const ZONE = 'topology.kubernetes.io/zone';
const HOSTNAME = 'kubernetes.io/hostname';

const endpointSlice: Converter = (o) => {
  const out = copyJson(o);
  for (const e of Array.isArray(out['endpoints']) ? out['endpoints'].filter(isObject) : []) {
    const topology = obj(e['topology']);
    delete e['topology'];
    if (!topology) continue;
    const rest = { ...topology };
    if (typeof rest[ZONE] === 'string') {
      e['zone'] = rest[ZONE];
      delete rest[ZONE];
    }
    if (rest[HOSTNAME] !== undefined && rest[HOSTNAME] === e['nodeName']) delete rest[HOSTNAME];
    if (Object.keys(rest).length) e['deprecatedTopology'] = rest;
  }
  return out;
};

const csr: Converter = (o) => {
  const out = copyJson(o);
  const spec = obj(out['spec']);
  if (spec) spec['signerName'] ??= 'kubernetes.io/legacy-unknown';
  return out;
};

const crd: Converter = (o) => {
  const out = copyJson(o);
  const spec = obj(out['spec']);
  if (!spec) return out;
  const versions = Array.isArray(spec['versions']) && spec['versions'].length
    ? spec['versions'].filter(isObject)
    : [{ name: spec['version'], served: true, storage: true }];
  const columns = Array.isArray(spec['additionalPrinterColumns'])
    ? spec['additionalPrinterColumns'].filter(isObject).map(({ JSONPath, ...c }) => ({ ...c, jsonPath: JSONPath }))
    : undefined;
  spec['versions'] = versions.map((v) => {
    const version: JsonObject = { ...v };
    const schema = v['schema'] ?? (spec['validation'] !== undefined ? spec['validation'] : undefined);
    if (schema !== undefined) version['schema'] = schema;
    if (v['subresources'] === undefined && spec['subresources'] !== undefined) version['subresources'] = spec['subresources'];
    const own = Array.isArray(v['additionalPrinterColumns']) ? v['additionalPrinterColumns'].filter(isObject).map(({ JSONPath, ...c }) => ({ ...c, jsonPath: JSONPath })) : columns;
    if (own) version['additionalPrinterColumns'] = own;
    return version;
  });
  for (const k of ['version', 'validation', 'subresources', 'additionalPrinterColumns']) delete spec[k];
  return out;
};

const same = (apiVersion: string): Replacement => ({ apiVersion });
/** The workloads of extensions/v1beta1, apps/v1beta1 and apps/v1beta2 became apps/v1's. */
const TO_APPS: Replacement = { apiVersion: 'apps/v1', convert: workload };

/** `apiVersion/Kind` of a removed version → what replaced it. */
const REPLACEMENTS: Record<string, Replacement> = {
  'extensions/v1beta1/Deployment': TO_APPS,
  'extensions/v1beta1/DaemonSet': TO_APPS,
  'extensions/v1beta1/ReplicaSet': TO_APPS,
  'extensions/v1beta1/Ingress': { apiVersion: 'networking.k8s.io/v1', convert: ingress },
  'extensions/v1beta1/NetworkPolicy': same('networking.k8s.io/v1'),
  'apps/v1beta1/Deployment': TO_APPS,
  'apps/v1beta1/StatefulSet': TO_APPS,
  'apps/v1beta1/ControllerRevision': same('apps/v1'),
  'apps/v1beta2/Deployment': TO_APPS,
  'apps/v1beta2/DaemonSet': TO_APPS,
  'apps/v1beta2/ReplicaSet': TO_APPS,
  'apps/v1beta2/StatefulSet': TO_APPS,
  'apps/v1beta2/ControllerRevision': same('apps/v1'),
  'networking.k8s.io/v1beta1/Ingress': { apiVersion: 'networking.k8s.io/v1', convert: ingress },
  'networking.k8s.io/v1beta1/IngressClass': same('networking.k8s.io/v1'),
  'batch/v1beta1/CronJob': same('batch/v1'),
  'policy/v1beta1/PodDisruptionBudget': same('policy/v1'),
  'autoscaling/v2beta1/HorizontalPodAutoscaler': { apiVersion: 'autoscaling/v2', convert: hpaV2beta1 },
  'discovery.k8s.io/v1beta1/EndpointSlice': { apiVersion: 'discovery.k8s.io/v1', convert: endpointSlice },
  'events.k8s.io/v1beta1/Event': same('events.k8s.io/v1'),
  'node.k8s.io/v1beta1/RuntimeClass': same('node.k8s.io/v1'),
  'rbac.authorization.k8s.io/v1beta1/Role': same('rbac.authorization.k8s.io/v1'),
  'rbac.authorization.k8s.io/v1beta1/RoleBinding': same('rbac.authorization.k8s.io/v1'),
  'rbac.authorization.k8s.io/v1beta1/ClusterRole': same('rbac.authorization.k8s.io/v1'),
  'rbac.authorization.k8s.io/v1beta1/ClusterRoleBinding': same('rbac.authorization.k8s.io/v1'),
  'scheduling.k8s.io/v1beta1/PriorityClass': same('scheduling.k8s.io/v1'),
  'coordination.k8s.io/v1beta1/Lease': same('coordination.k8s.io/v1'),
  'storage.k8s.io/v1beta1/StorageClass': same('storage.k8s.io/v1'),
  'storage.k8s.io/v1beta1/VolumeAttachment': same('storage.k8s.io/v1'),
  'storage.k8s.io/v1beta1/CSIDriver': same('storage.k8s.io/v1'),
  'storage.k8s.io/v1beta1/CSINode': same('storage.k8s.io/v1'),
  'admissionregistration.k8s.io/v1beta1/MutatingWebhookConfiguration': same('admissionregistration.k8s.io/v1'),
  'admissionregistration.k8s.io/v1beta1/ValidatingWebhookConfiguration': same('admissionregistration.k8s.io/v1'),
  'apiregistration.k8s.io/v1beta1/APIService': same('apiregistration.k8s.io/v1'),
  'certificates.k8s.io/v1beta1/CertificateSigningRequest': { apiVersion: 'certificates.k8s.io/v1', convert: csr },
  'apiextensions.k8s.io/v1beta1/CustomResourceDefinition': { apiVersion: 'apiextensions.k8s.io/v1', convert: crd },
};

/** Removed with nothing in its place. */
const GONE: Record<string, string> = {
  'extensions/v1beta1/PodSecurityPolicy': 'PodSecurityPolicy was removed in Kubernetes 1.25 with no replacement (Pod Security Admission took its place)',
  'policy/v1beta1/PodSecurityPolicy': 'PodSecurityPolicy was removed in Kubernetes 1.25 with no replacement (Pod Security Admission took its place)',
};

export class NoReplacement extends Error {}

/** The replacement of a removed apiVersion/kind, undefined when it was not removed; throws NoReplacement for one that has none. */
export function replacementOf(apiVersion: string, kind: string): Replacement | undefined {
  const key = `${apiVersion}/${kind}`;
  const gone = GONE[key];
  if (gone) throw new NoReplacement(gone);
  return REPLACEMENTS[key];
}

/** A removed version's object in the version that replaced it (apiVersion set); the object itself when its version was not removed. */
export function fromRemovedVersion(o: JsonObject): JsonObject {
  const replacement = replacementOf(String(o['apiVersion'] ?? ''), String(o['kind'] ?? ''));
  if (!replacement) return o;
  const out = replacement.convert ? replacement.convert(o) : copyJson(o);
  return { ...out, apiVersion: replacement.apiVersion };
}
