// RuntimeClass: a pod that names a RuntimeClass takes its pod overhead and its scheduling
// (node selector and tolerations); a pod may not bring an overhead of its own.
import { listsEqual, resourceListOf } from '../../quota/resource-list.js';
import type { AdmissionAttributes, AdmissionPlugin, AdmissionServices } from '../types.js';
import { podSpecOf, setSpecField } from './pods.js';
import { mergeTolerations } from './tolerations.js';
import { forbidden, isResource, objectOf, objectsOf, readObject, stringOf, type JsonObject } from './support.js';
import { copyJson } from '../../json.js';

export const runtimeClass: AdmissionPlugin = {
  name: 'RuntimeClass',
  operations: ['CREATE'],
  async mutate(a, services) {
    const found = await lookUp(a, services, 'mutate');
    if (!found) return;
    const { spec, rc } = found;
    setOverhead(a, spec, rc);
    setScheduling(a, spec, rc);
  },
  async validate(a, services) {
    const found = await lookUp(a, services, 'validate');
    if (!found) return;
    const { spec, rc } = found;
    const overhead = objectOf(objectOf(rc?.['overhead'])?.['podFixed']);
    const podOverhead = objectOf(spec['overhead']);
    if (rc && objectOf(rc['overhead'])) {
      if (!sameOverhead(overhead, podOverhead)) throw forbidden(a, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
    } else if (podOverhead) {
      throw forbidden(a, 'pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead');
    }
  },
};

/** Semantic equality of two overheads, as the reference compares them: nil and empty alike, quantities by value. */
function sameOverhead(a: JsonObject | undefined, b: JsonObject | undefined): boolean {
  return listsEqual(resourceListOf(a), resourceListOf(b));
}

/** The pod's spec and its RuntimeClass (undefined when it names none); refused when the class does not exist. */
async function lookUp(a: AdmissionAttributes, { registry }: AdmissionServices, phase: 'mutate' | 'validate'): Promise<{ spec: JsonObject; rc?: JsonObject } | undefined> {
  if (a.subresource || !isResource(a, '', 'pods')) return undefined;
  const pod = objectOf(a.object);
  if (!pod) return undefined;
  const spec = podSpecOf(pod);
  const name = stringOf(spec['runtimeClassName']);
  if (name === undefined) return { spec };
  const rc = await readObject(registry, 'node.k8s.io', 'runtimeclasses', undefined, name);
  if (!rc) throw forbidden(a, `pod rejected: RuntimeClass ${JSON.stringify(name)} not found`, phase);
  return { spec, rc };
}

function setOverhead(a: AdmissionAttributes, spec: JsonObject, rc: JsonObject | undefined): void {
  const overhead = objectOf(rc?.['overhead']);
  if (!overhead) return;
  const podFixed = objectOf(overhead['podFixed']);
  const podOverhead = objectOf(spec['overhead']);
  if (podOverhead && Object.keys(podOverhead).length && !sameOverhead(podFixed, podOverhead)) {
    throw forbidden(a, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead", 'mutate');
  }
  if (podFixed) setSpecField(spec, 'overhead', copyJson(podFixed));
  else delete spec['overhead'];
}

function setScheduling(a: AdmissionAttributes, spec: JsonObject, rc: JsonObject | undefined): void {
  const scheduling = objectOf(rc?.['scheduling']);
  if (!scheduling) return;
  const wanted = objectOf(scheduling['nodeSelector']) ?? {};
  const podSelector = objectOf(spec['nodeSelector']);
  if (!podSelector) {
    if (Object.keys(wanted).length) setSpecField(spec, 'nodeSelector', { ...wanted });
  } else {
    for (const [key, value] of Object.entries(wanted)) {
      if (key in podSelector && podSelector[key] !== value) {
        throw forbidden(a, `conflict: runtimeClass.scheduling.nodeSelector[${key}] = ${String(value)}; pod.spec.nodeSelector[${key}] = ${String(podSelector[key])}`, 'mutate');
      }
      podSelector[key] = value;
    }
  }
  const merged = mergeTolerations(objectsOf(spec['tolerations']), objectsOf(scheduling['tolerations']));
  if (merged.length) setSpecField(spec, 'tolerations', merged);
}
