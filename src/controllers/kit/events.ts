// Events as kube-controller-manager records them (core/v1, named `<object>.<hex nanoseconds>`,
// `source.component` the controller): the same event again for the same object bumps the first
// one's count and lastTimestamp instead of adding another, and each object may raise at most a
// burst of 25 events, then one per 5 minutes — so a controller stuck on an object never floods
// the store.
import { metadataOf } from '../../registry/objects.js';
import type { Registry, WriteContext } from '../../registry/store.js';
import { type JsonObject, now } from '../../json.js';

export type EventType = 'Normal' | 'Warning';

const BURST = 25;
const REFILL_MS = 5 * 60_000;
/** How many recent events are remembered for counting repeats (the reference's LRU holds 4096). */
const REMEMBERED = 4096;

interface Recorded {
  namespace: string;
  name: string;
  count: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class EventRecorder {
  private readonly recent = new Map<string, Recorded>();
  private readonly buckets = new Map<string, Bucket>();
  private lastNanos = 0n;

  constructor(private readonly registry: Registry, private readonly component: string, private readonly writer: WriteContext) {}

  /** Records an event about `involved` (a whole object with kind and apiVersion); never throws. */
  record(involved: JsonObject, type: EventType, reason: string, message: string): void {
    this.write(involved, type, reason, message).catch((err: unknown) => {
      // As the reference's broadcaster: an event that cannot be written is dropped, not retried forever.
      if (process.env['CAPSTAN_DEBUG_EVENTS']) console.error(`event ${reason} for ${String(metadataOf(involved)['name'])}:`, err);
    });
  }

  private async write(involved: JsonObject, type: EventType, reason: string, message: string): Promise<void> {
    const info = this.registry.definitions.lookup('', 'v1', 'events');
    if (!info) return;
    const meta = metadataOf(involved);
    const namespace = typeof meta['namespace'] === 'string' && meta['namespace'] ? meta['namespace'] : 'default';
    const reference: JsonObject = { kind: involved['kind'], namespace: meta['namespace'], name: meta['name'], uid: meta['uid'], apiVersion: involved['apiVersion'], resourceVersion: meta['resourceVersion'] };
    const objectKey = `${String(meta['uid'] ?? '')}/${String(meta['namespace'] ?? '')}/${String(meta['name'])}`;
    if (!this.allowed(objectKey)) return;
    const key = `${objectKey}\u0000${type}\u0000${reason}\u0000${message}`;
    const time = now();
    const seen = this.recent.get(key);
    if (seen) {
      seen.count++;
      this.remember(key, seen);
      const count = seen.count;
      await this.registry.patch(info, seen.namespace, seen.name, (current) => ({ ...(current as JsonObject), count, lastTimestamp: time }), undefined, this.writer);
      return;
    }
    const name = `${String(meta['name'])}.${this.nanos().toString(16)}`;
    const event: JsonObject = {
      apiVersion: 'v1', kind: 'Event', metadata: { name, namespace },
      involvedObject: Object.fromEntries(Object.entries(reference).filter(([, v]) => v !== undefined && v !== '')),
      reason, message, source: { component: this.component }, firstTimestamp: time, lastTimestamp: time, count: 1, type,
    };
    this.remember(key, { namespace, name, count: 1 });
    await this.registry.create(info, namespace, event, this.writer);
  }

  /** A strictly increasing nanosecond clock, so two events of one object in the same instant get distinct names. */
  private nanos(): bigint {
    const t = BigInt(Date.now()) * 1_000_000n + process.hrtime.bigint() % 1_000_000n;
    this.lastNanos = t > this.lastNanos ? t : this.lastNanos + 1n;
    return this.lastNanos;
  }

  private remember(key: string, value: Recorded): void {
    this.recent.delete(key);
    this.recent.set(key, value);
    if (this.recent.size > REMEMBERED) this.recent.delete(this.recent.keys().next().value as string);
  }

  /** The per-object token bucket. */
  private allowed(objectKey: string): boolean {
    const at = Date.now();
    const bucket = this.buckets.get(objectKey) ?? { tokens: BURST, at };
    bucket.tokens = Math.min(BURST, bucket.tokens + (at - bucket.at) / REFILL_MS);
    bucket.at = at;
    this.buckets.delete(objectKey);
    this.buckets.set(objectKey, bucket);
    if (this.buckets.size > REMEMBERED) this.buckets.delete(this.buckets.keys().next().value as string);
    if (bucket.tokens < 1) return false;
    bucket.tokens--;
    return true;
  }
}
