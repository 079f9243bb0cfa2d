// The store the options name: SQLite in the data folder, memory, or etcd (--etcd-servers).
import { readFileSync } from 'node:fs';
import { decodeJson } from '../json.js';
import { encodeKept, metadataOf } from '../registry/objects.js';
import type { Stamp } from '../storage/etcd/storage.js';
import { MemoryStorage } from '../storage/memory.js';
import { SqliteStorage } from '../storage/sqlite.js';
import type { Storage } from '../storage/types.js';
import type { Options } from './options.js';

/**
 * An object's stored bytes with their resourceVersion: etcd holds objects as they were encoded
 * before their revision was known, and each read puts etcd's mod_revision in (see storage/etcd/storage.ts).
 */
export const stampResourceVersion: Stamp = (bytes, revision) => {
  const obj = decodeJson(bytes);
  metadataOf(obj)['resourceVersion'] = String(revision);
  return encodeKept(obj);
};

type StorageOptions = Pick<Options, 'storage' | 'dataDir' | 'etcdServers' | 'etcdCafile' | 'etcdCertfile' | 'etcdKeyfile' | 'etcdPrefix'>;

export async function openStorage(options: StorageOptions): Promise<Storage> {
  if (options.storage === 'memory') return new MemoryStorage();
  if (options.storage === 'sqlite') return SqliteStorage.open(`${options.dataDir}/capstan.db`);
  const read = (path: string | undefined): Buffer | undefined => (path ? readFileSync(path) : undefined);
  // Loaded only here: gRPC and Protobuf stay out of servers that do not use etcd.
  const { EtcdStorage } = await import('../storage/etcd/storage.js');
  try {
    return await EtcdStorage.open({
      endpoints: options.etcdServers,
      tls: { ca: read(options.etcdCafile), cert: read(options.etcdCertfile), key: read(options.etcdKeyfile) },
      prefix: options.etcdPrefix,
      // Keys are /registry/… (the reference's layout); the prefix flag stands in for that root.
      root: '/registry',
      stamp: stampResourceVersion,
    });
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(`--etcd-servers ${options.etcdServers.join(',')}: no etcd answered (${reason})`);
  }
}
