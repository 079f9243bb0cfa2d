// Every post-start hook of the server, in start order: the server's own first-start objects, then
// the controllers. A new controller is one line here.
import { CrdController } from '../apiextensions/controller.js';
import type { FeatureGates } from '../api/feature-gates.js';
import { CRD_SCHEMA_ENGINE } from '../apiextensions/engine.js';
import type { CrdSchemaEngine } from '../apiextensions/schema-engine.js';
import { withoutValidationRules } from '../apiextensions/validation-rules-gate.js';
import { bootstrapSystemNamespaces, bootstrapSystemPriorityClasses } from '../controllers/bootstrap.js';
import { CsrSigningController } from '../controllers/csr-signing.js';
import { DisruptionController } from '../controllers/disruption.js';
import { PersistentVolumeBinder } from '../controllers/pv-binder/controller.js';
import { HorizontalPodAutoscalerController } from '../controllers/hpa.js';
import { EndpointSliceController } from '../controllers/endpoints/endpoint-slices.js';
import { EndpointsController } from '../controllers/endpoints/endpoints.js';
import { EndpointSliceMirroringController } from '../controllers/endpoints/mirroring.js';
import { StatefulSetController } from '../controllers/statefulset/controller.js';
import { DaemonSetController } from '../controllers/daemonset/controller.js';
import { TtlController } from '../controllers/ttl.js';
import { GarbageCollector } from '../controllers/gc.js';
import { JobController } from '../controllers/jobs/job.js';
import { CronJobController } from '../controllers/cronjob/cronjob.js';
import { PodGcController } from '../controllers/podgc.js';
import { TtlAfterFinishedController } from '../controllers/ttl-after-finished.js';
import { advertisedAddress, KubernetesServiceController } from '../controllers/kubernetes-service.js';
import { NamespaceDefaults } from '../controllers/namespace-defaults.js';
import { ensureControllerServiceAccounts } from '../controllers/kit/service-accounts.js';
import { controllerEnabled } from '../controllers/kit/selection.js';
import { NamespaceController } from '../controllers/namespace.js';
import { PodTermination } from '../controllers/pod-termination.js';
import { REPLICATION_CONTROLLER, ReplicaSetController } from '../controllers/replicaset.js';
import { DeploymentController } from '../controllers/deployment/controller.js';
import { ResourceQuotaController } from '../controllers/quota.js';
import { reconcileBootstrapPolicy, startAggregationController } from '../controllers/rbac.js';
import { StorageProtectionController } from '../controllers/storage-protection.js';
import { TokenController } from '../controllers/token.js';
import { AuthenticationInfoPublisher } from '../aggregator/front-proxy.js';
import { LocalAPIServices } from '../aggregator/local-apiservices.js';
import { MasterLeases } from '../registry/master-leases.js';
import { EventExpiry } from '../registry/event-ttl.js';
import { signCertificateRequest } from './certs.js';
import { ApfConfigProducer } from './flowcontrol/producer.js';
import { started, task, type HookContext, type PostStartHook } from './hooks.js';

const rbac = (c: HookContext) => c.options.authorizationMode === 'RBAC';

/** A task that waits for the informer (the watch cache) of a served resource (none when it is not served). */
function informerOf(c: HookContext, group: string, resource: string) {
  const info = c.registry.definitions.versionsOf(group, resource)[0];
  return info ? task(async () => void (await c.registry.informer(info))) : undefined;
}

