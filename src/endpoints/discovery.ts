// Discovery documents (/api, /api/v1, /apis, /apis/{g}, /apis/{g}/{v}), shaped as the reference's.
// They depend only on the resource definitions: each is serialized once, and again after the set
// of definitions changed.
import type { ResourceDefinitions, ResourceInfo } from '../registry/definitions.js';

export interface DiscoveryOptions {
  /** host:port clients are told to use (APIVersions.serverAddressByClientCIDRs). */
  serverAddress: string;
}

function resourceEntries(list: readonly ResourceInfo[], group: string, version: string): object[] {
  const out: Array<{ name: string; entry: object }> = [];
  for (const r of list) {
    out.push({
      name: r.resource,
      entry: {
        name: r.resource,
        singularName: r.singularName,
        namespaced: r.namespaced,
        kind: r.kind,
        verbs: r.verbs,
        shortNames: r.shortNames,
        categories: r.categories,
        storageVersionHash: r.storageVersionHash,
      },
    });
    for (const sub of r.subresources.values()) {
      const otherGroupVersion = sub.group !== group || sub.version !== version;
      const name = `${r.resource}/${sub.name}`;
      out.push({
        name,
        entry: {
          name,
          singularName: '',
          namespaced: r.namespaced,
          group: otherGroupVersion ? sub.group : undefined,
          version: otherGroupVersion ? sub.version : undefined,
          kind: sub.kind,
          verbs: sub.verbs,
        },
      });
    }
  }
  out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return out.map((o) => o.entry);
}

function groupVersionRef(group: string, version: string): { groupVersion: string; version: string } {
  return { groupVersion: `${group}/${version}`, version };
}

export class Discovery {
  private docs = new Map<string, Buffer>();
  private builtAt = -1;

  constructor(private readonly definitions: ResourceDefinitions, private readonly options: DiscoveryOptions) {}

  private build(): void {
    const { definitions: catalog, options } = this;
    this.docs = new Map();
    this.builtAt = catalog.generation;
    const put = (path: string, doc: object) => this.docs.set(path, Buffer.from(JSON.stringify(doc)));
    const core = catalog.group('');
    put('/api', {
      kind: 'APIVersions',
      versions: core?.versions ?? [],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: options.serverAddress }],
    });
    for (const v of core?.versions ?? []) {
      put(`/api/${v}`, { kind: 'APIResourceList', groupVersion: v, resources: resourceEntries(catalog.resources('', v) ?? [], '', v) });
    }
    const groups = [];
    for (const g of catalog.groups()) {
      if (g.name === '') continue;
      const doc = {
        name: g.name,
        versions: g.versions.map((v) => groupVersionRef(g.name, v)),
        preferredVersion: groupVersionRef(g.name, g.versions[0]!),
      };
      groups.push(doc);
      put(`/apis/${g.name}`, { kind: 'APIGroup', apiVersion: 'v1', ...doc });
      for (const v of g.versions) {
        put(`/apis/${g.name}/${v}`, {
          kind: 'APIResourceList',
          apiVersion: 'v1',
          groupVersion: `${g.name}/${v}`,
          resources: resourceEntries(catalog.resources(g.name, v) ?? [], g.name, v),
        });
      }
    }
    put('/apis', { kind: 'APIGroupList', apiVersion: 'v1', groups });
  }

  /** The serialized document for a discovery path (without trailing slash), if there is one. */
  document(path: string): Buffer | undefined {
    if (this.builtAt !== this.definitions.generation) this.build();
    return this.docs.get(path);
  }
}
