// Validation of object contents per type (metadata is validated by ../names.ts): the reference's
// field errors, with its field paths and messages. Each group's rules live in their own module;
// this one picks them by group and kind.
import { fieldForbidden, type FieldError, fieldInvalid } from '../../errors.js';
import { validateWebhookConfiguration } from './admissionregistration.js';
import {
  validateControllerRevision, validateControllerRevisionUpdate, validateDaemonSet, validateDaemonSetUpdate, validateDeployment, validateDeploymentUpdate,
  validateReplicaSet, validateReplicaSetUpdate, validateStatefulSet, validateStatefulSetUpdate,
} from './apps.js';
import { validateHorizontalPodAutoscaler } from './autoscaling.js';
import { validateCronJob, validateCronJobUpdate, validateJob, validateJobUpdate } from './batch.js';
import { validateCertificateSigningRequest } from './certificates.js';
import { validateLease } from './coordination.js';
import { validateConfigMap, validateConfigMapUpdate, validateSecret, validateSecretUpdate } from './core-config.js';
import {
  validateCoreEvent, validateEndpoints, validateLimitRange, validateNamespace, validateNode, validateNodeUpdate, validatePodTemplate,
  validateReplicationController, validateResourceQuota,
} from './core-misc.js';
import { validatePodCreate } from './core-pod.js';
import { validatePodUpdate } from './core-pod-update.js';
import { validateService, validateServiceUpdate } from './core-service.js';
import { validatePV, validatePVC, validatePVCUpdate, validatePVUpdate } from './core-storage.js';
import { validateEndpointSlice, validateEndpointSliceUpdate } from './discovery.js';
import { validateEvent } from './events.js';
import { validateFlowSchema, validatePriorityLevelConfiguration } from './flowcontrol.js';
import { immutable, obj, type Obj } from './helpers.js';
import { validateIngress, validateIngressClass, validateIngressClassUpdate, validateNetworkPolicy } from './networking.js';
import { validateRuntimeClass, validateRuntimeClassUpdate } from './node.js';
import { validatePodDisruptionBudget } from './policy.js';
import { quantityDecodingError } from './quantity-decoding.js';
import { validateBinding, validateBindingUpdate, validateRole } from './rbac.js';
import { validatePriorityClass, validatePriorityClassUpdate } from './scheduling.js';
import { validateCSIDriver, validateCSIDriverUpdate, validateStorageClass, validateStorageClassUpdate, validateVolumeAttachment, validateVolumeAttachmentUpdate } from './storage.js';
import { type JsonObject } from '../../json.js';

export interface ValidationTarget {
  group: string;
  version: string;
  kind: string;
  resource: string;
}

interface Rules {
  create(obj: Obj): FieldError[];
  /** The update's errors (the new object's own included); the create rules when absent. */
  update?(obj: Obj, old: Obj): FieldError[];
}

const createOnly = (create: (o: Obj) => FieldError[]): Rules => ({ create });

// By "group/Kind" (the core group is "").
const RULES: Record<string, Rules> = {
  '/Pod': { create: validatePodCreate, update: validatePodUpdate },
  '/PodTemplate': createOnly(validatePodTemplate),
  '/ReplicationController': createOnly(validateReplicationController),
  '/Service': { create: validateService, update: validateServiceUpdate },
  '/ConfigMap': { create: validateConfigMap, update: validateConfigMapUpdate },
  '/Secret': { create: validateSecret, update: validateSecretUpdate },
  '/Namespace': createOnly(validateNamespace),
  '/Node': { create: validateNode, update: validateNodeUpdate },
  '/Endpoints': createOnly(validateEndpoints),
  '/Event': createOnly(validateCoreEvent),
  '/LimitRange': createOnly(validateLimitRange),
  '/ResourceQuota': createOnly(validateResourceQuota),
  '/PersistentVolumeClaim': { create: validatePVC, update: validatePVCUpdate },
  '/PersistentVolume': { create: validatePV, update: validatePVUpdate },
  'apps/Deployment': { create: validateDeployment, update: validateDeploymentUpdate },
  'apps/ReplicaSet': { create: validateReplicaSet, update: validateReplicaSetUpdate },
  'apps/StatefulSet': { create: validateStatefulSet, update: validateStatefulSetUpdate },
  'apps/DaemonSet': { create: validateDaemonSet, update: validateDaemonSetUpdate },
  'apps/ControllerRevision': { create: validateControllerRevision, update: validateControllerRevisionUpdate },
  'batch/Job': { create: validateJob, update: validateJobUpdate },
  'batch/CronJob': { create: validateCronJob, update: validateCronJobUpdate },
  'rbac.authorization.k8s.io/Role': createOnly((o) => validateRole(o, true)),
  'rbac.authorization.k8s.io/ClusterRole': createOnly((o) => validateRole(o, false)),
  'rbac.authorization.k8s.io/RoleBinding': { create: (o) => validateBinding(o, true), update: (o, old) => validateBindingUpdate(o, old, true) },
  'rbac.authorization.k8s.io/ClusterRoleBinding': { create: (o) => validateBinding(o, false), update: (o, old) => validateBindingUpdate(o, old, false) },
  'networking.k8s.io/Ingress': createOnly(validateIngress),
  'networking.k8s.io/IngressClass': { create: validateIngressClass, update: validateIngressClassUpdate },
  'networking.k8s.io/NetworkPolicy': createOnly(validateNetworkPolicy),
  'policy/PodDisruptionBudget': createOnly(validatePodDisruptionBudget),
  'autoscaling/HorizontalPodAutoscaler': createOnly(validateHorizontalPodAutoscaler),
  'coordination.k8s.io/Lease': createOnly(validateLease),
  'scheduling.k8s.io/PriorityClass': { create: validatePriorityClass, update: validatePriorityClassUpdate },
  'storage.k8s.io/StorageClass': { create: validateStorageClass, update: validateStorageClassUpdate },
  'storage.k8s.io/CSIDriver': { create: validateCSIDriver, update: validateCSIDriverUpdate },
  'storage.k8s.io/VolumeAttachment': { create: validateVolumeAttachment, update: validateVolumeAttachmentUpdate },
  'certificates.k8s.io/CertificateSigningRequest': {
    create: validateCertificateSigningRequest,
    // The request itself is fixed once submitted.
    update: (o, old) => immutable(obj(o['spec'])['request'], obj(old['spec'])['request'], 'spec.request'),
  },
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration': createOnly((o) => validateWebhookConfiguration(o, false)),
  'admissionregistration.k8s.io/MutatingWebhookConfiguration': createOnly((o) => validateWebhookConfiguration(o, true)),
  'node.k8s.io/RuntimeClass': { create: validateRuntimeClass, update: validateRuntimeClassUpdate },
  'events.k8s.io/Event': createOnly(validateEvent),
  'discovery.k8s.io/EndpointSlice': { create: validateEndpointSlice, update: validateEndpointSliceUpdate },
  'flowcontrol.apiserver.k8s.io/FlowSchema': createOnly(validateFlowSchema),
  'flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration': createOnly(validatePriorityLevelConfiguration),
};

