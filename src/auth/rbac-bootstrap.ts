// The bootstrap RBAC policy kube-apiserver 1.25 creates at start (and reconciles): the default
// ClusterRoles, ClusterRoleBindings, and the Roles and RoleBindings in kube-system and kube-public.
//
// This is data: the rules as the reference stores them. Sources (public YAML dumps of the policy,
// `kubectl get clusterroles -o yaml` shape, in forks of github.com/kubernetes/kubernetes under
// plugin/pkg/auth/authorizer/rbac/bootstrappolicy/testdata/):
// - cluster-roles.yaml, cluster-role-bindings.yaml, namespace-roles.yaml, namespace-role-bindings.yaml:
//   translatecn/kubernetes @ ac57958046c65943b60f6a67e5345bdeb8c63c9d (a 1.26-era tree; that fork
//   renamed "kube-scheduler" to "kube-over_scheduler" in places, undone here; `/metrics/slis`, added
//   to system:monitoring after 1.25, left out). Cross-checked against shawnhanx/kubernetes @ 578f1d2
//   (no /metrics/slis), logicalhan/kubernetes @ 5b74c8c and kubernetes/kubernetes @ 025f283.
// - controller-roles.yaml, controller-role-bindings.yaml: checkpoint-restore/kubernetes @ bbc6a3f /
//   e95b42f (a recent tree); the controllers added after 1.25 are left out (device-taint-eviction,
//   legacy-service-account-token-cleaner, resource-claim, selinux-warning, service-cidrs,
//   validatingadmissionpolicy-status, volumeattributesclass-protection, and that fork's own
//   podcheckpoint/podrestore). Individual controller rules may differ slightly from 1.25's.
//
// Rules are written compactly: r(verbs, apiGroups, resources, resourceNames?) with `|` between
// items (`''` alone is the core group), u(verbs, urls) for non-resource rules.
import type { PolicyRule, Role, RoleBinding, Subject } from './rbac.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const LABELS = (): Record<string, string> => ({ 'kubernetes.io/bootstrapping': 'rbac-defaults' });
const ANNOTATIONS = (): Record<string, string> => ({ 'rbac.authorization.kubernetes.io/autoupdate': 'true' });
const AGG = 'rbac.authorization.k8s.io/aggregate-to-';

const list = (s: string): string[] => s.split('|');

function r(verbs: string, groups: string, resources: string, names?: string): PolicyRule {
  const rule: PolicyRule = { verbs: list(verbs), apiGroups: list(groups), resources: list(resources) };
  if (names) rule.resourceNames = list(names);
  return rule;
}

function u(verbs: string, urls: string): PolicyRule {
  return { verbs: list(verbs), nonResourceURLs: list(urls) };
}

function clusterRole(name: string, rules: PolicyRule[] | null, extraLabels: Record<string, string> = {}, aggregateFrom?: string): Role {
  const role: Role = { metadata: { name, labels: { ...LABELS(), ...extraLabels }, annotations: ANNOTATIONS() }, rules };
  if (aggregateFrom) role.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { [AGG + aggregateFrom]: 'true' } }] };
  return role;
}

function role(namespace: string, name: string, rules: PolicyRule[]): Role {
  return { metadata: { name, namespace, labels: LABELS(), annotations: ANNOTATIONS() }, rules };
}

const user = (name: string): Subject => ({ apiGroup: RBAC_GROUP, kind: 'User', name });
const group = (name: string): Subject => ({ apiGroup: RBAC_GROUP, kind: 'Group', name });
const sa = (namespace: string, name: string): Subject => ({ kind: 'ServiceAccount', name, namespace });

function clusterRoleBinding(name: string, roleName: string, subjects: Subject[] | undefined): RoleBinding {
  const b: RoleBinding = { metadata: { name, labels: LABELS(), annotations: ANNOTATIONS() }, roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: roleName } };
  if (subjects) b.subjects = subjects;
  return b;
}

function roleBinding(namespace: string, name: string, roleName: string, subjects: Subject[]): RoleBinding {
  return { metadata: { name, namespace, labels: LABELS(), annotations: ANNOTATIONS() }, roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: roleName }, subjects };
}

