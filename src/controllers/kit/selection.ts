// kube-controller-manager's --controllers: `*` turns on every controller on by default, `name`
// turns one on, `-name` turns one off (the last word about a name wins over `*`). The names are
// the reference's (1.25); those capstan has no work for (nodes, routes, clouds, volume attach)
// are accepted and run nothing.
export const KNOWN_CONTROLLERS: readonly string[] = [
  'attachdetach', 'bootstrapsigner', 'cloud-node-lifecycle', 'clusterrole-aggregation', 'cronjob', 'csrapproving',
  'csrcleaner', 'csrsigning', 'daemonset', 'deployment', 'disruption', 'endpoint', 'endpointslice',
  'endpointslicemirroring', 'ephemeral-volume', 'garbagecollector', 'horizontalpodautoscaling', 'job', 'namespace',
  'nodeipam', 'nodelifecycle', 'persistentvolume-binder', 'persistentvolume-expander', 'podgc', 'pv-protection',
  'pvc-protection', 'replicaset', 'replicationcontroller', 'resourcequota', 'root-ca-cert-publisher', 'route',
  'service', 'serviceaccount', 'serviceaccount-token', 'statefulset', 'tokencleaner', 'ttl', 'ttl-after-finished',
];

/** Off unless named (the reference's). */
const OFF_BY_DEFAULT = new Set(['bootstrapsigner', 'tokencleaner']);

/**
 * The controllers that act on workloads as kube-controller-manager does. The `kube-apiserver`
 * launcher (what envtest starts, where no controller manager runs) leaves them off unless
 * --controllers names them.
 */
export const WORKLOAD_CONTROLLERS: readonly string[] = [
  'cronjob', 'daemonset', 'deployment', 'endpoint', 'endpointslice', 'endpointslicemirroring', 'horizontalpodautoscaling',
  'job', 'persistentvolume-binder', 'podgc', 'replicaset', 'replicationcontroller', 'statefulset', 'ttl', 'ttl-after-finished',
];

/** Checks a --controllers value as the reference does; throws its message for an unknown name. */
export function parseControllers(text: string): string[] {
  const words = text.split(',').map((s) => s.trim()).filter(Boolean);
  for (const word of words) {
    const name = word.startsWith('-') ? word.slice(1) : word;
    if (name !== '*' && !KNOWN_CONTROLLERS.includes(name)) throw new Error(`"${name}" is not in the list of known controllers`);
  }
  return words;
}

/** Whether `name` runs under the selection (`--controllers` words). */
export function controllerEnabled(name: string, selection: readonly string[]): boolean {
  if (selection.includes(name)) return true;
  if (selection.includes(`-${name}`)) return false;
  return selection.includes('*') && !OFF_BY_DEFAULT.has(name);
}