const rulesFor = (target: ValidationTarget): Rules | undefined => RULES[`${target.group}/${target.kind}`];

// Groups whose types validate metadata with the core rules (custom resources, CRDs and APIServices do not).
const BUILT_IN_GROUPS = new Set([
  '', 'apps', 'batch', 'autoscaling', 'policy', 'rbac.authorization.k8s.io', 'networking.k8s.io', 'storage.k8s.io', 'certificates.k8s.io',
  'coordination.k8s.io', 'discovery.k8s.io', 'events.k8s.io', 'node.k8s.io', 'scheduling.k8s.io', 'admissionregistration.k8s.io',
  'flowcontrol.apiserver.k8s.io', 'internal.apiserver.k8s.io', 'authentication.k8s.io', 'authorization.k8s.io',
]);

const STANDARD_FINALIZERS = ['kubernetes', 'orphan', 'foregroundDeletion'];

/** Built-in types also refuse unprefixed finalizers other than the standard ones. */
function kubeFinalizerNames(target: ValidationTarget, o: Obj): FieldError[] {
  if (!BUILT_IN_GROUPS.has(target.group)) return [];
  const finalizers = obj(o['metadata'])['finalizers'];
  const errs: FieldError[] = [];
  (Array.isArray(finalizers) ? finalizers : []).forEach((f, i) => {
    if (typeof f === 'string' && !f.includes('/') && !STANDARD_FINALIZERS.includes(f)) {
      errs.push(fieldInvalid(`metadata.finalizers[${i}]`, f, 'name is neither a standard finalizer name nor is it fully qualified'));
    }
  });
  return errs;
}

/** pods/ephemeralcontainers: containers may be added, never changed or removed once there. */
function ephemeralContainersUpdate(o: Obj, old: Obj): FieldError[] {
  const byName = (pod: Obj) => new Map((Array.isArray(obj(pod['spec'])['ephemeralContainers']) ? (obj(pod['spec'])['ephemeralContainers'] as Obj[]) : []).map((c) => [String(obj(c)['name']), c]));
  const before = byName(old);
  const after = byName(o);
  const errs: FieldError[] = [];
  for (const [name, container] of before) {
    const now = after.get(name);
    if (!now) errs.push(fieldForbidden('spec.ephemeralContainers', `existing ephemeral containers ${JSON.stringify(name)} may not be removed\n`));
    else if (JSON.stringify(now) !== JSON.stringify(container)) errs.push(fieldForbidden('spec.ephemeralContainers', `existing ephemeral containers ${JSON.stringify(name)} may not be changed\n`));
  }
  return errs;
}

/** Malformed quantities are refused as the reference's decoder refuses them (400), before any field error. */
function checkDecoding(target: ValidationTarget, obj: JsonObject): void {
  const err = quantityDecodingError(target, obj);
  if (err) throw err;
}

/** Errors of a new object (after defaulting and admission's mutations). */
export function validateCreate(target: ValidationTarget, obj: JsonObject): FieldError[] {
  checkDecoding(target, obj);
  return [...kubeFinalizerNames(target, obj), ...(rulesFor(target)?.create(obj) ?? [])];
}

/**
 * Errors of an update: the new object's own, plus changes the type forbids (immutable fields).
 * Status writes are not checked here (the status subresource is validated lightly, as status is
 * the controllers' to report); namespaces/finalize checks the finalizer names it writes.
 */
export function validateUpdate(target: ValidationTarget, obj: JsonObject, old: JsonObject, subresource?: string): FieldError[] {
  if (subresource === 'finalize' && target.kind === 'Namespace') return validateNamespace(obj);
  if (subresource === 'ephemeralcontainers' && target.kind === 'Pod') return ephemeralContainersUpdate(obj, old);
  if (subresource !== undefined) return [];
  checkDecoding(target, obj);
  const rules = rulesFor(target);
  const own = rules ? (rules.update ? rules.update(obj, old) : rules.create(obj)) : [];
  return [...kubeFinalizerNames(target, obj), ...own];
}

