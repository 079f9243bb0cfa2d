// API versions 1.25 serves but has deprecated: every request to them gets the reference's warning.

interface Deprecation {
  deprecatedIn: string;
  removedIn: string;
  /** The group-version (and kind) to use instead. */
  replacement: string;
}

const DEPRECATED: Record<string, Deprecation> = {
  'autoscaling/v2beta2/horizontalpodautoscalers': { deprecatedIn: '1.23', removedIn: '1.26', replacement: 'autoscaling/v2 HorizontalPodAutoscaler' },
  'flowcontrol.apiserver.k8s.io/v1beta1/flowschemas': { deprecatedIn: '1.23', removedIn: '1.26', replacement: 'flowcontrol.apiserver.k8s.io/v1beta2 FlowSchema' },
  'flowcontrol.apiserver.k8s.io/v1beta1/prioritylevelconfigurations': { deprecatedIn: '1.23', removedIn: '1.26', replacement: 'flowcontrol.apiserver.k8s.io/v1beta2 PriorityLevelConfiguration' },
  'storage.k8s.io/v1beta1/csistoragecapacities': { deprecatedIn: '1.24', removedIn: '1.27', replacement: 'storage.k8s.io/v1 CSIStorageCapacity' },
};

/** The warning for a request to a deprecated API version's resource, if it is one. */
export function deprecationWarning(info: { group: string; version: string; resource: string; kind: string }): string | undefined {
  const d = DEPRECATED[`${info.group}/${info.version}/${info.resource}`];
  if (!d) return undefined;
  return `${info.group}/${info.version} ${info.kind} is deprecated in v${d.deprecatedIn}+, unavailable in v${d.removedIn}+; use ${d.replacement}`;
}
