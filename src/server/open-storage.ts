// The store the options name: SQLite in the data folder, memory, or etcd (--etcd-servers), the
// latter with the reference's keys and values (etcd-layout.ts, etcd-values.ts) so kube-apiserver
// and capstan can take turns on one etcd.
import { readFileSync } from 'node:fs';
import { preloadProtobufEncoder } from '../encoding/protobuf-encode.js';
import { builtinDefinitions } from '../registry/builtin/index.js';
import { MemoryStorage } from '../storage/memory.js';
import { SqliteStorage } from '../storage/sqlite.js';
import { RoutedStorage, type StorageRoute } from '../storage/routed.js';
import type { Storage } from '../storage/types.js';
import { readEncryptionConfig } from './encryption-config.js';
import { EtcdKeyLayout } from './etcd-layout.js';
import { overridePrefixes } from './etcd-overrides.js';
import { EtcdValues } from './etcd-values.js';
import type { Options } from './options.js';

type StorageOptions = Pick<
  Options,
  'storage' | 'dataDir' | 'etcdServers' | 'etcdServersOverrides' | 'etcdCafile' | 'etcdCertfile' | 'etcdKeyfile' | 'etcdPrefix' | 'storageMediaType' | 'encryptionProviderConfig' | 'eventTtlMs' | 'etcdCompactionIntervalMs'
>;

/** Groups whose name has no dot (the rest of a key's first segment names a core resource). */
function dotlessGroups(): Set<string> {
  return new Set(builtinDefinitions(() => true).map((d) => d.group).filter((g) => g && !g.includes('.')));
}

/** Events (core's and events.k8s.io's) live --event-ttl after each write, as the reference's. */
function eventTtl(ms: number): (key: string) => number | undefined {
  const seconds = Math.max(1, Math.round(ms / 1000));
  return (key) => (key.startsWith('/registry/events/') || key.startsWith('/registry/events.k8s.io/events/') ? seconds : undefined);
}

export async function openStorage(options: StorageOptions): Promise<Storage> {
  if (options.storage !== 'etcd' && options.etcdServersOverrides.length > 0) {
    throw new Error(`--etcd-servers-overrides: resources can be kept in other etcd servers only with --storage etcd (not ${options.storage})`);
  }
  if (options.storage === 'memory') return new MemoryStorage();
  if (options.storage === 'sqlite') return SqliteStorage.open(`${options.dataDir}/capstan.db`);
  const read = (path: string | undefined): Buffer | undefined => (path ? readFileSync(path) : undefined);
  // Read first: a bad file refuses the start before etcd is asked anything.
  const encryption = options.encryptionProviderConfig ? readEncryptionConfig(options.encryptionProviderConfig) : undefined;
  const keys = EtcdKeyLayout.reference();
  // The Protobuf messages (about a second to load) before the first write rather than during it.
  if (options.storageMediaType !== 'application/json') preloadProtobufEncoder();
  const values = new EtcdValues({
    prefix: options.etcdPrefix,
    keys,
    groups: dotlessGroups(),
    encoding: options.storageMediaType === 'application/json' ? 'json' : 'protobuf',
    encryption,
  });
  // Loaded only here: gRPC and Protobuf stay out of servers that do not use etcd.
  const { EtcdStorage } = await import('../storage/etcd/storage.js');
  // Every etcd with the same layout, values, TLS and prefix, as the reference's overrides share them.
  const openEtcd = async (endpoints: string[], flagText: string): Promise<Storage> => {
    try {
      return await EtcdStorage.open({
        endpoints,
        tls: { ca: read(options.etcdCafile), cert: read(options.etcdCertfile), key: read(options.etcdKeyfile) },
        prefix: options.etcdPrefix,
        // Keys are /registry/… (the reference's layout); the prefix flag stands in for that root.
        root: '/registry',
        keys,
        codec: values,
        ttlSecondsOf: eventTtl(options.eventTtlMs),
        compactionIntervalMs: options.etcdCompactionIntervalMs,
      });
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new Error(`${flagText}: no etcd answered (${reason})`);
    }
  };
  const primary = await openEtcd(options.etcdServers, `--etcd-servers ${options.etcdServers.join(',')}`);
  if (options.etcdServersOverrides.length === 0) return primary;
  const opened: Storage[] = [primary];
  try {
    // Overrides naming the same servers share one client (and one revision), as one etcd.
    const byServers = new Map<string, Storage>();
    const routes: StorageRoute[] = [];
    for (const override of options.etcdServersOverrides) {
      const id = override.servers.join(';');
      let store = byServers.get(id);
      if (!store) {
        store = await openEtcd(override.servers, `--etcd-servers-overrides ${override.group}/${override.resource}#${id}`);
        byServers.set(id, store);
        opened.push(store);
      }
      for (const prefix of overridePrefixes(override)) routes.push({ prefix, storage: store });
    }
    return new RoutedStorage(primary, routes);
  } catch (err) {
    await Promise.all(opened.map((s) => s.close()));
    throw err;
  }
}