const EVENTS = () => r('create|patch|update', '|events.k8s.io', 'events');
const RW = 'create|delete|deletecollection|patch|update';
const READ = 'get|list|watch';

function clusterRoles(): Role[] {
  return [
    clusterRole('admin', null, {}, 'admin'),
    clusterRole('cluster-admin', [r('*', '*', '*'), u('*', '*')]),
    clusterRole('edit', null, { [AGG + 'admin']: 'true' }, 'edit'),
    clusterRole(
      'system:aggregate-to-admin',
      [r('create', 'authorization.k8s.io', 'localsubjectaccessreviews'), r('create|delete|deletecollection|get|list|patch|update|watch', RBAC_GROUP, 'rolebindings|roles')],
      { [AGG + 'admin']: 'true' },
    ),
    clusterRole(
      'system:aggregate-to-edit',
      [
        r(READ, '', 'pods/attach|pods/exec|pods/portforward|pods/proxy|secrets|services/proxy'),
        r('impersonate', '', 'serviceaccounts'),
        r(RW, '', 'pods|pods/attach|pods/exec|pods/portforward|pods/proxy'),
        r('create', '', 'pods/eviction'),
        r(RW, '', 'configmaps|events|persistentvolumeclaims|replicationcontrollers|replicationcontrollers/scale|secrets|serviceaccounts|services|services/proxy'),
        r('create', '', 'serviceaccounts/token'),
        r(RW, 'apps', 'daemonsets|deployments|deployments/rollback|deployments/scale|replicasets|replicasets/scale|statefulsets|statefulsets/scale'),
        r(RW, 'autoscaling', 'horizontalpodautoscalers'),
        r(RW, 'batch', 'cronjobs|jobs'),
        r(RW, 'extensions', 'daemonsets|deployments|deployments/rollback|deployments/scale|ingresses|networkpolicies|replicasets|replicasets/scale|replicationcontrollers/scale'),
        r(RW, 'policy', 'poddisruptionbudgets'),
        r(RW, 'networking.k8s.io', 'ingresses|networkpolicies'),
        r('create|delete|deletecollection|get|list|patch|update|watch', 'coordination.k8s.io', 'leases'),
      ],
      { [AGG + 'edit']: 'true' },
    ),
    clusterRole(
      'system:aggregate-to-view',
      [
        r(READ, '', 'configmaps|endpoints|persistentvolumeclaims|persistentvolumeclaims/status|pods|replicationcontrollers|replicationcontrollers/scale|serviceaccounts|services|services/status'),
        r(READ, '', 'bindings|events|limitranges|namespaces/status|pods/log|pods/status|replicationcontrollers/status|resourcequotas|resourcequotas/status'),
        r(READ, '', 'namespaces'),
        r(READ, 'discovery.k8s.io', 'endpointslices'),
        r(READ, 'apps', 'controllerrevisions|daemonsets|daemonsets/status|deployments|deployments/scale|deployments/status|replicasets|replicasets/scale|replicasets/status|statefulsets|statefulsets/scale|statefulsets/status'),
        r(READ, 'autoscaling', 'horizontalpodautoscalers|horizontalpodautoscalers/status'),
        r(READ, 'batch', 'cronjobs|cronjobs/status|jobs|jobs/status'),
        r(READ, 'extensions', 'daemonsets|daemonsets/status|deployments|deployments/scale|deployments/status|ingresses|ingresses/status|networkpolicies|replicasets|replicasets/scale|replicasets/status|replicationcontrollers/scale'),
        r(READ, 'policy', 'poddisruptionbudgets|poddisruptionbudgets/status'),
        r(READ, 'networking.k8s.io', 'ingresses|ingresses/status|networkpolicies'),
      ],
      { [AGG + 'view']: 'true' },
    ),
    clusterRole('system:auth-delegator', [r('create', 'authentication.k8s.io', 'tokenreviews'), r('create', 'authorization.k8s.io', 'subjectaccessreviews')]),
    clusterRole('system:basic-user', [r('create', 'authorization.k8s.io', 'selfsubjectaccessreviews|selfsubjectrulesreviews')]),
    clusterRole('system:certificates.k8s.io:certificatesigningrequests:nodeclient', [r('create', 'certificates.k8s.io', 'certificatesigningrequests/nodeclient')]),
    clusterRole('system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', [r('create', 'certificates.k8s.io', 'certificatesigningrequests/selfnodeclient')]),
    clusterRole('system:certificates.k8s.io:kube-apiserver-client-approver', [r('approve', 'certificates.k8s.io', 'signers', 'kubernetes.io/kube-apiserver-client')]),
    clusterRole('system:certificates.k8s.io:kube-apiserver-client-kubelet-approver', [r('approve', 'certificates.k8s.io', 'signers', 'kubernetes.io/kube-apiserver-client-kubelet')]),
    clusterRole('system:certificates.k8s.io:kubelet-serving-approver', [r('approve', 'certificates.k8s.io', 'signers', 'kubernetes.io/kubelet-serving')]),
    clusterRole('system:certificates.k8s.io:legacy-unknown-approver', [r('approve', 'certificates.k8s.io', 'signers', 'kubernetes.io/legacy-unknown')]),
    clusterRole('system:discovery', [u('get', '/api|/api/*|/apis|/apis/*|/healthz|/livez|/openapi|/openapi/*|/readyz|/version|/version/')]),
    clusterRole('system:heapster', [r(READ, '', 'events|namespaces|nodes|pods'), r(READ, 'extensions', 'deployments')]),
    clusterRole('system:kube-aggregator', [r(READ, '', 'endpoints|services')]),
    clusterRole('system:kube-controller-manager', [
      EVENTS(),
      r('create', 'coordination.k8s.io', 'leases'),
      r('get|update', 'coordination.k8s.io', 'leases', 'kube-controller-manager'),
      r('create', '', 'endpoints'),
      r('get|update', '', 'endpoints', 'kube-controller-manager'),
      r('create', '', 'secrets|serviceaccounts'),
      r('delete', '', 'secrets'),
      r('get', '', 'configmaps|namespaces|secrets|serviceaccounts'),
      r('update', '', 'secrets|serviceaccounts'),
      r('create', 'authentication.k8s.io', 'tokenreviews'),
      r('create', 'authorization.k8s.io', 'subjectaccessreviews'),
      r('list|watch', '*', '*'),
      r('create', '', 'serviceaccounts/token'),
    ]),
    clusterRole('system:kube-dns', [r('list|watch', '', 'endpoints|services')]),
    clusterRole('system:kube-scheduler', [
      EVENTS(),
      r('create', 'coordination.k8s.io', 'leases'),
      r('get|update', 'coordination.k8s.io', 'leases', 'kube-scheduler'),
      r('create', '', 'endpoints'),
      r('get|update', '', 'endpoints', 'kube-scheduler'),
      r(READ, '', 'nodes'),
      r('delete|get|list|watch', '', 'pods'),
      r('create', '', 'bindings|pods/binding'),
      r('patch|update', '', 'pods/status'),
      r(READ, '', 'replicationcontrollers|services'),
      r(READ, 'apps|extensions', 'replicasets'),
      r(READ, 'apps', 'statefulsets'),
      r(READ, 'policy', 'poddisruptionbudgets'),
      r(READ, '', 'persistentvolumeclaims|persistentvolumes'),
      r('create', 'authentication.k8s.io', 'tokenreviews'),
      r('create', 'authorization.k8s.io', 'subjectaccessreviews'),
      r(READ, 'storage.k8s.io', 'csinodes'),
      r(READ, '', 'namespaces'),
      r(READ, 'storage.k8s.io', 'csidrivers'),
      r(READ, 'storage.k8s.io', 'csistoragecapacities'),
    ]),
    clusterRole('system:kubelet-api-admin', [r(READ, '', 'nodes'), r('proxy', '', 'nodes'), r('*', '', 'nodes/log|nodes/metrics|nodes/proxy|nodes/spec|nodes/stats')]),
    clusterRole('system:monitoring', [u('get', '/healthz|/healthz/*|/livez|/livez/*|/metrics|/readyz|/readyz/*')]),
    clusterRole('system:node', [
      r('create', 'authentication.k8s.io', 'tokenreviews'),
      r('create', 'authorization.k8s.io', 'localsubjectaccessreviews|subjectaccessreviews'),
      r(READ, '', 'services'),
      r('create|get|list|watch', '', 'nodes'),
      r('patch|update', '', 'nodes/status'),
      r('patch|update', '', 'nodes'),
      r('create|patch|update', '', 'events'),
      r(READ, '', 'pods'),
      r('create|delete', '', 'pods'),
      r('patch|update', '', 'pods/status'),
      r('create', '', 'pods/eviction'),
      r(READ, '', 'configmaps|secrets'),
      r('get', '', 'persistentvolumeclaims|persistentvolumes'),
      r('get', '', 'endpoints'),
      r('create|get|list|watch', 'certificates.k8s.io', 'certificatesigningrequests'),
      r('create|delete|get|patch|update', 'coordination.k8s.io', 'leases'),
      r('get', 'storage.k8s.io', 'volumeattachments'),
      r('create', '', 'serviceaccounts/token'),
      r('get|patch|update', '', 'persistentvolumeclaims/status'),
      r(READ, 'storage.k8s.io', 'csidrivers'),
      r('create|delete|get|patch|update', 'storage.k8s.io', 'csinodes'),
      r(READ, 'node.k8s.io', 'runtimeclasses'),
    ]),
    clusterRole('system:node-bootstrapper', [r('create|get|list|watch', 'certificates.k8s.io', 'certificatesigningrequests')]),
    clusterRole('system:node-problem-detector', [r('get', '', 'nodes'), r('patch', '', 'nodes/status'), EVENTS()]),
    clusterRole('system:node-proxier', [r('list|watch', '', 'endpoints|services'), r(READ, '', 'nodes'), EVENTS(), r('list|watch', 'discovery.k8s.io', 'endpointslices')]),
    clusterRole('system:persistent-volume-provisioner', [
      r('create|delete|get|list|watch', '', 'persistentvolumes'),
      r('get|list|update|watch', '', 'persistentvolumeclaims'),
      r(READ, 'storage.k8s.io', 'storageclasses'),
      r('watch', '', 'events'),
      EVENTS(),
    ]),
    clusterRole('system:public-info-viewer', [u('get', '/healthz|/livez|/readyz|/version|/version/')]),
    clusterRole('system:service-account-issuer-discovery', [u('get', '/.well-known/openid-configuration|/openid/v1/jwks')]),
    clusterRole('system:volume-scheduler', [
      r('get|list|patch|update|watch', '', 'persistentvolumes'),
      r(READ, 'storage.k8s.io', 'storageclasses'),
      r('get|list|patch|update|watch', '', 'persistentvolumeclaims'),
    ]),
    clusterRole('view', null, { [AGG + 'edit']: 'true' }, 'view'),
  ];
}

