// Defaults of apps/v1. Every workload's pod template gets the pod spec defaults.
import { ensureObject, objectAt, objectsAt, setIfEmpty, setIfNil, zeroObjectMeta, type Obj } from './fields.js';
import { defaultPodTemplateAt } from './pod.js';
import { defaultClaim } from './volumes.js';

const REVISION_HISTORY_LIMIT = 10;

/** Status fields written even when zero. */
function zeroStatus(obj: Obj, ...fields: string[]): void {
  const status = ensureObject(obj, 'status');
  if (status) for (const field of fields) setIfNil(status, field, 0);
}

export function defaultDeployment(deployment: Obj): void {
  const spec = ensureObject(deployment, 'spec');
  if (!spec) return;
  setIfNil(spec, 'replicas', 1);
  const strategy = ensureObject(spec, 'strategy');
  if (strategy) {
    setIfEmpty(strategy, 'type', 'RollingUpdate');
    const rollingUpdate = strategy['type'] === 'RollingUpdate' ? ensureObject(strategy, 'rollingUpdate') : undefined;
    if (rollingUpdate) {
      setIfNil(rollingUpdate, 'maxUnavailable', '25%');
      setIfNil(rollingUpdate, 'maxSurge', '25%');
    }
  }
  setIfNil(spec, 'revisionHistoryLimit', REVISION_HISTORY_LIMIT);
  setIfNil(spec, 'progressDeadlineSeconds', 600);
  defaultPodTemplateAt(spec, 'template', true);
}

export function defaultReplicaSet(replicaSet: Obj): void {
  const spec = ensureObject(replicaSet, 'spec');
  if (spec) {
    setIfNil(spec, 'replicas', 1);
    defaultPodTemplateAt(spec, 'template', true);
  }
  zeroStatus(replicaSet, 'replicas');
}

export function defaultDaemonSet(daemonSet: Obj): void {
  const spec = ensureObject(daemonSet, 'spec');
  if (spec) {
    const strategy = ensureObject(spec, 'updateStrategy');
    if (strategy) {
      setIfEmpty(strategy, 'type', 'RollingUpdate');
      const rollingUpdate = strategy['type'] === 'RollingUpdate' ? ensureObject(strategy, 'rollingUpdate') : undefined;
      if (rollingUpdate) {
        setIfNil(rollingUpdate, 'maxUnavailable', 1);
        setIfNil(rollingUpdate, 'maxSurge', 0);
      }
    }
    setIfNil(spec, 'revisionHistoryLimit', REVISION_HISTORY_LIMIT);
    defaultPodTemplateAt(spec, 'template', true);
  }
  zeroStatus(daemonSet, 'currentNumberScheduled', 'numberMisscheduled', 'desiredNumberScheduled', 'numberReady');
}

// persistentVolumeClaimRetentionPolicy and rollingUpdate.maxUnavailable are defaulted only
// behind feature gates that are alpha (off) in 1.25.
export function defaultStatefulSet(statefulSet: Obj): void {
  const spec = ensureObject(statefulSet, 'spec');
  if (spec) {
    setIfEmpty(spec, 'podManagementPolicy', 'OrderedReady');
    const strategy = ensureObject(spec, 'updateStrategy');
    if (strategy) {
      // A rollingUpdate is added only when the type itself was defaulted.
      if (strategy['type'] === undefined || strategy['type'] === null || strategy['type'] === '') {
        strategy['type'] = 'RollingUpdate';
        setIfNil(strategy, 'rollingUpdate', {});
      }
      const rollingUpdate = strategy['type'] === 'RollingUpdate' ? objectAt(strategy, 'rollingUpdate') : undefined;
      if (rollingUpdate) setIfNil(rollingUpdate, 'partition', 0);
    }
    setIfNil(spec, 'replicas', 1);
    setIfNil(spec, 'revisionHistoryLimit', REVISION_HISTORY_LIMIT);
    // Written even when empty (no omitempty).
    setIfNil(spec, 'serviceName', '');
    defaultPodTemplateAt(spec, 'template', true);
    for (const claim of objectsAt(spec, 'volumeClaimTemplates')) {
      zeroObjectMeta(claim);
      defaultClaim(claim);
    }
  }
  zeroStatus(statefulSet, 'replicas', 'availableReplicas');
}
