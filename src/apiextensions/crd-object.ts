// Reading a CustomResourceDefinition (apiextensions.k8s.io/v1, as stored) as typed values, and its
// status conditions as the reference's helpers keep them.
import { type JsonObject, isObject, jsonEqual, now } from '../json.js';
import { metadataOf } from '../registry/objects.js';

export const CRD_GROUP = 'apiextensions.k8s.io';
export const CRD_RESOURCE = 'customresourcedefinitions';
/** Held on a deleted CRD until its custom resources are gone. */
export const CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';
export const API_APPROVAL_ANNOTATION = 'api-approved.kubernetes.io';

export interface CrdNames {
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
  shortNames: string[];
  categories: string[];
}

export interface ScaleSpec {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

export interface PrinterColumn {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
  jsonPath: string;
}

export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated: boolean;
  deprecationWarning?: string;
  schema: JsonObject | undefined;
  status: boolean;
  scale: ScaleSpec | undefined;
  columns: PrinterColumn[];
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);
const obj = (v: unknown): JsonObject => (isObject(v) ? v : {});

export function specOfCrd(crd: JsonObject): JsonObject {
  return obj(crd['spec']);
}

export function statusOfCrd(crd: JsonObject): JsonObject {
  return obj(crd['status']);
}

export function namesOf(names: unknown): CrdNames {
  const n = obj(names);
  return {
    plural: str(n['plural']), singular: str(n['singular']), kind: str(n['kind']), listKind: str(n['listKind']),
    shortNames: strings(n['shortNames']), categories: strings(n['categories']),
  };
}

export const crdName = (crd: JsonObject): string => str(metadataOf(crd)['name']);
export const groupOf = (crd: JsonObject): string => str(specOfCrd(crd)['group']);
export const isNamespaced = (crd: JsonObject): boolean => specOfCrd(crd)['scope'] === 'Namespaced';

function columnsOf(v: unknown): PrinterColumn[] {
  if (!Array.isArray(v)) return [];
  return v.filter(isObject).map((c) => ({
    name: str(c['name']), type: str(c['type']), format: str(c['format']), description: str(c['description']),
    priority: typeof c['priority'] === 'number' ? c['priority'] : 0, jsonPath: str(c['jsonPath']),
  }));
}

export function versionsOf(crd: JsonObject): CrdVersion[] {
  const versions = specOfCrd(crd)['versions'];
  if (!Array.isArray(versions)) return [];
  return versions.filter(isObject).map((v) => {
    const subresources = obj(v['subresources']);
    const scale = isObject(subresources['scale']) ? subresources['scale'] : undefined;
    const schema = obj(v['schema'])['openAPIV3Schema'];
    const version: CrdVersion = {
      name: str(v['name']), served: v['served'] === true, storage: v['storage'] === true, deprecated: v['deprecated'] === true,
      schema: isObject(schema) ? schema : undefined,
      status: isObject(subresources['status']),
      scale: scale && {
        specReplicasPath: str(scale['specReplicasPath']), statusReplicasPath: str(scale['statusReplicasPath']),
        ...(typeof scale['labelSelectorPath'] === 'string' && scale['labelSelectorPath'] ? { labelSelectorPath: scale['labelSelectorPath'] } : {}),
      },
      columns: columnsOf(v['additionalPrinterColumns']),
    };
    if (typeof v['deprecationWarning'] === 'string') version.deprecationWarning = v['deprecationWarning'];
    return version;
  });
}

export function conditionsOf(crd: JsonObject): Condition[] {
  const c = statusOfCrd(crd)['conditions'];
  return Array.isArray(c) ? (c.filter(isObject) as unknown as Condition[]) : [];
}

export function findCondition(crd: JsonObject, type: string): Condition | undefined {
  return conditionsOf(crd).find((c) => c.type === type);
}

export function isConditionTrue(crd: JsonObject, type: string): boolean {
  return findCondition(crd, type)?.status === 'True';
}

/** Sets a condition in place: replaced when there, appended otherwise; lastTransitionTime moves only when the status does. */
export function setCondition(crd: JsonObject, condition: Condition): void {
  const status = isObject(crd['status']) ? crd['status'] : (crd['status'] = {});
  const list = Array.isArray(status['conditions']) ? (status['conditions'] as unknown as Condition[]) : [];
  const existing = list.find((c) => c.type === condition.type);
  const time = now();
  if (!existing) {
    list.push({ type: condition.type, status: condition.status, lastTransitionTime: time, reason: condition.reason, message: condition.message });
  } else {
    if (existing.status !== condition.status || !existing.lastTransitionTime) existing.lastTransitionTime = time;
    existing.status = condition.status;
    existing.reason = condition.reason;
    existing.message = condition.message;
  }
  status['conditions'] = list as unknown as JsonObject[];
}

/** Whether two conditions say the same (time aside). */
export function sameCondition(a: Condition | undefined, b: Condition | undefined): boolean {
  if (!a || !b) return a === b;
  return a.type === b.type && a.status === b.status && (a.reason ?? '') === (b.reason ?? '') && (a.message ?? '') === (b.message ?? '');
}

export function removeCondition(crd: JsonObject, type: string): void {
  const status = statusOfCrd(crd);
  if (Array.isArray(status['conditions'])) status['conditions'] = (status['conditions'] as JsonObject[]).filter((c) => c['type'] !== type);
}

export function finalizersOf(crd: JsonObject): string[] {
  return strings(metadataOf(crd)['finalizers']);
}

export const namesEqual = (a: unknown, b: unknown): boolean => jsonEqual(namesOf(a), namesOf(b));

/** Groups under the Kubernetes community's review (`*.k8s.io`, `*.kubernetes.io`). */
export function isProtectedGroup(group: string): boolean {
  return group === 'k8s.io' || group.endsWith('.k8s.io') || group === 'kubernetes.io' || group.endsWith('.kubernetes.io');
}

export type ApprovalState = 'Approved' | 'Bypassed' | 'Missing' | 'Invalid';

/** The api-approved.kubernetes.io annotation's state, and the reference's words for it. */
export function approvalState(annotations: unknown): { state: ApprovalState; reason: string } {
  const value = str(obj(annotations)[API_APPROVAL_ANNOTATION]);
  if (value === '') return { state: 'Missing', reason: `protected groups must have approval annotation "${API_APPROVAL_ANNOTATION}", see https://github.com/kubernetes/enhancements/pull/1111` };
  if (value.startsWith('unapproved')) return { state: 'Bypassed', reason: `not approved: "${value}"` };
  if (isRequestUri(value)) return { state: 'Approved', reason: `approved in ${value}` };
  return { state: 'Invalid', reason: `protected groups must have approval annotation "${API_APPROVAL_ANNOTATION}" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111` };
}

/** An absolute URL with a scheme and a host (Go's url.ParseRequestURI with both set). */
function isRequestUri(value: string): boolean {
  try {
    const u = new URL(value);
    return u.protocol.length > 1 && u.host.length > 0;
  } catch {
    return false;
  }
}