/** The system:controller:* ClusterRoles (each bound to the kube-system ServiceAccount of the same name). */
function controllerRoles(): Array<[string, PolicyRule[]]> {
  return [
    ['attachdetach-controller', [
      r('list|watch', '', 'persistentvolumeclaims|persistentvolumes'),
      r(READ, '', 'nodes'),
      r('patch|update', '', 'nodes/status'),
      r('list|watch', '', 'pods'),
      EVENTS(),
      r('create|delete|get|list|watch', 'storage.k8s.io', 'volumeattachments'),
      r(READ, 'storage.k8s.io', 'csidrivers'),
      r(READ, 'storage.k8s.io', 'csinodes'),
    ]],
    ['certificate-controller', [
      r('delete|get|list|watch', 'certificates.k8s.io', 'certificatesigningrequests'),
      r('update', 'certificates.k8s.io', 'certificatesigningrequests/approval|certificatesigningrequests/status'),
      r('approve', 'certificates.k8s.io', 'signers', 'kubernetes.io/kube-apiserver-client-kubelet'),
      r('sign', 'certificates.k8s.io', 'signers', 'kubernetes.io/kube-apiserver-client|kubernetes.io/kube-apiserver-client-kubelet|kubernetes.io/kubelet-serving|kubernetes.io/legacy-unknown'),
      r('create', 'authorization.k8s.io', 'subjectaccessreviews'),
      EVENTS(),
    ]],
    ['clusterrole-aggregation-controller', [r('escalate|get|list|patch|update|watch', RBAC_GROUP, 'clusterroles')]],
    ['cronjob-controller', [
      r('get|list|update|watch', 'batch', 'cronjobs'),
      r('create|delete|get|list|patch|update|watch', 'batch', 'jobs'),
      r('update', 'batch', 'cronjobs/status'),
      r('update', 'batch', 'cronjobs/finalizers'),
      r('delete|list|watch', '', 'pods'),
      EVENTS(),
    ]],
    ['daemon-set-controller', [
      r(READ, 'apps|extensions', 'daemonsets'),
      r('update', 'apps|extensions', 'daemonsets/status'),
      r('update', 'apps|extensions', 'daemonsets/finalizers'),
      r('list|watch', '', 'nodes'),
      r('create|delete|list|patch|watch', '', 'pods'),
      r('create', '', 'pods/binding'),
      r('create|delete|get|list|patch|update|watch', 'apps', 'controllerrevisions'),
      EVENTS(),
    ]],
    ['deployment-controller', [
      r('get|list|update|watch', 'apps|extensions', 'deployments'),
      r('update', 'apps|extensions', 'deployments/status'),
      r('update', 'apps|extensions', 'deployments/finalizers'),
      r('create|delete|get|list|patch|update|watch', 'apps|extensions', 'replicasets'),
      r('get|list|update|watch', '', 'pods'),
      EVENTS(),
    ]],
    ['disruption-controller', [
      r(READ, 'apps|extensions', 'deployments'),
      r(READ, 'apps|extensions', 'replicasets'),
      r(READ, '', 'replicationcontrollers'),
      r(READ, 'policy', 'poddisruptionbudgets'),
      r(READ, 'apps', 'statefulsets'),
      r('update', 'policy', 'poddisruptionbudgets/status'),
      r('patch|update', '', 'pods/status'),
      r('get', '*', '*/scale'),
      EVENTS(),
    ]],
    ['endpoint-controller', [
      r(READ, '', 'pods|services'),
      r('create|delete|get|list|update|watch', '', 'endpoints'),
      r('create', '', 'endpoints/restricted'),
      EVENTS(),
    ]],
    ['endpointslice-controller', [
      r(READ, '', 'nodes|pods|services'),
      r('update', '', 'services/finalizers'),
      r('create|delete|get|list|update|watch', 'discovery.k8s.io', 'endpointslices'),
      EVENTS(),
    ]],
    ['endpointslicemirroring-controller', [
      r(READ, '', 'endpoints|services'),
      r('update', '', 'services/finalizers'),
      r('update', '', 'endpoints/finalizers'),
      r('create|delete|get|list|update|watch', 'discovery.k8s.io', 'endpointslices'),
      EVENTS(),
    ]],
    ['ephemeral-volume-controller', [
      r(READ, '', 'pods'),
      r('update', '', 'pods/finalizers'),
      r('create|get|list|watch', '', 'persistentvolumeclaims'),
      EVENTS(),
    ]],
    ['expand-controller', [
      r('get|list|patch|update|watch', '', 'persistentvolumes'),
      r('patch|update', '', 'persistentvolumeclaims/status'),
      r(READ, '', 'persistentvolumeclaims'),
      EVENTS(),
    ]],
    ['generic-garbage-collector', [r('delete|get|list|patch|update|watch', '*', '*'), EVENTS()]],
    ['horizontal-pod-autoscaler', [
      r(READ, 'autoscaling', 'horizontalpodautoscalers'),
      r('update', 'autoscaling', 'horizontalpodautoscalers/status'),
      r('get|update', '*', '*/scale'),
      r('list|watch', '', 'pods'),
      r('list|watch', 'metrics.k8s.io', 'pods'),
      r(READ, 'custom.metrics.k8s.io', '*'),
      r(READ, 'external.metrics.k8s.io', '*'),
      EVENTS(),
    ]],
    ['job-controller', [
      r('get|list|patch|update|watch', 'batch', 'jobs'),
      r('update', 'batch', 'jobs/status'),
      r('update', 'batch', 'jobs/finalizers'),
      r('create|delete|list|patch|watch', '', 'pods'),
      EVENTS(),
    ]],
    ['namespace-controller', [
      r('delete|get|list|watch', '', 'namespaces'),
      r('update', '', 'namespaces/finalize|namespaces/status'),
      r('delete|deletecollection|get|list|watch', '*', '*'),
    ]],
    ['node-controller', [
      r('delete|get|list|patch|update|watch', '', 'nodes'),
      r('patch|update', '', 'nodes/status'),
      r('patch|update', '', 'pods/status'),
      r('delete|get|list|watch', '', 'pods'),
      EVENTS(),
    ]],
    ['persistent-volume-binder', [
      r('create|delete|get|list|update|watch', '', 'persistentvolumes'),
      r('update', '', 'persistentvolumes/status'),
      r('get|list|update|watch', '', 'persistentvolumeclaims'),
      r('update', '', 'persistentvolumeclaims/status'),
      r('create|delete|get|list|watch', '', 'pods'),
      r(READ, 'storage.k8s.io', 'storageclasses'),
      r('list|watch', '', 'nodes'),
      EVENTS(),
      r('watch', '', 'events'),
    ]],
    ['pod-garbage-collector', [r('delete|list|watch', '', 'pods'), r(READ, '', 'nodes'), r('patch', '', 'pods/status')]],
    ['pv-protection-controller', [r('get|list|update|watch', '', 'persistentvolumes'), EVENTS()]],
    ['pvc-protection-controller', [r('get|list|update|watch', '', 'persistentvolumeclaims'), r(READ, '', 'pods'), EVENTS()]],
    ['replicaset-controller', [
      r('get|list|update|watch', 'apps|extensions', 'replicasets'),
      r('update', 'apps|extensions', 'replicasets/status'),
      r('update', 'apps|extensions', 'replicasets/finalizers'),
      r('create|delete|list|patch|watch', '', 'pods'),
      EVENTS(),
    ]],
    ['replication-controller', [
      r('get|list|update|watch', '', 'replicationcontrollers'),
      r('update', '', 'replicationcontrollers/status'),
      r('update', '', 'replicationcontrollers/finalizers'),
      r('create|delete|list|patch|watch', '', 'pods'),
      EVENTS(),
    ]],
    ['resourcequota-controller', [r('list|watch', '*', '*'), r('update', '', 'resourcequotas/status'), EVENTS()]],
    ['root-ca-cert-publisher', [r('create|update', '', 'configmaps'), EVENTS()]],
    ['route-controller', [r('list|watch', '', 'nodes'), r('patch', '', 'nodes/status'), EVENTS()]],
    ['service-account-controller', [r('create', '', 'serviceaccounts'), EVENTS()]],
    ['service-controller', [r(READ, '', 'services'), r('patch|update', '', 'services/status'), r('list|watch', '', 'nodes'), EVENTS()]],
    ['statefulset-controller', [
      r('list|watch', '', 'pods'),
      r(READ, 'apps', 'statefulsets'),
      r('update', 'apps', 'statefulsets/status'),
      r('update', 'apps', 'statefulsets/finalizers'),
      r('create|delete|get|patch|update', '', 'pods'),
      r('create|delete|get|list|patch|update|watch', 'apps', 'controllerrevisions'),
      r('create|get', '', 'persistentvolumeclaims'),
      EVENTS(),
    ]],
    ['ttl-after-finished-controller', [r('delete|get|list|watch', 'batch', 'jobs'), EVENTS()]],
    ['ttl-controller', [r('list|patch|update|watch', '', 'nodes'), EVENTS()]],
  ];
}

