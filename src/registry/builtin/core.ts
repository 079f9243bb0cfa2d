// The core group (""): what is special about each of its resources.
import {
  defaultCoreEvent, defaultEndpoints, defaultLimitRange, defaultNamespace, defaultNode, defaultPersistentVolume, defaultPodTemplateObject,
  defaultReplicationController, defaultResourceQuota, defaultSecret, defaultService,
} from '../../api/defaults/core.js';
import { convertEvent } from '../../api/conversion/events.js';
import { defaultPod } from '../../api/defaults/pod.js';
import { defaultClaim } from '../../api/defaults/volumes.js';
import {
  componentStatusTable, configMapTable, coreEventTable, endpointsTable, namespaceTable, nodeTable, persistentVolumeClaimTable, persistentVolumeTable,
  podTable, podTemplateTable, replicationControllerTable, resourceQuotaTable, secretTable, serviceAccountTable, serviceTable,
} from '../../api/printers/index.js';
import { coreEventFields, namespaceFields, nodeFields, podFields, replicationControllerFields, secretFields } from '../../api/selectable-fields.js';
import { validateConfigMap, validateConfigMapUpdate, validateSecret, validateSecretUpdate } from '../../api/validation/core-config.js';
import {
  validateCoreEvent, validateEndpoints, validateLimitRange, validateNamespace, validateNode, validateNodeUpdate, validatePodTemplate,
  validateReplicationController, validateResourceQuota,
} from '../../api/validation/core-misc.js';
import { validatePodCreate } from '../../api/validation/core-pod.js';
import { validateEphemeralContainersUpdate, validatePodUpdate } from '../../api/validation/core-pod-update.js';
import { validateService, validateServiceUpdate } from '../../api/validation/core-service.js';
import { validatePV, validatePVC, validatePVCUpdate, validatePVUpdate } from '../../api/validation/core-storage.js';
import { objectCountEvaluator, persistentVolumeClaimEvaluator, podEvaluator, serviceEvaluator } from '../../quota/evaluators.js';
import { serviceStrategy } from '../allocators/service-strategy.js';
import { createOnUpdate } from '../strategies.js';
import { namespaceStrategy, podStrategy, replicationControllerStrategy, secretStrategy } from './core-strategies.js';
import { componentStatuses } from './component-status.js';
import { bindNamedPod, bindThisPod } from './pod-binding.js';
import { evictPod } from './pod-eviction.js';
import { podTemplateAt } from './pod-template.js';
import { requestToken } from './token-request.js';
import type { BuiltinGroup } from './types.js';
import { type JsonObject } from '../../json.js';

/** A copy of `current` whose spec field `field` is the desired object's. */
function specField(current: JsonObject, desired: JsonObject, field: string): JsonObject {
  const spec = { ...((current['spec'] ?? {}) as JsonObject) };
  const value = ((desired['spec'] ?? {}) as JsonObject)[field];
  if (value === undefined) delete spec[field];
  else spec[field] = value;
  return { ...current, spec };
}

/** An object count also charged under the resource's own name (the quota names of old: "configmaps", …). */
const legacyCount = (resource: string) => objectCountEvaluator('', resource, resource);

