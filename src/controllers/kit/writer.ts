// Who a workload controller writes as: the reference's field manager for everything
// kube-controller-manager writes, and the controller's own service account in kube-system, as
// kube-controller-manager runs with --use-service-account-credentials (its bootstrap roles
// are granted to those accounts). Admission sees that user.
import type { WriteContext } from '../../registry/store.js';

/** The writer of the controller whose service account is `kube-system/<serviceAccount>` (e.g. `replicaset-controller`). */
export function controllerWriter(serviceAccount: string): WriteContext {
  return {
    manager: 'kube-controller-manager',
    user: {
      name: `system:serviceaccount:kube-system:${serviceAccount}`,
      groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
    },
  };
}
