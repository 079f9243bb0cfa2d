// Which fields a fieldSelector may name, per resource, as kube-apiserver 1.25 serves them.
//
// The reference decides this in two places, and both are modelled here:
//  1. the *field label conversion* of the served version (which labels are accepted, what each is
//     renamed to, and the error for the rest). A kind without its own conversion gets the default:
//     only metadata.name and metadata.namespace, refused with
//     `"X" is not a known field selector: only "metadata.name", "metadata.namespace"`;
//  2. the resource's *selectable field set* (the values an object is matched against). A label that
//     is accepted but missing from the set compares as "" (the reference's fields.Set.Get).
//
// Sources (facts only, checked with public material): the 1.23 and 1.28 field label conversions
// of core/v1 (Pod, Node, ReplicationController, Event, Namespace, Secret), certificates/v1,
// batch/v1 and events/v1 are identical in the points used here, and a 2022 listing of every
// conversion registered in kubernetes/pkg shows no others besides versions 1.25 no longer serves
// (apps/v1beta1 and v1beta2 StatefulSet, batch/v1beta1, events/v1beta1, certificates/v1beta1).
// Later additions deliberately left out: pods spec.hostNetwork (1.28), services spec.clusterIP and
// spec.type (1.30).
//
// Not confirmed against a live 1.25 server (only against source of neighbouring releases):
//  - apps/v1 registers no conversion, so `status.replicas` on apps/v1 replicasets is refused with
//    the default message even though the ReplicaSet registry's field set has it;
//  - pods accept `status.podIPs` but the pod field set has no such entry, so it compares as "";
//  - the legacy field-set entries no selector can reach (namespaces/persistentvolumes/
//    persistentvolumeclaims "name") are not modelled.

/** How a Go value is rendered into the field set: strings as they are (zero value ""), integers in
 *  decimal (zero value "0"), booleans as "true"/"false" (zero value "false"). */
export type FieldType = 'string' | 'int' | 'bool';

export interface FieldSource {
  /**
   * Dotted paths into the served object (a numeric segment indexes an array), tried in order: the
   * first with a value wins; for strings, an empty string counts as no value (the reference's
   * fallbacks, e.g. an event's source is `source.component`, else its reporting controller).
   * Several paths also let one entry read both the core/v1 and events.k8s.io/v1 shapes of an Event.
   */
  paths: string[];
  type: FieldType;
}

export interface SelectableFieldSpec {
  /**
   * The version's field label conversion: accepted label → field-set name it is matched against.
   * Absent: the default conversion (metadata.name and metadata.namespace, unchanged).
   */
  labels?: Record<string, string>;
  /** The conversion's error for a label it does not accept. Absent: the default message. */
  unsupported?: (label: string) => string;
  /** The resource's field set beyond metadata.name and metadata.namespace. */
  fields: Record<string, FieldSource>;
}

/** Go's %q. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    switch (ch) {
      case '"': out += '\\"'; continue;
      case '\\': out += '\\\\'; continue;
      case '\x07': out += '\\a'; continue;
      case '\b': out += '\\b'; continue;
      case '\f': out += '\\f'; continue;
      case '\n': out += '\\n'; continue;
      case '\r': out += '\\r'; continue;
      case '\t': out += '\\t'; continue;
      case '\v': out += '\\v'; continue;
    }
    if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (ch === ' ' || /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(ch)) out += ch;
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  return `${out}"`;
}

/** The default conversion's refusal (runtime.DefaultMetaV1FieldSelectorConversion). */
export function defaultUnsupported(label: string): string {
  return `${goQuote(label)} is not a known field selector: only "metadata.name", "metadata.namespace"`;
}

/** The wording most conversion functions use. */
const notSupported = (label: string): string => `field label not supported: ${label}`;

const same = (...labels: string[]): Record<string, string> => Object.fromEntries(labels.map((l) => [l, l]));
const str = (...paths: string[]): FieldSource => ({ paths, type: 'string' });

/** Event fields read from either shape: core/v1 (involvedObject, source, reportingComponent) or
 *  events.k8s.io/v1 (regarding, deprecatedSource, reportingController). */
