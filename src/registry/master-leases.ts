// The servers sharing one store, as the reference's lease endpoint reconciler knows them: each
// keeps a key `/registry/masterleases/<its address>` holding an Endpoints object with that address,
// rewritten at every reconcile, and removed when it stops. The store has no expiring keys, so a
// key counts as live while it keeps changing: one whose revision this server has seen stand still
// for the lease's time (the reference's 15 s) belongs to a server that is gone, and is removed.
// Judged by this server's own clock from when it saw each revision, never by the writer's.
import { encodeJson } from '../json.js';
import { StorageError, type Storage } from '../storage/types.js';

const PREFIX = '/registry/masterleases/';

export class MasterLeases {
  /** Each other server's key: the revision last seen, and when it was first seen. */
  private readonly seen = new Map<string, { revision: number; at: number }>();

  constructor(private readonly storage: Storage, private readonly address: string, private readonly ttlMs = 15_000) {}

  /** Writes this server's key again (made when absent). */
  async renew(): Promise<void> {
    const key = PREFIX + this.address;
    const encode = (revision: number) => encodeJson({
      kind: 'Endpoints', apiVersion: 'v1',
      metadata: { name: this.address, resourceVersion: String(revision), creationTimestamp: null },
      subsets: [{ addresses: [{ ip: this.address }] }],
    });
    for (let attempt = 0; attempt < 3; attempt++) {
      const current = await this.storage.get(key);
      try {
        if (current) await this.storage.update(key, current.modRevision, encode);
        else await this.storage.create(key, encode);
        return;
      } catch (err) {
        // Another server on the same address wrote meanwhile: its write does as well as ours.
        if (err instanceof StorageError && (err.code === 'Conflict' || err.code === 'KeyExists' || err.code === 'NotFound')) continue;
        throw err;
      }
    }
  }

  /** The addresses of the live servers, this one's included, in order; stale keys are removed. */
  async live(): Promise<string[]> {
    const now = Date.now();
    const addresses = new Set([this.address]);
    const listed = await this.storage.list(PREFIX, { latest: true });
    const present = new Set<string>();
    for (const item of listed.items) {
      const address = item.key.slice(PREFIX.length);
      present.add(address);
      if (address === this.address) continue;
      const last = this.seen.get(address);
      if (!last || last.revision !== item.modRevision) {
        this.seen.set(address, { revision: item.modRevision, at: now });
        addresses.add(address);
      } else if (now - last.at < this.ttlMs) {
        addresses.add(address);
      } else {
        await this.storage.delete(item.key, item.modRevision).catch(() => undefined);
        this.seen.delete(address);
      }
    }
    for (const address of [...this.seen.keys()]) if (!present.has(address)) this.seen.delete(address);
    return [...addresses].sort();
  }

  /** Removes this server's key (it stops serving). */
  async remove(): Promise<void> {
    await this.storage.delete(PREFIX + this.address).catch(() => undefined);
  }
}
