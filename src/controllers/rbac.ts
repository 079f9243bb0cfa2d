// RBAC bootstrap and aggregation, as clients of the registry: the reference's default roles and
// bindings are created at start (and brought back in line when they carry the autoupdate
// annotation), and ClusterRoles with an aggregationRule keep the union of the rules they select.
import type { ResourceDefinitions, ResourceInfo } from '../registry/definitions.js';
import { aggregatedRules, type Role } from '../auth/rbac.js';
import { bootstrapPolicy } from '../auth/rbac-bootstrap.js';
import { metadataOf } from '../registry/objects.js';
import { SYSTEM_WRITER, type Registry } from '../registry/store.js';
import { type JsonObject, jsonEqual } from '../json.js';

const GROUP = 'rbac.authorization.k8s.io';

function info(catalog: ResourceDefinitions, resource: string): ResourceInfo {
  return catalog.lookup(GROUP, 'v1', resource)!;
}

function withTypeMeta(kind: string, obj: object): JsonObject {
  return { apiVersion: `${GROUP}/v1`, kind, ...(obj as JsonObject) };
}

/** Creates what is missing; updates what is marked autoupdate and differs. Idempotent. */
export async function reconcileBootstrapPolicy(registry: Registry): Promise<void> {
  const policy = bootstrapPolicy();
  const catalog = registry.definitions;
  const sets: Array<[ResourceInfo, string, object[]]> = [
    [info(catalog, 'clusterroles'), 'ClusterRole', policy.clusterRoles],
    [info(catalog, 'clusterrolebindings'), 'ClusterRoleBinding', policy.clusterRoleBindings],
    [info(catalog, 'roles'), 'Role', policy.roles],
    [info(catalog, 'rolebindings'), 'RoleBinding', policy.roleBindings],
  ];
  // In parallel: the writes of a first start then share a few group commits.
  await Promise.all(sets.flatMap(([resource, kind, objects]) => objects.map(async (raw) => {
    {
      const desired = withTypeMeta(kind, raw);
      const meta = metadataOf(desired);
      const ns = resource.namespaced ? String(meta['namespace']) : undefined;
      const name = String(meta['name']);
      const live = await registry.getObject(resource, ns, name);
      if (!live) {
        await registry.create(resource, ns, desired, SYSTEM_WRITER);
        return;
      }
      const annotations = (metadataOf(live)['annotations'] ?? {}) as Record<string, string>;
      if (annotations['rbac.authorization.kubernetes.io/autoupdate'] === 'false') return;
      const field = kind.endsWith('Binding') ? 'subjects' : 'rules';
      // Aggregated roles' rules are the aggregation controller's.
      if (field === 'rules' && (desired as { aggregationRule?: unknown }).aggregationRule) return;
      if (!jsonEqual(live[field] ?? null, desired[field] ?? null)) {
        await registry.patch(resource, ns, name, (current) => ({ ...current, [field]: desired[field] }), undefined, SYSTEM_WRITER);
      }
    }
  })));
}

/** Recomputes every aggregated ClusterRole; returns how many changed. */
export async function aggregateClusterRoles(registry: Registry): Promise<number> {
  const clusterRoles = info(registry.definitions, 'clusterroles');
  const informer = await registry.informer(clusterRoles);
  let changed = 0;
  // Aggregated roles may select other aggregated roles (admin ⊇ edit ⊇ view): repeat until stable.
  for (let round = 0; round < 5; round++) {
    const all = informer.list() as unknown as Role[];
    let changedThisRound = 0;
    for (const role of all) {
      if (!role.aggregationRule) continue;
      const rules = aggregatedRules(role, all);
      if (jsonEqual(role.rules ?? [], rules)) continue;
      await registry.patch(clusterRoles, undefined, role.metadata.name, (current) => ({ ...current, rules }), undefined, { manager: 'clusterrole-aggregation-controller' });
      changedThisRound++;
    }
    changed += changedThisRound;
    if (changedThisRound === 0) break;
  }
  return changed;
}

/** Keeps aggregated ClusterRoles current as ClusterRoles change. */
export async function startAggregationController(registry: Registry): Promise<{ stop(): void }> {
  const informer = await registry.informer(info(registry.definitions, 'clusterroles'));
  let pending: NodeJS.Timeout | undefined;
  const changed = () => {
    clearTimeout(pending);
    pending = setTimeout(() => {
      aggregateClusterRoles(registry).catch((err: unknown) => console.error('clusterrole aggregation failed:', err));
    }, 10);
  };
  const subscription = informer.subscribe({
    added: changed,
    updated: (role, old) => {
      // Our own updates show up here too; aggregation is idempotent, so they settle at once.
      if (jsonEqual(old.object['rules'], role.object['rules']) && jsonEqual(metadataOf(old.object)['labels'], metadataOf(role.object)['labels'])) return;
      changed();
    },
    deleted: changed,
  }, { replay: false });
  const stop = () => {
    subscription.stop();
    clearTimeout(pending);
  };
  // Following from before the first pass: a change made meanwhile brings another.
  await aggregateClusterRoles(registry).catch((err: unknown) => {
    stop();
    throw err;
  });
  return { stop };
}
