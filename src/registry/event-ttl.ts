// --event-ttl: Events go away a while after they were last written (the reference's default, 1 h).
// The reference stores each Event with an etcd lease of that length, renewed by every write (as
// capstan's etcd store does); SQLite and memory have no expiring keys, so the server keeps when it saw each Event written (through
// the watch cache) and deletes those not written since for the TTL, with the Event's
// resourceVersion as precondition, so a write that comes meanwhile keeps it. Events there when the
// server started count from the start (their write times are not stored). A delete as the
// reference's lease expiry: a DELETED event to watchers, no admission.
import { StatusError } from '../errors.js';
import type { ResourceInfo } from './definitions.js';
import type { Subscription } from './informers.js';
import type { Registry } from './store.js';

/** How often Events are looked at: a tenth of the TTL, at least every second and at most every minute (as the reference's lease reuse, expiry may come that much late). */
function sweepInterval(ttlMs: number): number {
  return Math.min(60_000, Math.max(1_000, Math.floor(ttlMs / 10)));
}

export class EventExpiry {
  /** Per Event (namespace/name): its resourceVersion and when it was seen written. */
  private readonly written = new Map<string, { resourceVersion: string; at: number }>();
  private subscription: Subscription | undefined;
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> = Promise.resolve();
  private info: ResourceInfo | undefined;

  constructor(private readonly registry: Registry, private readonly ttlMs: number) {}

  async start(): Promise<void> {
    this.info = this.registry.definitions.lookup('', 'v1', 'events');
    if (!this.info) return;
    const seen = (o: { namespace: string | undefined; name: string; object: { metadata?: unknown } }) => {
      const meta = o.object.metadata as { resourceVersion?: string } | undefined;
      this.written.set(`${o.namespace ?? ''}/${o.name}`, { resourceVersion: String(meta?.resourceVersion ?? ''), at: Date.now() });
    };
    this.subscription = (await this.registry.informer(this.info)).subscribe({
      added: seen,
      updated: seen,
      deleted: (o) => void this.written.delete(`${o.namespace ?? ''}/${o.name}`),
    });
    this.timer = setInterval(() => {
      this.sweeping = this.sweeping.then(() => this.sweep()).catch((err: unknown) => console.error('event ttl:', err));
    }, sweepInterval(this.ttlMs));
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.subscription?.stop();
    clearInterval(this.timer);
    await this.sweeping;
  }

  private async sweep(): Promise<void> {
    const cutoff = Date.now() - this.ttlMs;
    for (const [key, { resourceVersion, at }] of [...this.written]) {
      if (at > cutoff) continue;
      const slash = key.indexOf('/');
      try {
        await this.registry.delete(this.info!, key.slice(0, slash), key.slice(slash + 1), { preconditions: { resourceVersion } });
      } catch (err) {
        // Written again (the watch brings the new time) or gone already.
        if (!(err instanceof StatusError && (err.code === 409 || err.code === 404))) throw err;
      }
    }
  }
}
