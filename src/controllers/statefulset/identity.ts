// A StatefulSet pod's identity and storage: its name `<set>-<ordinal>`, the pod-name label, the
// hostname and subdomain (the governing Service), and the claims of volumeClaimTemplates named
// `<claim>-<set>-<ordinal>` mounted as the template's volumes.
import { metadataOf } from '../../registry/objects.js';
import { type JsonObject, isObject, copyJson } from '../../json.js';
import { podFromTemplate } from '../kit/owned.js';
import { POD_REVISION_LABEL } from '../kit/history.js';

export const POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';

function specOf(set: JsonObject): JsonObject {
  return isObject(set['spec']) ? set['spec'] : {};
}

function nameOf(obj: JsonObject): string {
  return String(metadataOf(obj)['name']);
}

/** The ordinal in a pod's name `<set>-<n>`, or -1 when the name is not one of the set's. */
export function ordinalOf(set: JsonObject, pod: JsonObject): number {
  const prefix = `${nameOf(set)}-`;
  const name = nameOf(pod);
  if (!name.startsWith(prefix)) return -1;
  const rest = name.slice(prefix.length);
  return /^(0|[1-9]\d*)$/.test(rest) ? Number(rest) : -1;
}

export function podName(set: JsonObject, ordinal: number): string {
  return `${nameOf(set)}-${ordinal}`;
}

export function claimTemplates(set: JsonObject): JsonObject[] {
  const templates = specOf(set)['volumeClaimTemplates'];
  return Array.isArray(templates) ? templates.filter(isObject) : [];
}

/** The claims the pod of that ordinal uses, keyed by the template's (volume's) name. */
export function claimsFor(set: JsonObject, ordinal: number): Map<string, JsonObject> {
  const claims = new Map<string, JsonObject>();
  const selector = isObject(specOf(set)['selector']) ? (specOf(set)['selector'] as JsonObject) : {};
  const matchLabels = isObject(selector['matchLabels']) ? selector['matchLabels'] : {};
  for (const template of claimTemplates(set)) {
    const tmeta = metadataOf(template);
    const templateName = String(tmeta['name'] ?? '');
    const metadata: JsonObject = { ...copyJson(tmeta), name: `${templateName}-${podName(set, ordinal)}`, namespace: metadataOf(set)['namespace'] };
    delete metadata['creationTimestamp'];
    const labels = { ...(isObject(tmeta['labels']) ? tmeta['labels'] : {}), ...matchLabels };
    if (Object.keys(labels).length) metadata['labels'] = labels;
    claims.set(templateName, { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata, spec: copyJson(isObject(template['spec']) ? template['spec'] : {}) });
  }
  return claims;
}

/** Whether the pod has its name label, hostname and subdomain. */
export function identityMatches(set: JsonObject, pod: JsonObject, ordinal: number): boolean {
  const spec = isObject(pod['spec']) ? pod['spec'] : {};
  const labels = (metadataOf(pod)['labels'] ?? {}) as Record<string, string>;
  const serviceName = specOf(set)['serviceName'];
  return ordinalOf(set, pod) === ordinal && metadataOf(pod)['namespace'] === metadataOf(set)['namespace']
    && labels[POD_NAME_LABEL] === nameOf(pod) && spec['hostname'] === nameOf(pod)
    && (serviceName ? spec['subdomain'] === serviceName : spec['subdomain'] === undefined);
}

/** Whether the pod's volumes name the claims of its ordinal. */
export function storageMatches(set: JsonObject, pod: JsonObject, ordinal: number): boolean {
  const volumes = volumesOf(pod);
  for (const [volumeName, claim] of claimsFor(set, ordinal)) {
    const volume = volumes.find((v) => v['name'] === volumeName);
    const source = volume && isObject(volume['persistentVolumeClaim']) ? volume['persistentVolumeClaim'] : undefined;
    if (!source || source['claimName'] !== metadataOf(claim)['name']) return false;
  }
  return true;
}

function volumesOf(pod: JsonObject): JsonObject[] {
  const spec = isObject(pod['spec']) ? pod['spec'] : {};
  return Array.isArray(spec['volumes']) ? spec['volumes'].filter(isObject) : [];
}

/** Gives the pod its identity (in place). */
export function setIdentity(set: JsonObject, pod: JsonObject, ordinal: number): void {
  const meta = metadataOf(pod);
  const name = podName(set, ordinal);
  meta['name'] = name;
  meta['labels'] = { ...((meta['labels'] ?? {}) as Record<string, string>), [POD_NAME_LABEL]: name };
  const spec = isObject(pod['spec']) ? pod['spec'] : (pod['spec'] = {});
  spec['hostname'] = name;
  const serviceName = specOf(set)['serviceName'];
  if (serviceName) spec['subdomain'] = serviceName;
  else delete spec['subdomain'];
}

/** Mounts the ordinal's claims as the templates' volumes, replacing volumes of those names (in place). */
export function setStorage(set: JsonObject, pod: JsonObject, ordinal: number): void {
  const claims = claimsFor(set, ordinal);
  if (claims.size === 0) return;
  const spec = isObject(pod['spec']) ? pod['spec'] : (pod['spec'] = {});
  const volumes = volumesOf(pod).filter((v) => !claims.has(String(v['name'])));
  for (const [volumeName, claim] of claims) volumes.push({ name: volumeName, persistentVolumeClaim: { claimName: metadataOf(claim)['name'] } });
  spec['volumes'] = volumes;
}

/** The pod of that ordinal made from `template`, labelled with the revision it comes from. */
export function newStatefulPod(set: JsonObject, template: JsonObject, ordinal: number, revisionName: string): JsonObject {
  const pod = podFromTemplate(template, set, { generateName: `${nameOf(set)}-` });
  metadataOf(pod)['namespace'] = metadataOf(set)['namespace'];
  setIdentity(set, pod, ordinal);
  setStorage(set, pod, ordinal);
  (metadataOf(pod)['labels'] as Record<string, string>)[POD_REVISION_LABEL] = revisionName;
  return pod;
}
