// What a controller expects to see after its own writes (the reference's ControllerExpectations):
// the creations and deletions it made that its informer has not shown it yet. While any are
// pending, the controller does not act on its (stale) view again, so a burst of events does not
// make it create or delete twice. Expectations expire after 5 minutes, as the reference's.
const TTL_MS = 5 * 60_000;

interface Pending {
  adds: number;
  /** Keys of objects whose deletion has not been seen yet. */
  deletes: Set<string>;
  at: number;
}

export class Expectations {
  private readonly pending = new Map<string, Pending>();

  /** Whether the controller of `key` may act on what it sees. */
  satisfied(key: string): boolean {
    const p = this.pending.get(key);
    if (!p) return true;
    if ((p.adds <= 0 && p.deletes.size === 0) || Date.now() - p.at > TTL_MS) {
      this.pending.delete(key);
      return true;
    }
    return false;
  }

  expectCreations(key: string, count: number): void {
    const p = this.entry(key);
    p.adds += count;
  }

  expectDeletions(key: string, objectKeys: string[]): void {
    const p = this.entry(key);
    for (const k of objectKeys) p.deletes.add(k);
  }

  /** A creation seen (or one that failed, so will never be seen). */
  created(key: string): void {
    const p = this.pending.get(key);
    if (p && p.adds > 0) p.adds--;
  }

  /** A deletion seen (or one that failed). */
  deleted(key: string, objectKey: string): void {
    this.pending.get(key)?.deletes.delete(objectKey);
  }

  forget(key: string): void {
    this.pending.delete(key);
  }

  private entry(key: string): Pending {
    let p = this.pending.get(key);
    if (!p || Date.now() - p.at > TTL_MS) {
      p = { adds: 0, deletes: new Set(), at: Date.now() };
      this.pending.set(key, p);
    }
    p.at = Date.now();
    return p;
  }
}
