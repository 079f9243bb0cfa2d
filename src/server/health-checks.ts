// The checks of /healthz, /livez and /readyz, named and ordered as the reference's. Each is backed
// by a condition of capstan's own; a reference check whose subject capstan does not have (on plain
// HTTP, which has no front proxy: the authentication-info controller and the aggregator's OpenAPI
// controllers) is not listed.
import type { HealthCheck, HealthEndpoint } from './health.js';

/** The reference's checks, in its order (/readyz alone has etcd-readiness, informer-sync and shutdown). */
const REFERENCE_ORDER = [
  'ping',
  'log',
  'etcd',
  'etcd-readiness',
  'informer-sync',
  'poststarthook/start-kube-apiserver-admission-initializer',
  'poststarthook/generic-apiserver-start-informers',
  'poststarthook/priority-and-fairness-config-consumer',
  'poststarthook/priority-and-fairness-filter',
  'poststarthook/max-in-flight-filter',
  'poststarthook/storage-object-count-tracker-hook',
  'poststarthook/start-apiextensions-informers',
  'poststarthook/start-apiextensions-controllers',
  'poststarthook/crd-informer-synced',
  'poststarthook/bootstrap-controller',
  'poststarthook/rbac/bootstrap-roles',
  'poststarthook/scheduling/bootstrap-system-priority-classes',
  'poststarthook/priority-and-fairness-config-producer',
  'poststarthook/start-cluster-authentication-info-controller',
  'poststarthook/start-kube-aggregator-informers',
  'poststarthook/apiservice-registration-controller',
  'poststarthook/apiservice-status-available-controller',
  'poststarthook/kube-apiserver-autoregistration',
  'autoregister-completion',
  'poststarthook/apiservice-openapi-controller',
  'poststarthook/apiservice-openapiv3-controller',
  'shutdown',
];

/** Checks /readyz has and the other two do not. */
const READYZ_ONLY = new Set(['etcd-readiness', 'informer-sync', 'shutdown']);

function rank(name: string): number {
  const at = REFERENCE_ORDER.indexOf(name);
  return at < 0 ? REFERENCE_ORDER.length : at;
}

/**
 * The three endpoints' lists from every check the server has, in the reference's order. On /livez
 * the boot sequence's checks (the post-start hooks) pass until `livezGraceMs` after `startedAt`, as
 * the reference's --livez-grace-period: a slow start is not taken for a dead server.
 */
export function healthEndpoints(checks: readonly HealthCheck[], livezGraceMs = 0, startedAt = performance.now()): Record<HealthEndpoint, HealthCheck[]> {
  const ordered = [...checks].sort((a, b) => rank(a.name) - rank(b.name));
  const common = ordered.filter((c) => !READYZ_ONLY.has(c.name));
  const inGrace = () => performance.now() - startedAt < livezGraceMs;
  const livez = livezGraceMs > 0
    ? common.map((c) => (c.name.startsWith('poststarthook/') ? { name: c.name, check: () => (inGrace() ? undefined : c.check()) } : c))
    : common;
  return { healthz: common, livez, readyz: ordered };
}
