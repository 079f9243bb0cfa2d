// Every post-start hook of the server, in start order: the server's own first-start objects, then
// the controllers. A new controller is one line here.
import { bootstrap } from '../controllers/bootstrap.js';
import { CsrSigningController } from '../controllers/csr-signing.js';
import { DisruptionController } from '../controllers/disruption.js';
import { GarbageCollector } from '../controllers/gc.js';
import { advertisedAddress, KubernetesServiceController } from '../controllers/kubernetes-service.js';
import { NamespaceDefaults } from '../controllers/namespace-defaults.js';
import { NamespaceController } from '../controllers/namespace.js';
import { PodTermination } from '../controllers/pod-termination.js';
import { ResourceQuotaController } from '../controllers/quota.js';
import { reconcileBootstrapPolicy, startAggregationController } from '../controllers/rbac.js';
import { StorageProtectionController } from '../controllers/storage-protection.js';
import { TokenController } from '../controllers/token.js';
import { signCertificateRequest } from './certs.js';
import { started, task, type HookContext, type PostStartHook } from './hooks.js';

const rbac = (c: HookContext) => c.options.authorizationMode === 'RBAC';

export const POST_START_HOOKS: readonly PostStartHook[] = [
  // The system namespaces and priority classes, before the watch caches start.
  { name: 'system-objects', stage: 'storage', reportsAs: 'bootstrap-controller', create: (c) => task(() => bootstrap(c.serverRegistry)) },
  // The bootstrap policy and aggregation belong to RBAC, as the reference's post-start hook.
  { name: 'rbac/bootstrap-roles', stage: 'caches', reportsAs: 'rbac/bootstrap-roles', create: (c) => (rbac(c) ? task(() => reconcileBootstrapPolicy(c.serverRegistry)) : undefined) },
  { name: 'clusterrole-aggregation', stage: 'caches', create: (c) => (rbac(c) ? started(() => startAggregationController(c.serverRegistry)) : undefined) },
  { name: 'namespace', stage: 'admission', create: (c) => new NamespaceController(c.registry) },
  { name: 'resourcequota', stage: 'admission', create: (c) => new ResourceQuotaController(c.registry) },
  { name: 'garbagecollector', stage: 'admission', create: (c) => (c.options.garbageCollector ? new GarbageCollector(c.registry) : undefined) },
  { name: 'pod-termination', stage: 'admission', create: (c) => new PodTermination(c.registry) },
  { name: 'disruption', stage: 'admission', create: (c) => new DisruptionController(c.registry) },
  { name: 'storage-protection', stage: 'admission', create: (c) => new StorageProtectionController(c.registry) },
  // The cluster CA signs approved requests of the built-in signers (none on a plain-HTTP server).
  { name: 'csrsigning', stage: 'admission', create: (c) => (c.material ? new CsrSigningController(c.registry, (pem, signing) => signCertificateRequest(c.material!, pem, signing)) : undefined) },
  { name: 'serviceaccount-token', stage: 'admission', create: (c) => (c.issuer && c.material ? new TokenController(c.registry, c.issuer, c.material.caCert) : undefined) },
  { name: 'namespace-defaults', stage: 'admission', create: (c) => (c.options.namespaceDefaults ? new NamespaceDefaults(c.registry, c.material?.caCert) : undefined) },
  // The `kubernetes` Service points at the port actually served.
  {
    name: 'kubernetes-service', stage: 'serving', reportsAs: 'bootstrap-controller',
    create: (c) => (c.options.kubernetesService
      ? new KubernetesServiceController(c.registry, {
        clusterIp: c.serviceAllocators.kubernetesServiceIp(), address: advertisedAddress(c.options.advertiseAddress, c.options.bindAddress), port: c.port(),
      })
      : undefined),
  },
];
