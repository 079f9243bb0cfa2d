// Back to the first start, for test environments that reuse one server between tests: every key
// the store did not hold when the server became ready is deleted, and every key it held is put
// back as it was (with a new resourceVersion). The changes are ordinary writes, so watch caches,
// controllers and clients' watches follow them as they follow any other; Service allocations
// follow too. Controllers that were still reacting to the tests' objects may write after a pass:
// passes repeat until one finds the store as it was.
import { decodeJson } from '../json.js';
import { StorageError, type Storage, type Stored, type Watcher } from '../storage/types.js';
import { allocatorsOf } from './allocators/service-strategy.js';
import { resourcePrefix } from './keys.js';
import { withResourceVersion } from './objects.js';
import type { Registry } from './store.js';

/** Passes before reset gives up waiting for the controllers to leave the store alone. */
const MAX_PASSES = 5;


/** A write that races with a controller's is taken again by the next pass. */
async function tolerant(write: Promise<Stored>): Promise<Stored | undefined> {
  try {
    return await write;
  } catch (err) {
    if (err instanceof StorageError && (err.code === 'NotFound' || err.code === 'Conflict' || err.code === 'KeyExists')) return undefined;
    throw err;
  }
}

/**
 * The store as the server first became ready, and how to go back to it. Nothing is read when it is
 * taken: a watch of every key from that revision keeps, at each key's first change, what the key
 * held before (the change's previous value; nothing, for a create), so that only what was changed
 * since is held — not a copy of the whole store made at every start.
 */
export class FirstState {
  /**
   * Of each key changed since: its value then (undefined: it did not exist), and once put back,
   * the revision the store holds it at.
   */
  private readonly first = new Map<string, { value: Buffer | undefined; modRevision?: number }>();
  private readonly watcher: Watcher;

  private constructor(storage: Storage, revision: number) {
    this.watcher = storage.watch('', revision, (e) => {
      if (this.first.has(e.key)) return;
      // A change whose previous value the store did not give (none does, but for a create) is left as it is.
      if (e.type === 'create') this.first.set(e.key, { value: undefined });
      else if (e.prevValue) this.first.set(e.key, { value: e.prevValue });
    });
  }

  /** The store as it is now (its current revision). */
  static of(storage: Storage): FirstState {
    return new FirstState(storage, storage.currentRevision());
  }

  stop(): void {
    this.watcher.stop();
  }

  /** Puts the store back; resolves once the server's caches have seen it, with how many keys were changed. */
  async restore(registry: Registry): Promise<number> {
    let changed = 0;
    for (let i = 0; i < MAX_PASSES; i++) {
      const n = await this.pass(registry);
      changed += n;
      await registry.waitForRevision(registry.storage.currentRevision());
      if (n === 0) break;
      // Let controllers that react to these writes take their turn before looking again.
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    return changed;
  }

  /** One pass: what differs from the first state is changed back. Returns how many keys it changed. */
  private async pass(registry: Registry): Promise<number> {
    const storage = registry.storage;
    const allocators = allocatorsOf(registry);
    const services = registry.definitions.lookup('', 'v1', 'services');
    const servicesPrefix = services ? resourcePrefix(services) : undefined;
    const isService = (key: string) => servicesPrefix !== undefined && key.startsWith(servicesPrefix);
    const changed = [...this.first];
    const current = await Promise.all(changed.map(([key]) => storage.get(key)));
    const writes: Array<Promise<void>> = [];
    // Released (what the tests' Services hold) before taken again (what the first ones held).
    const serviceRestores: Buffer[] = [];
    changed.forEach(([key, first], i) => {
      const now = current[i];
      if (now && first.modRevision === now.modRevision) return;
      const service = isService(key);
      if (now && service) allocators?.release(decodeJson(now.value));
      const value = first.value;
      if (value === undefined) {
        if (now) writes.push(tolerant(storage.delete(key, now.modRevision)).then(() => undefined));
        return;
      }
      if (service) serviceRestores.push(value);
      const write = now ? storage.update(key, now.modRevision, (rev) => withResourceVersion(value, rev)) : storage.create(key, (rev) => withResourceVersion(value, rev));
      writes.push(tolerant(write).then((stored) => {
        if (stored) first.modRevision = stored.modRevision;
      }));
    });
    for (const value of serviceRestores) allocators?.restore(decodeJson(value));
    await Promise.all(writes);
    return writes.length;
  }
}