export const POST_START_HOOKS: readonly PostStartHook[] = [
  // The system namespaces and priority classes, before the watch caches start.
  { name: 'system-namespaces', stage: 'storage', reportsAs: 'bootstrap-controller', create: (c) => task(() => bootstrapSystemNamespaces(c.serverRegistry)) },
  {
    name: 'system-priority-classes', stage: 'storage', reportsAs: 'scheduling/bootstrap-system-priority-classes',
    create: (c) => (c.serverRegistry.definitions.lookup('scheduling.k8s.io', 'v1', 'priorityclasses') ? task(() => bootstrapSystemPriorityClasses(c.serverRegistry)) : undefined),
  },
  // The watch caches are capstan's informers: every served resource's is started (and has its
  // first list) here. Those of CustomResourceDefinitions and APIServices are what the reference's
  // apiextensions and aggregator informers are.
  { name: 'watch-caches', stage: 'caches', reportsAs: 'generic-apiserver-start-informers', create: (c) => task(() => c.registry.startCaches()) },
  // API Priority and Fairness: its configuration read (and FlowSchema statuses written) before
  // the server answers; the filter has nothing to start. The producer keeps the bootstrap
  // configuration whenever the API is served, whether the filter runs or not (as the reference).
  {
    name: 'apf-config-producer', stage: 'caches', reportsAs: 'priority-and-fairness-config-producer',
    create: (c) => (c.options.apfBootstrap && c.serverRegistry.definitions.definition('flowcontrol.apiserver.k8s.io', 'flowschemas') ? new ApfConfigProducer(c.serverRegistry, c.options.apfBootstrapPeriodMs) : undefined),
  },
  { name: 'apf-config-consumer', stage: 'caches', reportsAs: 'priority-and-fairness-config-consumer', create: (c) => c.flowControl },
  { name: 'apf-filter', stage: 'caches', reportsAs: 'priority-and-fairness-filter', create: (c) => (c.flowControl ? task(async () => {}) : undefined) },
  // The objects counted per resource for the filter's list estimates (recounted by the consumer).
  { name: 'object-count-tracker', stage: 'caches', reportsAs: 'storage-object-count-tracker-hook', create: (c) => (c.flowControl ? task(async () => {}) : undefined) },
  // Without APF, the max-in-flight filter in its place (as the reference's).
  { name: 'max-in-flight-filter', stage: 'caches', reportsAs: 'max-in-flight-filter', create: (c) => (c.flowControl ? undefined : task(async () => {})) },
  { name: 'apiextensions-informers', stage: 'caches', reportsAs: 'start-apiextensions-informers', create: (c) => informerOf(c, 'apiextensions.k8s.io', 'customresourcedefinitions') },
  { name: 'crd-informer-synced', stage: 'caches', reportsAs: 'crd-informer-synced', create: (c) => informerOf(c, 'apiextensions.k8s.io', 'customresourcedefinitions') },
  { name: 'aggregator-informers', stage: 'caches', reportsAs: 'start-kube-aggregator-informers', create: (c) => informerOf(c, 'apiregistration.k8s.io', 'apiservices') },
  // The bootstrap policy and aggregation belong to RBAC, as the reference's post-start hook.
  // Events expire --event-ttl after their last write: on etcd by leases, as the reference's; elsewhere the server deletes them.
  { name: 'event-ttl', stage: 'caches', create: (c) => (c.options.storage === 'etcd' ? undefined : new EventExpiry(c.serverRegistry, c.options.eventTtlMs)) },
  { name: 'rbac/bootstrap-roles', stage: 'caches', reportsAs: 'rbac/bootstrap-roles', create: (c) => (rbac(c) ? task(() => reconcileBootstrapPolicy(c.serverRegistry)) : undefined) },
  { name: 'clusterrole-aggregation', controller: 'clusterrole-aggregation', stage: 'caches', create: (c) => (rbac(c) ? started(() => startAggregationController(c.serverRegistry)) : undefined) },
  // The admission plugins get the request authorizer (CSR approval and signing ask it) before any
  // admitted write.
  {
    name: 'admission-initializer', stage: 'admission', reportsAs: 'start-kube-apiserver-admission-initializer',
    create: (c) => task(async () => {
      if (!c.authorizer) throw new Error('admission is initialized once the authorizer is known');
      c.admissionServices.authorizer = c.authorizer;
    }),
  },
  // CustomResourceDefinitions: their status, cleanup and the resources they define (served before /readyz passes).
  {
    name: 'apiextensions-controllers', stage: 'admission', reportsAs: 'start-apiextensions-controllers',
    create: (c) => (c.registry.definitions.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions') ? new CrdController(c.registry, crdServingEngine(c.featureGates)) : undefined),
  },
  // The aggregation layer: what extension servers trust, the APIServices' availability, the local
  // APIServices (autoregister-completion waits for them). Objects of the server's own, written
  // without admission as the first-start ones (a chain that refuses every write must not stop the start).
  { name: 'authentication-info', stage: 'admission', reportsAs: 'start-cluster-authentication-info-controller', create: (c) => (c.aggregation?.authenticationInfo ? new AuthenticationInfoPublisher(c.serverRegistry, c.aggregation.authenticationInfo) : undefined) },
  { name: 'apiservice-registration', stage: 'admission', reportsAs: 'apiservice-registration-controller', create: (c) => (c.aggregation ? task(async () => {}) : undefined) },
  { name: 'apiservice-availability', stage: 'admission', reportsAs: 'apiservice-status-available-controller', create: (c) => c.aggregation?.aggregator.availability },
  { name: 'apiservice-autoregistration', stage: 'admission', reportsAs: 'kube-apiserver-autoregistration', create: (c) => (c.aggregation && c.options.localApiServices ? new LocalAPIServices(c.serverRegistry) : undefined) },
  // The extension servers' OpenAPI, fetched with their availability (only with a front proxy to ask them through).
  { name: 'apiservice-openapi', stage: 'admission', reportsAs: 'apiservice-openapi-controller', create: (c) => (c.aggregation?.aggregator.downloadsOpenApi ? task(async () => {}) : undefined) },
  { name: 'apiservice-openapiv3', stage: 'admission', reportsAs: 'apiservice-openapiv3-controller', create: (c) => (c.aggregation?.aggregator.downloadsOpenApi ? task(async () => {}) : undefined) },
  { name: 'namespace', controller: 'namespace', stage: 'admission', create: (c) => new NamespaceController(c.registry) },
  { name: 'resourcequota', controller: 'resourcequota', stage: 'admission', create: (c) => new ResourceQuotaController(c.registry) },
  { name: 'garbagecollector', controller: 'garbagecollector', stage: 'admission', create: (c) => (c.options.garbageCollector ? new GarbageCollector(c.registry) : undefined) },
  { name: 'pod-termination', stage: 'admission', managerWork: true, create: (c) => new PodTermination(c.registry) },
  { name: 'disruption', controller: 'disruption', stage: 'admission', create: (c) => new DisruptionController(c.registry) },
  { name: 'replicaset', controller: 'replicaset', stage: 'admission', create: (c) => new ReplicaSetController(c.registry) },
  { name: 'replicationcontroller', controller: 'replicationcontroller', stage: 'admission', create: (c) => new ReplicaSetController(c.registry, REPLICATION_CONTROLLER) },
  { name: 'deployment', controller: 'deployment', stage: 'admission', create: (c) => new DeploymentController(c.registry) },
  { name: 'persistentvolume-binder', controller: 'persistentvolume-binder', stage: 'admission', create: (c) => new PersistentVolumeBinder(c.registry) },
  { name: 'horizontalpodautoscaling', controller: 'horizontalpodautoscaling', stage: 'admission', create: (c) => new HorizontalPodAutoscalerController(c.registry) },
  { name: 'endpoint', controller: 'endpoint', stage: 'admission', create: (c) => new EndpointsController(c.registry) },
  { name: 'endpointslice', controller: 'endpointslice', stage: 'admission', create: (c) => new EndpointSliceController(c.registry) },
  { name: 'endpointslicemirroring', controller: 'endpointslicemirroring', stage: 'admission', create: (c) => new EndpointSliceMirroringController(c.registry) },
  { name: 'job', controller: 'job', stage: 'admission', create: (c) => new JobController(c.registry) },
  { name: 'cronjob', controller: 'cronjob', stage: 'admission', create: (c) => new CronJobController(c.registry) },
  { name: 'ttl-after-finished', controller: 'ttl-after-finished', stage: 'admission', create: (c) => new TtlAfterFinishedController(c.registry) },
  { name: 'podgc', controller: 'podgc', stage: 'admission', create: (c) => new PodGcController(c.registry, { terminatedPodThreshold: c.options.terminatedPodGcThreshold }) },
  { name: 'statefulset', controller: 'statefulset', stage: 'admission', create: (c) => new StatefulSetController(c.registry) },
  { name: 'daemonset', controller: 'daemonset', stage: 'admission', create: (c) => new DaemonSetController(c.registry) },
  { name: 'ttl', controller: 'ttl', stage: 'admission', create: (c) => new TtlController(c.registry) },
  { name: 'storage-protection', stage: 'admission', managerWork: true, create: (c) => new StorageProtectionController(c.registry) },
  // The cluster CA signs approved requests of the built-in signers (none on a plain-HTTP server).
  { name: 'csrsigning', controller: 'csrsigning', stage: 'admission', create: (c) => (c.material ? new CsrSigningController(c.registry, (pem, signing) => signCertificateRequest(c.material!, pem, signing)) : undefined) },
  { name: 'serviceaccount-token', controller: 'serviceaccount-token', stage: 'admission', create: (c) => (c.issuer && c.material ? new TokenController(c.registry, c.issuer, c.material.caCert) : undefined) },
  { name: 'namespace-defaults', stage: 'admission', managerWork: true, create: namespaceDefaults },
  // The service accounts kube-controller-manager's controllers write as (--use-service-account-credentials);
  // made as first-start objects (a chain that refuses every write must not keep the server from starting).
  { name: 'controller-service-accounts', stage: 'admission', create: (c) => (c.options.namespaceDefaults ? task(() => ensureControllerServiceAccounts(c.serverRegistry, c.options.controllers)) : undefined) },
  // The `kubernetes` Service points at the port actually served.
  {
    name: 'kubernetes-service', stage: 'serving', reportsAs: 'bootstrap-controller',
    create: (c) => (c.options.kubernetesService
      ? new KubernetesServiceController(c.registry, {
        clusterIp: c.serviceAllocators.kubernetesServiceIp(), address: advertisedAddress(c.options.advertiseAddress, c.options.bindAddress), port: c.port(),
        // Servers sharing etcd list each other (the reference's lease endpoint reconciler).
        ...(c.options.storage === 'etcd' ? { masterLeases: new MasterLeases(c.registry.storage, advertisedAddress(c.options.advertiseAddress, c.options.bindAddress)) } : {}),
      })
      : undefined),
  },
];

/** The service account controller (the `default` account) and the root CA publisher (`kube-root-ca.crt`), each when selected. */
function namespaceDefaults(c: HookContext): NamespaceDefaults | undefined {
  const serviceAccounts = controllerEnabled('serviceaccount', c.options.controllers);
  const rootCa = controllerEnabled('root-ca-cert-publisher', c.options.controllers);
  if (!c.options.namespaceDefaults || (!serviceAccounts && !rootCa)) return undefined;
  return new NamespaceDefaults(c.registry, serviceAccounts, rootCa ? c.material?.caCert : undefined);
}

/** Custom resources are served without their CRD's validation rules when CustomResourceValidationExpressions is off. */
function crdServingEngine(features: FeatureGates): CrdSchemaEngine {
  return features.enabled('CustomResourceValidationExpressions') ? CRD_SCHEMA_ENGINE : withoutValidationRules(CRD_SCHEMA_ENGINE);
}
