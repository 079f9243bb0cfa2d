// apps: what is special about each of its resources.
import { defaultDaemonSet, defaultDeployment, defaultReplicaSet, defaultStatefulSet } from '../../api/defaults/apps.js';
import { controllerRevisionTable, daemonSetTable, deploymentTable, replicaSetTable, statefulSetTable } from '../../api/printers/index.js';
import {
  validateControllerRevision, validateControllerRevisionUpdate, validateDaemonSet, validateDaemonSetUpdate, validateDeployment, validateDeploymentUpdate,
  validateReplicaSet, validateReplicaSetUpdate, validateStatefulSet, validateStatefulSetUpdate,
} from '../../api/validation/apps.js';
import { annotationsIn, annotationsOf, metadataOf } from '../objects.js';
import type { Strategy } from '../strategies.js';
import { podTemplateAt } from './pod-template.js';
import type { BuiltinGroup, BuiltinSpec } from './types.js';
import { type JsonObject } from '../../json.js';

// apps/v1 carries a DaemonSet's template generation in an annotation: read at decoding (0 when
// absent), 1 at creation, and one more for every change of the template.
const TEMPLATE_GENERATION = 'deprecated.daemonset.template.generation';

function templateOf(obj: JsonObject): unknown {
  return ((obj['spec'] ?? {}) as JsonObject)['template'];
}

const daemonSetStrategy: Strategy = {
  normalize(obj) {
    const annotations = annotationsOf(obj);
    annotations[TEMPLATE_GENERATION] = String(Number(annotations[TEMPLATE_GENERATION]) || 0);
  },
  prepareForCreate(obj) {
    annotationsOf(obj)[TEMPLATE_GENERATION] = '1';
  },
  prepareForUpdate(next, current) {
    const before = Number(annotationsIn(current)[TEMPLATE_GENERATION]) || 0;
    const changed = JSON.stringify(templateOf(next)) !== JSON.stringify(templateOf(current));
    annotationsOf(next)[TEMPLATE_GENERATION] = String(changed ? before + 1 : before);
  },
};

// A Deployment's annotations are copied to its ReplicaSets, so changing them is a new generation.
const deploymentStrategy: Strategy = {
  generationChange: (next, current) => JSON.stringify(metadataOf(next)['annotations'] ?? {}) !== JSON.stringify(metadataOf(current)['annotations'] ?? {}),
};

/** A Deployment's status write: its status and annotations, the rest as stored. */
function deploymentStatusPart(current: JsonObject, desired: JsonObject): JsonObject {
  const next: JsonObject = { ...current, metadata: { ...metadataOf(current) } };
  const annotations = metadataOf(desired)['annotations'];
  if (annotations === undefined) delete metadataOf(next)['annotations'];
  else metadataOf(next)['annotations'] = annotations;
  if (desired['status'] === undefined) delete next['status'];
  else next['status'] = desired['status'];
  return next;
}

/** The workloads keep their generation and their pod template at spec.template. */
const workload = (spec: BuiltinSpec): BuiltinSpec => ({ tracksGeneration: true, podTemplate: podTemplateAt('spec', 'template'), ...spec });

export const apps: BuiltinGroup = {
  name: 'apps',
  resources: {
    controllerrevisions: {
      validation: { create: validateControllerRevision, update: validateControllerRevisionUpdate },
      table: controllerRevisionTable,
    },
    daemonsets: workload({
      defaults: { v1: defaultDaemonSet },
      validation: { create: validateDaemonSet, update: validateDaemonSetUpdate },
      strategy: daemonSetStrategy,
      table: daemonSetTable,
    }),
    deployments: workload({
      defaults: { v1: defaultDeployment },
      validation: { create: validateDeployment, update: validateDeploymentUpdate },
      strategy: deploymentStrategy,
      table: deploymentTable,
      // As the reference's status strategy: a status write may change the annotations too (the
      // deployment controller writes the revision annotation with the status).
      subresourceParts: { status: deploymentStatusPart },
    }),
    replicasets: workload({
      defaults: { v1: defaultReplicaSet },
      validation: { create: validateReplicaSet, update: validateReplicaSetUpdate },
      table: replicaSetTable,
    }),
    statefulsets: workload({
      defaults: { v1: defaultStatefulSet },
      validation: { create: validateStatefulSet, update: validateStatefulSetUpdate },
      table: statefulSetTable,
    }),
  },
};
