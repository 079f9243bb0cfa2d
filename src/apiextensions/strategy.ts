// What the CustomResourceDefinition resource does beyond its built-in definition: the reference's
// validation of the object (its schemas through the engine), storedVersions kept with the storage
// version, and deletion held by the cleanup finalizer (marked Terminating) until the controller has
// deleted every custom resource.

import { FeatureGates } from '../api/feature-gates.js';
import type { JsonObject } from '../json.js';
import type { ResourceDefinition, ResourceDefinitions } from '../registry/definitions.js';
import { metadataOf } from '../registry/objects.js';
import { CLEANUP_FINALIZER, CRD_GROUP, CRD_RESOURCE, finalizersOf, setCondition, versionsOf } from './crd-object.js';
import type { CrdSchemaEngine } from './schema-engine.js';
import { validateCrdCreate, validateCrdStatusUpdate, validateCrdUpdate } from './validation.js';
import { dropDisabledValidationRules } from './validation-rules-gate.js';

/** Appends the storage version to status.storedVersions when it is not there yet. */
function recordStorageVersion(crd: JsonObject): void {
  const storage = versionsOf(crd).find((v) => v.storage);
  if (!storage) return;
  const status = (crd['status'] ??= {}) as JsonObject;
  const stored = Array.isArray(status['storedVersions']) ? (status['storedVersions'] as string[]) : [];
  if (!stored.includes(storage.name)) status['storedVersions'] = [...stored, storage.name];
}

/** The CRD definition with apiextensions' strategy on top of the built-in one. */
export function withCrdStrategy(definition: ResourceDefinition, engine: CrdSchemaEngine, features: FeatureGates = FeatureGates.DEFAULTS): ResourceDefinition {
  const base = definition.hooks;
  const rulesOff = !features.enabled('CustomResourceValidationExpressions');
  return {
    ...definition,
    hooks: {
      ...base,
      prepareForCreate(obj, user) {
        base.prepareForCreate?.(obj, user);
        if (rulesOff) dropDisabledValidationRules(obj, undefined);
      },
      prepareForUpdate(next, current) {
        base.prepareForUpdate?.(next, current);
        recordStorageVersion(next);
        if (rulesOff) dropDisabledValidationRules(next, current);
      },
      validateCreate(obj, version) {
        return [...(base.validateCreate?.(obj, version) ?? []), ...validateCrdCreate(obj, engine)];
      },
      validateUpdate(obj, old, version, subresource) {
        const own = base.validateUpdate?.(obj, old, version, subresource) ?? [];
        if (subresource === 'status') return [...own, ...validateCrdStatusUpdate(obj)];
        if (subresource !== undefined) return own;
        return [...own, ...validateCrdUpdate(obj, old, engine)];
      },
      // A delete marks the CRD Terminating and holds it with the cleanup finalizer.
      async beforeDelete(registry, obj, dryRun) {
        await base.beforeDelete?.(registry, obj, dryRun);
        const meta = metadataOf(obj);
        if (meta['deletionTimestamp']) return;
        const finalizers = finalizersOf(obj);
        if (!finalizers.includes(CLEANUP_FINALIZER)) meta['finalizers'] = [...finalizers, CLEANUP_FINALIZER];
        setCondition(obj, { type: 'Terminating', status: 'True', reason: 'InstanceDeletionPending', message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon' });
      },
      // The reference's CRD delete sets only deletionTimestamp (no grace period seconds).
      heldBySpec: () => false,
    },
  };
}

/** Puts the strategy on the server's CRD definition (when apiextensions.k8s.io is served). */
export function installCrdStrategy(definitions: ResourceDefinitions, engine: CrdSchemaEngine, features: FeatureGates = FeatureGates.DEFAULTS): void {
  const definition = definitions.definition(CRD_GROUP, CRD_RESOURCE);
  if (definition) definitions.add(withCrdStrategy(definition, engine, features));
}