export const core: BuiltinGroup = {
  name: '',
  resources: {
    // Virtual: a create binds the pod the Binding names; never charged to quota.
    bindings: { quota: null, create: bindNamedPod },
    // Made when read (the server's components' health); deprecated since 1.19, with no replacement.
    componentstatuses: { table: componentStatusTable, quota: null, computed: componentStatuses, deprecated: { v1: { deprecatedIn: '1.19' } } },
    configmaps: {
      validation: { create: validateConfigMap, update: validateConfigMapUpdate },
      table: configMapTable,
      quota: legacyCount('configmaps'),
    },
    endpoints: {
      defaults: { v1: defaultEndpoints },
      validation: { create: validateEndpoints },
      strategy: createOnUpdate,
      table: endpointsTable,
    },
    events: {
      defaults: { v1: defaultCoreEvent },
      // The legacy rules, on create and update (validateCoreEvent's own reporter field name).
      validation: { create: (event) => validateCoreEvent(event) },
      strategy: createOnUpdate,
      table: coreEventTable,
      selectableFields: coreEventFields,
      // Core events are never charged.
      quota: null,
      // One stored object with events.k8s.io/v1 Events (registry/keys.ts).
      convertAcross: convertEvent,
    },
    limitranges: {
      defaults: { v1: defaultLimitRange },
      validation: { create: validateLimitRange },
      strategy: createOnUpdate,
    },
    namespaces: {
      nameRule: 'label',
      returnsDeletedObject: true,
      defaults: { v1: defaultNamespace },
      // namespaces/{name}/finalize checks the finalizer names it writes.
      validation: { create: validateNamespace, subresources: { finalize: validateNamespace } },
      strategy: namespaceStrategy,
      table: namespaceTable,
      selectableFields: namespaceFields,
      // namespaces/{name}/finalize: spec.finalizers only.
      subresourceParts: { finalize: (current, desired) => specField(current, desired, 'finalizers') },
    },
    nodes: {
      defaults: { v1: defaultNode },
      validation: { create: validateNode, update: validateNodeUpdate },
      table: nodeTable,
      selectableFields: nodeFields,
    },
    persistentvolumeclaims: {
      defaults: { v1: defaultClaim },
      validation: { create: validatePVC, update: validatePVCUpdate },
      table: persistentVolumeClaimTable,
      quota: persistentVolumeClaimEvaluator,
    },
    persistentvolumes: {
      defaults: { v1: defaultPersistentVolume },
      validation: { create: validatePV, update: validatePVUpdate },
      table: persistentVolumeTable,
    },
    pods: {
      returnsDeletedObject: true,
      defaults: { v1: defaultPod },
      validation: { create: validatePodCreate, update: validatePodUpdate, subresources: { ephemeralcontainers: validateEphemeralContainersUpdate } },
      strategy: podStrategy,
      table: podTable,
      selectableFields: podFields,
      indexedFields: ['spec.nodeName'],
      quota: podEvaluator,
      subresourceParts: {
        // pods/{name}/ephemeralcontainers: spec.ephemeralContainers.
        ephemeralcontainers: (current, desired) => specField(current, desired, 'ephemeralContainers'),
        // pods/{name}/binding: the server computes the whole bound pod (node name, condition, annotations).
        binding: (_current, desired) => desired,
      },
      subresourceCreates: { binding: bindThisPod, eviction: evictPod },
    },
    podtemplates: {
      tracksGeneration: true,
      defaults: { v1: defaultPodTemplateObject },
      validation: { create: validatePodTemplate },
      table: podTemplateTable,
      podTemplate: podTemplateAt('template'),
    },
    replicationcontrollers: {
      tracksGeneration: true,
      defaults: { v1: defaultReplicationController },
      validation: { create: validateReplicationController },
      strategy: replicationControllerStrategy,
      table: replicationControllerTable,
      selectableFields: replicationControllerFields,
      quota: legacyCount('replicationcontrollers'),
      podTemplate: podTemplateAt('spec', 'template'),
    },
    resourcequotas: {
      defaults: { v1: defaultResourceQuota },
      validation: { create: validateResourceQuota },
      table: resourceQuotaTable,
      quota: legacyCount('resourcequotas'),
    },
    secrets: {
      defaults: { v1: defaultSecret },
      validation: { create: validateSecret, update: validateSecretUpdate },
      strategy: secretStrategy,
      table: secretTable,
      selectableFields: secretFields,
      quota: legacyCount('secrets'),
    },
    serviceaccounts: { returnsDeletedObject: true, table: serviceAccountTable, subresourceCreates: { token: requestToken } },
    services: {
      nameRule: 'dns1035',
      returnsDeletedObject: true,
      defaults: { v1: defaultService },
      validation: { create: validateService, update: validateServiceUpdate },
      strategy: serviceStrategy,
      table: serviceTable,
      quota: serviceEvaluator,
    },
  },
};
