// Pod shapes the plugins read and change: the reference's field order of a PodSpec and a Container
// (where added fields go), and the containers of a pod spec with their field paths.
import { child, objectsOf, setOrdered, type JsonObject } from './support.js';

/** core/v1 PodSpec fields in the order the reference serializes them. */
export const POD_SPEC_ORDER = [
  'volumes', 'initContainers', 'containers', 'ephemeralContainers', 'restartPolicy', 'terminationGracePeriodSeconds',
  'activeDeadlineSeconds', 'dnsPolicy', 'nodeSelector', 'serviceAccountName', 'serviceAccount', 'automountServiceAccountToken',
  'nodeName', 'hostNetwork', 'hostPID', 'hostIPC', 'shareProcessNamespace', 'securityContext', 'imagePullSecrets', 'hostname',
  'subdomain', 'affinity', 'schedulerName', 'tolerations', 'hostAliases', 'priorityClassName', 'priority', 'dnsConfig',
  'readinessGates', 'runtimeClassName', 'enableServiceLinks', 'preemptionPolicy', 'overhead', 'topologySpreadConstraints',
  'setHostnameAsFQDN', 'os', 'hostUsers',
] as const;

/** core/v1 Container fields in the order the reference serializes them. */
export const CONTAINER_ORDER = [
  'name', 'image', 'command', 'args', 'workingDir', 'ports', 'envFrom', 'env', 'resources', 'volumeMounts', 'volumeDevices',
  'livenessProbe', 'readinessProbe', 'startupProbe', 'lifecycle', 'terminationMessagePath', 'terminationMessagePolicy',
  'imagePullPolicy', 'securityContext', 'stdin', 'stdinOnce', 'tty', 'targetContainerName',
] as const;

/** The pod's spec (created empty when absent). */
export function podSpecOf(pod: JsonObject): JsonObject {
  return child(pod, 'spec');
}

export function setSpecField(spec: JsonObject, key: string, value: unknown): void {
  setOrdered(spec, key, value, POD_SPEC_ORDER);
}

export function setContainerField(container: JsonObject, key: string, value: unknown): void {
  setOrdered(container, key, value, CONTAINER_ORDER);
}

export interface ContainerAt {
  container: JsonObject;
  /** The field path, e.g. `spec.initContainers[0]`. */
  path: string;
  kind: 'initContainers' | 'containers' | 'ephemeralContainers';
}

/** Every container of a spec: init containers, containers, then ephemeral containers (the reference's visiting order). */
export function allContainers(spec: JsonObject, base = 'spec'): ContainerAt[] {
  const out: ContainerAt[] = [];
  for (const kind of ['initContainers', 'containers', 'ephemeralContainers'] as const) {
    objectsOf(spec[kind]).forEach((container, i) => out.push({ container, path: `${base}.${kind}[${i}]`, kind }));
  }
  return out;
}
