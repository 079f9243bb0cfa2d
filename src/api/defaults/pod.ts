// The pod spec defaulter shared by Pod, PodTemplate and the template of every workload
// (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob, ReplicationController).
// Pods get a little more than templates (enableServiceLinks, requests from limits): the
// reference keeps those off templates so that existing workloads do not roll on upgrade.
import { ensureObject, objectAt, objectsAt, setIfEmpty, setIfNil, setIfZero, zeroObjectMeta, type Obj } from './fields.js';
import { pullPolicyFor } from './image.js';
import { defaultFieldSelectors, defaultPodVolume } from './volumes.js';

const CONTAINER_LISTS = ['initContainers', 'containers', 'ephemeralContainers'];

function defaultHttpGet(handler: Obj): void {
  const httpGet = objectAt(handler, 'httpGet');
  if (!httpGet) return;
  setIfEmpty(httpGet, 'path', '/');
  setIfEmpty(httpGet, 'scheme', 'HTTP');
}

function defaultProbe(probe: Obj): void {
  setIfZero(probe, 'timeoutSeconds', 1);
  setIfZero(probe, 'periodSeconds', 10);
  setIfZero(probe, 'successThreshold', 1);
  setIfZero(probe, 'failureThreshold', 3);
  defaultHttpGet(probe);
  const grpc = objectAt(probe, 'grpc');
  if (grpc) setIfNil(grpc, 'service', '');
}

function defaultContainer(container: Obj): void {
  setIfEmpty(container, 'imagePullPolicy', pullPolicyFor(container['image']));
  setIfEmpty(container, 'terminationMessagePath', '/dev/termination-log');
  setIfEmpty(container, 'terminationMessagePolicy', 'File');
  // A struct value: written {} when empty.
  setIfNil(container, 'resources', {});
  for (const port of objectsAt(container, 'ports')) setIfEmpty(port, 'protocol', 'TCP');
  for (const env of objectsAt(container, 'env')) {
    const valueFrom = objectAt(env, 'valueFrom');
    if (valueFrom) defaultFieldSelectors(valueFrom);
  }
  for (const key of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
    const probe = objectAt(container, key);
    if (probe) defaultProbe(probe);
  }
  const lifecycle = objectAt(container, 'lifecycle');
  for (const key of ['postStart', 'preStop']) {
    const handler = lifecycle && objectAt(lifecycle, key);
    if (handler) defaultHttpGet(handler);
  }
}

/** With host networking, a container port's hostPort defaults to its containerPort. */
function defaultHostNetworkPorts(spec: Obj): void {
  for (const key of ['initContainers', 'containers']) {
    for (const container of objectsAt(spec, key)) {
      for (const port of objectsAt(container, 'ports')) {
        if (typeof port['containerPort'] === 'number') setIfZero(port, 'hostPort', port['containerPort']);
      }
    }
  }
}

/** The defaults of a PodSpec wherever it appears. */
export function defaultPodSpec(spec: Obj): void {
  setIfEmpty(spec, 'dnsPolicy', 'ClusterFirst');
  setIfEmpty(spec, 'restartPolicy', 'Always');
  if (spec['hostNetwork'] === true) defaultHostNetworkPorts(spec);
  setIfNil(spec, 'securityContext', {});
  setIfNil(spec, 'terminationGracePeriodSeconds', 30);
  setIfEmpty(spec, 'schedulerName', 'default-scheduler');
  for (const volume of objectsAt(spec, 'volumes')) defaultPodVolume(volume);
  for (const key of CONTAINER_LISTS) for (const container of objectsAt(spec, key)) defaultContainer(container);
}

/** A PodTemplateSpec: its metadata and spec are struct values, always written. */
export function defaultPodTemplate(template: Obj): void {
  zeroObjectMeta(template);
  const spec = ensureObject(template, 'spec');
  if (spec) defaultPodSpec(spec);
}

/** The template at `holder[key]`, when there is one (a pointer in ReplicationController). */
export function defaultPodTemplateAt(holder: Obj, key: string, valueStruct: boolean): void {
  const template = valueStruct ? ensureObject(holder, key) : objectAt(holder, key);
  if (template) defaultPodTemplate(template);
}

/** Requests default to limits, for each resource a container limits but does not request. */
function defaultRequestsFromLimits(container: Obj): void {
  const resources = objectAt(container, 'resources');
  const limits = resources && objectAt(resources, 'limits');
  if (!resources || !limits || Object.keys(limits).length === 0) return;
  const requests = ensureObject(resources, 'requests');
  if (!requests) return;
  for (const [name, quantity] of Object.entries(limits)) if (!(name in requests)) requests[name] = quantity;
}

export function defaultPod(pod: Obj): void {
  const spec = ensureObject(pod, 'spec');
  if (!spec) return;
  for (const key of ['initContainers', 'containers']) for (const container of objectsAt(spec, key)) defaultRequestsFromLimits(container);
  setIfNil(spec, 'enableServiceLinks', true);
  defaultPodSpec(spec);
}