function clusterRoleBindings(): RoleBinding[] {
  return [
    clusterRoleBinding('cluster-admin', 'cluster-admin', [group('system:masters')]),
    clusterRoleBinding('system:basic-user', 'system:basic-user', [group('system:authenticated')]),
    clusterRoleBinding('system:discovery', 'system:discovery', [group('system:authenticated')]),
    clusterRoleBinding('system:kube-controller-manager', 'system:kube-controller-manager', [user('system:kube-controller-manager')]),
    clusterRoleBinding('system:kube-dns', 'system:kube-dns', [sa('kube-system', 'kube-dns')]),
    clusterRoleBinding('system:kube-scheduler', 'system:kube-scheduler', [user('system:kube-scheduler')]),
    clusterRoleBinding('system:monitoring', 'system:monitoring', [group('system:monitoring')]),
    // No subjects: the Node authorizer grants nodes their permissions.
    clusterRoleBinding('system:node', 'system:node', undefined),
    clusterRoleBinding('system:node-proxier', 'system:node-proxier', [user('system:kube-proxy')]),
    clusterRoleBinding('system:public-info-viewer', 'system:public-info-viewer', [group('system:authenticated'), group('system:unauthenticated')]),
    clusterRoleBinding('system:service-account-issuer-discovery', 'system:service-account-issuer-discovery', [group('system:serviceaccounts')]),
    clusterRoleBinding('system:volume-scheduler', 'system:volume-scheduler', [user('system:kube-scheduler')]),
  ];
}

