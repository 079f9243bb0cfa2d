// What a controller expects its informer to show after its own writes (pods created, finalizers
// removed, pods deleted). Until the informer shows them, counting pods again would count stale
// copies twice, so a sync waits; an expectation not met within a minute is dropped, as the
// reference's expire.
import { metadataOf } from '../../registry/objects.js';
import type { Informer } from '../../registry/informers.js';
import type { JsonObject } from '../../json.js';

const EXPIRY_MS = 60_000;

interface Expected {
  namespace: string;
  name: string;
  met: (pod: JsonObject | undefined) => boolean;
  until: number;
}

function revisionOf(obj: JsonObject): number {
  return Number(metadataOf(obj)['resourceVersion'] ?? 0);
}

export class Expectations {
  private readonly byOwner = new Map<string, Expected[]>();

  private add(owner: string, e: Omit<Expected, 'until'>): void {
    const list = this.byOwner.get(owner) ?? [];
    list.push({ ...e, until: Date.now() + EXPIRY_MS });
    this.byOwner.set(owner, list);
  }

  created(owner: string, namespace: string, name: string): void {
    this.add(owner, { namespace, name, met: (pod) => pod !== undefined });
  }

  /** The object was written at `revision` (or deleted, when it may vanish). */
  written(owner: string, namespace: string, name: string, revision: number): void {
    this.add(owner, { namespace, name, met: (pod) => pod === undefined || revisionOf(pod) >= revision });
  }

  deleted(owner: string, namespace: string, name: string): void {
    this.add(owner, { namespace, name, met: (pod) => pod === undefined || Boolean(metadataOf(pod)['deletionTimestamp']) });
  }

  /** Whether the informer shows everything expected of the owner's writes (those met are forgotten). */
  satisfied(owner: string, informer: Informer): boolean {
    const list = this.byOwner.get(owner);
    if (!list) return true;
    const at = Date.now();
    const left = list.filter((e) => e.until > at && !e.met(informer.get(e.namespace, e.name)));
    if (left.length === 0) this.byOwner.delete(owner);
    else this.byOwner.set(owner, left);
    return left.length === 0;
  }

  forget(owner: string): void {
    this.byOwner.delete(owner);
  }
}
