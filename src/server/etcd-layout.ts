// The reference's key layout in etcd (kube-apiserver 1.25), as one table used both ways.
//
// capstan names keys /registry/<resource>/… (core) and /registry/<group>/<resource>/… (the rest).
// The reference keeps built-in resources without their group (/registry/deployments/…), some under
// historical names (minions, services/specs, services/endpoints, controllers, ingress), and
// apiextensions, apiregistration and custom resources with their group. The SQLite and memory
// stores keep capstan's names; only etcd, which the reference shares, gets the reference's.
//
// The table maps a resource's prefix; the rest of the key (namespace, name) is kept. Keys of no
// resource in the table (custom resources, the allocators' ranges/…) are the same in both.
import { builtinDefinitions } from '../registry/builtin/index.js';
import { referenceResourcePath } from '../registry/keys.js';
import type { EtcdKeyMapping } from '../storage/etcd/layout.js';

/**
 * events.k8s.io Events: the reference keeps them as core Events (/registry/events/…). They are not
 * mapped here: written under core's key but fed back by etcd's watch as core Events, they would
 * be lost to their own watch cache. They come to core's key by sharing core Events' storage key in
 * the registry (another change); until then they keep capstan's own key in etcd.
 */
const OWN_KEYS = new Set(['events.k8s.io/events']);

/** Every built-in resource, enabled or not: etcd may hold objects of a group this server does not serve. */
const everyGroupVersion = (): boolean => true;

export class EtcdKeyLayout implements EtcdKeyMapping {
  /** capstan's resource prefix (below /registry) → the reference's. */
  private readonly forward = new Map<string, string>();
  /** The reference's resource prefix → capstan's, longest first. */
  private readonly backward: [string, string][];

  constructor(resources: readonly { group: string; resource: string; builtin: boolean }[]) {
    const back = new Map<string, string>();
    for (const { group, resource, builtin } of resources) {
      const own = group ? `/${group}/${resource}/` : `/${resource}/`;
      const theirs = OWN_KEYS.has(`${group}/${resource}`) ? own : `/${referenceResourcePath(group, resource, builtin)}/`;
      if (own === theirs) continue;
      if (back.has(theirs)) throw new Error(`etcd layout: ${own} and ${back.get(theirs)} would share ${theirs}`);
      this.forward.set(own, theirs);
      back.set(theirs, own);
    }
    this.backward = [...back].sort((a, b) => b[0].length - a[0].length);
  }

  /** The layout of kube-apiserver 1.25's built-in resources. */
  static reference(): EtcdKeyLayout {
    return new EtcdKeyLayout(builtinDefinitions(everyGroupVersion).map((d) => ({ group: d.group, resource: d.resource, builtin: true })));
  }

  toEtcd(key: string): string {
    // /<group>/<resource>/… first (a core resource is never named like a group), then /<resource>/….
    const slash1 = key.indexOf('/', 1);
    if (slash1 < 0) return key;
    const slash2 = key.indexOf('/', slash1 + 1);
    if (slash2 >= 0) {
      const grouped = this.forward.get(key.slice(0, slash2 + 1));
      if (grouped !== undefined) return grouped + key.slice(slash2 + 1);
    }
    const core = this.forward.get(key.slice(0, slash1 + 1));
    return core !== undefined ? core + key.slice(slash1 + 1) : key;
  }

  fromEtcd(etcdKey: string): string {
    for (const [theirs, own] of this.backward) {
      if (etcdKey.startsWith(theirs)) return own + etcdKey.slice(theirs.length);
    }
    return etcdKey;
  }
}
