// The discovery priorities of the built-in group-versions, as data: kube-apiserver's table of
// APIService priorities (cmd/kube-apiserver/app/aggregator.go, apiVersionPriorities, in 1.25; the
// rows for versions 1.25 no longer or not yet serves are kept, they are harmless). A built-in
// group-version missing here gets no APIService, as the reference skips it.

export interface Priority {
  /** spec.groupPriorityMinimum: the group's place among groups (higher first). */
  readonly group: number;
  /** spec.versionPriority: the version's place inside its group (higher first). */
  readonly version: number;
}

const TABLE: ReadonlyArray<readonly [group: string, version: string, groupPriority: number, versionPriority: number]> = [
  ['', 'v1', 18000, 1],
  ['apps', 'v1', 17800, 15],
  ['events.k8s.io', 'v1', 17750, 15],
  ['events.k8s.io', 'v1beta1', 17750, 5],
  ['authentication.k8s.io', 'v1', 17700, 15],
  ['authentication.k8s.io', 'v1beta1', 17700, 9],
  ['authentication.k8s.io', 'v1alpha1', 17700, 1],
  ['authorization.k8s.io', 'v1', 17600, 15],
  ['autoscaling', 'v1', 17500, 15],
  ['autoscaling', 'v2', 17500, 30],
  ['autoscaling', 'v2beta1', 17500, 9],
  ['autoscaling', 'v2beta2', 17500, 1],
  ['batch', 'v1', 17400, 15],
  ['batch', 'v1beta1', 17400, 9],
  ['batch', 'v2alpha1', 17400, 9],
  ['certificates.k8s.io', 'v1', 17300, 15],
  ['certificates.k8s.io', 'v1alpha1', 17300, 1],
  ['networking.k8s.io', 'v1', 17200, 15],
  ['networking.k8s.io', 'v1alpha1', 17200, 1],
  ['policy', 'v1', 17100, 15],
  ['policy', 'v1beta1', 17100, 9],
  ['rbac.authorization.k8s.io', 'v1', 17000, 15],
  ['storage.k8s.io', 'v1', 16800, 15],
  ['storage.k8s.io', 'v1beta1', 16800, 9],
  ['storage.k8s.io', 'v1alpha1', 16800, 1],
  ['apiextensions.k8s.io', 'v1', 16700, 15],
  ['admissionregistration.k8s.io', 'v1', 16700, 15],
  ['admissionregistration.k8s.io', 'v1alpha1', 16700, 9],
  ['scheduling.k8s.io', 'v1', 16600, 15],
  ['coordination.k8s.io', 'v1', 16500, 15],
  ['node.k8s.io', 'v1', 16300, 15],
  ['node.k8s.io', 'v1alpha1', 16300, 1],
  ['node.k8s.io', 'v1beta1', 16300, 9],
  ['discovery.k8s.io', 'v1', 16200, 15],
  ['discovery.k8s.io', 'v1beta1', 16200, 12],
  ['flowcontrol.apiserver.k8s.io', 'v1beta2', 16100, 15],
  ['flowcontrol.apiserver.k8s.io', 'v1beta1', 16100, 12],
  ['flowcontrol.apiserver.k8s.io', 'v1alpha1', 16100, 9],
  ['internal.apiserver.k8s.io', 'v1alpha1', 16000, 9],
];

const BY_GROUP_VERSION = new Map(TABLE.map(([g, v, group, version]) => [`${g}/${v}`, { group, version }]));

/** The reference's priority of a built-in group-version; undefined when it has none. */
export function builtinPriority(group: string, version: string): Priority | undefined {
  return BY_GROUP_VERSION.get(`${group}/${version}`);
}

/** The group priority of a built-in group (its versions share one); undefined when it has none. */
export function builtinGroupPriority(group: string): number | undefined {
  return TABLE.find(([g]) => g === group)?.[2];
}

/** What the reference's CRD registration gives every CustomResourceDefinition's group-version. */
export const CRD_PRIORITY: Priority = { group: 1000, version: 100 };

/** An APIService's name: `<version>.<group>` (`v1.` for the core group). */
export function apiServiceName(group: string, version: string): string {
  return `${version}.${group}`;
}