function namespacedRoles(): Role[] {
  return [
    role('kube-public', 'system:controller:bootstrap-signer', [r(READ, '', 'configmaps'), r('update', '', 'configmaps', 'cluster-info'), EVENTS()]),
    role('kube-system', 'extension-apiserver-authentication-reader', [r(READ, '', 'configmaps', 'extension-apiserver-authentication')]),
    role('kube-system', 'system::leader-locking-kube-controller-manager', [r('watch', '', 'configmaps'), r('get|update', '', 'configmaps', 'kube-controller-manager')]),
    role('kube-system', 'system::leader-locking-kube-scheduler', [r('watch', '', 'configmaps'), r('get|update', '', 'configmaps', 'kube-scheduler')]),
    role('kube-system', 'system:controller:bootstrap-signer', [r(READ, '', 'secrets')]),
    role('kube-system', 'system:controller:cloud-provider', [r('create|get|list|watch', '', 'configmaps')]),
    role('kube-system', 'system:controller:token-cleaner', [r('delete|get|list|watch', '', 'secrets'), EVENTS()]),
  ];
}

function namespacedRoleBindings(): RoleBinding[] {
  return [
    roleBinding('kube-public', 'system:controller:bootstrap-signer', 'system:controller:bootstrap-signer', [sa('kube-system', 'bootstrap-signer')]),
    roleBinding('kube-system', 'system::extension-apiserver-authentication-reader', 'extension-apiserver-authentication-reader', [user('system:kube-controller-manager'), user('system:kube-scheduler')]),
    roleBinding('kube-system', 'system::leader-locking-kube-controller-manager', 'system::leader-locking-kube-controller-manager', [user('system:kube-controller-manager'), sa('kube-system', 'kube-controller-manager')]),
    roleBinding('kube-system', 'system::leader-locking-kube-scheduler', 'system::leader-locking-kube-scheduler', [user('system:kube-scheduler'), sa('kube-system', 'kube-scheduler')]),
    roleBinding('kube-system', 'system:controller:bootstrap-signer', 'system:controller:bootstrap-signer', [sa('kube-system', 'bootstrap-signer')]),
    roleBinding('kube-system', 'system:controller:cloud-provider', 'system:controller:cloud-provider', [sa('kube-system', 'cloud-provider')]),
    roleBinding('kube-system', 'system:controller:token-cleaner', 'system:controller:token-cleaner', [sa('kube-system', 'token-cleaner')]),
  ];
}

/**
 * The reference 1.25's bootstrap policy, as fresh objects (callers may mutate them). The aggregated
 * ClusterRoles (admin, edit, view) come with `rules: null`, as the reference creates them: the
 * aggregation controller (see aggregatedRules in rbac.ts) fills them in.
 */
export function bootstrapPolicy(): { clusterRoles: Role[]; clusterRoleBindings: RoleBinding[]; roles: Role[]; roleBindings: RoleBinding[] } {
  const controllers = controllerRoles();
  return {
    clusterRoles: [...clusterRoles(), ...controllers.map(([name, rules]) => clusterRole(`system:controller:${name}`, rules))],
    clusterRoleBindings: [
      ...clusterRoleBindings(),
      ...controllers.map(([name]) => clusterRoleBinding(`system:controller:${name}`, `system:controller:${name}`, [sa('kube-system', name)])),
    ],
    roles: namespacedRoles(),
    roleBindings: namespacedRoleBindings(),
  };
}