const EVENT_FIELDS: Record<string, FieldSource> = {
  'involvedObject.kind': str('involvedObject.kind', 'regarding.kind'),
  'involvedObject.namespace': str('involvedObject.namespace', 'regarding.namespace'),
  'involvedObject.name': str('involvedObject.name', 'regarding.name'),
  'involvedObject.uid': str('involvedObject.uid', 'regarding.uid'),
  'involvedObject.apiVersion': str('involvedObject.apiVersion', 'regarding.apiVersion'),
  'involvedObject.resourceVersion': str('involvedObject.resourceVersion', 'regarding.resourceVersion'),
  'involvedObject.fieldPath': str('involvedObject.fieldPath', 'regarding.fieldPath'),
  reason: str('reason'),
  // The core/v1 name of the reporting controller.
  reportingComponent: str('reportingComponent', 'reportingController'),
  // source.component, falling back to the reporting controller when empty.
  source: str('source.component', 'deprecatedSource.component', 'reportingComponent', 'reportingController'),
  type: str('type'),
};

// The resources with more than the default, one spec each (registry/builtin's group modules say
// which resource takes which; the others get the default).

export const podFields: SelectableFieldSpec = {
  labels: {
    ...same(
      'metadata.name', 'metadata.namespace', 'spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName',
      'spec.serviceAccountName', 'status.phase', 'status.podIP', 'status.podIPs', 'status.nominatedNodeName',
    ),
    // Old v1 clients' name for spec.nodeName.
    'spec.host': 'spec.nodeName',
  },
  unsupported: notSupported,
  fields: {
    'spec.nodeName': str('spec.nodeName'),
    'spec.restartPolicy': str('spec.restartPolicy'),
    'spec.schedulerName': str('spec.schedulerName'),
    // spec.serviceAccount is the deprecated alias, used when serviceAccountName is empty.
    'spec.serviceAccountName': str('spec.serviceAccountName', 'spec.serviceAccount'),
    'status.phase': str('status.phase'),
    // The primary IP: status.podIP wins, else the first of status.podIPs.
    'status.podIP': str('status.podIP', 'status.podIPs.0.ip'),
    'status.nominatedNodeName': str('status.nominatedNodeName'),
    // status.podIPs: accepted by the conversion, absent from the field set (compares as "").
  },
};

export const nodeFields: SelectableFieldSpec = {
  // No metadata.namespace: nodes are cluster-scoped and the conversion refuses it.
  labels: same('metadata.name', 'spec.unschedulable'),
  unsupported: notSupported,
  fields: { 'spec.unschedulable': { paths: ['spec.unschedulable'], type: 'bool' } },
};

export const replicationControllerFields: SelectableFieldSpec = {
  labels: same('metadata.name', 'metadata.namespace', 'status.replicas'),
  unsupported: notSupported,
  fields: { 'status.replicas': { paths: ['status.replicas'], type: 'int' } },
};

export const coreEventFields: SelectableFieldSpec = {
  labels: same(...Object.keys(EVENT_FIELDS), 'metadata.namespace', 'metadata.name'),
  unsupported: notSupported,
  fields: EVENT_FIELDS,
};

export const namespaceFields: SelectableFieldSpec = {
  labels: same('status.phase', 'metadata.name'),
  unsupported: notSupported,
  fields: { 'status.phase': str('status.phase') },
};

export const secretFields: SelectableFieldSpec = {
  labels: same('type', 'metadata.namespace', 'metadata.name'),
  unsupported: notSupported,
  fields: { type: str('type') },
};

export const certificateSigningRequestFields: SelectableFieldSpec = {
  labels: same('metadata.name', 'spec.signerName'),
  unsupported: notSupported,
  fields: { 'spec.signerName': str('spec.signerName') },
};

export const jobFields: SelectableFieldSpec = {
  labels: same('metadata.name', 'metadata.namespace', 'status.successful'),
  unsupported: (label) => `field label ${goQuote(label)} not supported for batchv1.Job`,
  // The selector says "successful"; the value is the Job's status.succeeded count.
  fields: { 'status.successful': { paths: ['status.succeeded'], type: 'int' } },
};

export const eventFields: SelectableFieldSpec = {
  // events.k8s.io names, mapped to the (shared, core) event field set.
  labels: {
    reason: 'reason',
    'regarding.kind': 'involvedObject.kind',
    'regarding.namespace': 'involvedObject.namespace',
    'regarding.name': 'involvedObject.name',
    'regarding.uid': 'involvedObject.uid',
    'regarding.apiVersion': 'involvedObject.apiVersion',
    'regarding.resourceVersion': 'involvedObject.resourceVersion',
    'regarding.fieldPath': 'involvedObject.fieldPath',
    reportingController: 'reportingComponent',
    type: 'type',
    'metadata.namespace': 'metadata.namespace',
    'metadata.name': 'metadata.name',
  },
  unsupported: notSupported,
  fields: EVENT_FIELDS,
};
