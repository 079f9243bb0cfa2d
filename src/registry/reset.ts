// Back to the first start, for test environments that reuse one server between tests: every key
// the store did not hold when the server became ready is deleted, and every key it held is put
// back as it was (with a new resourceVersion). The changes are ordinary writes, so watch caches,
// controllers and clients' watches follow them as they follow any other; Service allocations
// follow too. Controllers that were still reacting to the tests' objects may write after a pass:
// passes repeat until one finds the store as it was.
import { decodeJson } from '../json.js';
import { StorageError, type Storage, type Stored } from '../storage/types.js';
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

/** The store as the server first became ready, and how to go back to it. */
export class FirstState {
  /** Each first key's value, and the revision at which the store holds it as it first was. */
  private readonly first: Map<string, { value: Buffer; modRevision: number }>;

  private constructor(items: Stored[]) {
    this.first = new Map(items.map((item) => [item.key, { value: item.value, modRevision: item.modRevision }]));
  }

  static async of(storage: Storage): Promise<FirstState> {
    return new FirstState((await storage.list('')).items);
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
    const { items } = await storage.list('');
    const allocators = allocatorsOf(registry);
    const services = registry.definitions.lookup('', 'v1', 'services');
    const servicesPrefix = services ? resourcePrefix(services) : undefined;
    const isService = (key: string) => servicesPrefix !== undefined && key.startsWith(servicesPrefix);
    const present = new Set<string>();
    const writes: Array<Promise<void>> = [];
    // Released (what the tests' Services hold) before taken again (what the first ones held).
    const serviceRestores: Buffer[] = [];
    const putBack = (key: string, write: Promise<Stored>) => writes.push(tolerant(write).then((stored) => {
      if (stored) this.first.get(key)!.modRevision = stored.modRevision;
    }));
    for (const item of items) {
      present.add(item.key);
      const first = this.first.get(item.key);
      if (first && first.modRevision === item.modRevision) continue;
      const service = isService(item.key);
      if (service) allocators?.release(decodeJson(item.value));
      if (!first) {
        writes.push(tolerant(storage.delete(item.key, item.modRevision)).then(() => undefined));
        continue;
      }
      if (service) serviceRestores.push(first.value);
      putBack(item.key, storage.update(item.key, item.modRevision, (rev) => withResourceVersion(first.value, rev)));
    }
    for (const [key, first] of this.first) {
      if (present.has(key)) continue;
      if (isService(key)) serviceRestores.push(first.value);
      putBack(key, storage.create(key, (rev) => withResourceVersion(first.value, rev)));
    }
    for (const value of serviceRestores) allocators?.restore(decodeJson(value));
    await Promise.all(writes);
    return writes.length;
  }
}
