// The service accounts in kube-system that kube-controller-manager's controllers act as (with
// --use-service-account-credentials, each controller's client is its own account, made when the
// controller starts), bound by the bootstrap policy to the system:controller:<account> roles.
import { StatusError } from '../../errors.js';
import type { Registry } from '../../registry/store.js';
import { controllerEnabled } from './selection.js';

/** Each controller's account, as the reference names them. */
export const CONTROLLER_SERVICE_ACCOUNTS: Readonly<Record<string, string>> = {
  'attachdetach': 'attachdetach-controller', 'bootstrapsigner': 'bootstrap-signer', 'clusterrole-aggregation': 'clusterrole-aggregation-controller',
  'cronjob': 'cronjob-controller', 'csrapproving': 'certificate-controller', 'csrcleaner': 'certificate-controller', 'csrsigning': 'certificate-controller',
  'daemonset': 'daemon-set-controller', 'deployment': 'deployment-controller', 'disruption': 'disruption-controller', 'endpoint': 'endpoint-controller',
  'endpointslice': 'endpointslice-controller', 'endpointslicemirroring': 'endpointslicemirroring-controller', 'ephemeral-volume': 'ephemeral-volume-controller',
  'garbagecollector': 'generic-garbage-collector', 'horizontalpodautoscaling': 'horizontal-pod-autoscaler', 'job': 'job-controller',
  'namespace': 'namespace-controller', 'persistentvolume-binder': 'persistent-volume-binder', 'persistentvolume-expander': 'expand-controller',
  'podgc': 'pod-garbage-collector', 'pv-protection': 'pv-protection-controller', 'pvc-protection': 'pvc-protection-controller',
  'replicaset': 'replicaset-controller', 'replicationcontroller': 'replication-controller', 'resourcequota': 'resourcequota-controller',
  'root-ca-cert-publisher': 'root-ca-cert-publisher', 'serviceaccount': 'service-account-controller', 'statefulset': 'statefulset-controller',
  'tokencleaner': 'token-cleaner', 'ttl': 'ttl-controller', 'ttl-after-finished': 'ttl-after-finished-controller',
};

/** Creates the account of every selected controller that does not have one yet. */
export async function ensureControllerServiceAccounts(registry: Registry, selection: readonly string[]): Promise<void> {
  const info = registry.definitions.lookup('', 'v1', 'serviceaccounts');
  if (!info) return;
  const informer = await registry.informer(info);
  const accounts = new Set(Object.entries(CONTROLLER_SERVICE_ACCOUNTS).filter(([controller]) => controllerEnabled(controller, selection)).map(([, account]) => account));
  // All at once: one commit of the store, not one per account, so the start stays quick.
  await Promise.all([...accounts].filter((name) => !informer.has('kube-system', name)).map(async (name) => {
    try {
      await registry.create(info, 'kube-system', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } }, { manager: 'kube-controller-manager' });
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 409)) throw err;
    }
  }));
}
