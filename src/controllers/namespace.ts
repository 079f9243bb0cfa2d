// The namespace controller: a terminating namespace (deletionTimestamp set, "kubernetes" in
// spec.finalizers) has every namespaced object of every resource deleted; its status conditions
// say what remains, as the reference's; when nothing remains, the "kubernetes" finalizer is removed
// through namespaces/{name}/finalize and the namespace goes. A client of the registry only.
//
// As kube-controller-manager's, it waits 5 seconds after it sees a terminating namespace (added,
// updated, or found at start) before it works on it: clients that delete a manifest holding its
// own Namespace (`kubectl delete -f`) delete the Namespace first and its objects after, and those
// must still be there. A namespace already waiting keeps its earlier turn; while content remains,
// it is looked at again shortly.
import type { ResourceInfo } from '../registry/definitions.js';
import { StatusError } from '../errors.js';
import { metadataOf } from '../registry/objects.js';
import type { Subscription } from '../registry/informers.js';
import { type Registry, CONTROLLER_WRITER } from '../registry/store.js';
import { type JsonObject, now } from '../json.js';

/** The reference's namespaceDeletionGracePeriod: the wait before a seen terminating namespace is worked on. */
export const NAMESPACE_DELETION_GRACE_MS = 5000;
const RETRY_MS = 500;

interface Remaining {
  /** "configmaps." → count, as the reference lists group-resources. */
  resources: Map<string, number>;
  /** finalizer → count of objects held by it. */
  finalizers: Map<string, number>;
}

function condition(type: string, status: 'True' | 'False', reason: string, message: string): JsonObject {
  return { type, status, lastTransitionTime: now(), reason, message };
}

function describe(counts: Map<string, number>, unit: string): string {
  return [...counts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, n]) => `${k}${unit} ${n} resource instances`).join(', ');
}

export class NamespaceController {
  /** Namespaces waiting for their turn: when it comes, and its timer. */
  private readonly waiting = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  /** Namespaces whose turn has come, worked on one at a time in this order. */
  private readonly due = new Set<string>();
  private working = false;
  private stopped = false;
  private subscription: Subscription | undefined;

  constructor(private readonly registry: Registry, private readonly graceMs = NAMESPACE_DELETION_GRACE_MS) {}

  async start(): Promise<void> {
    const informer = await this.registry.informer(this.namespaces());
    const seen = (ns: JsonObject) => {
      const meta = metadataOf(ns);
      if (meta['deletionTimestamp']) this.enqueueAfter(String(meta['name']), this.graceMs);
    };
    // Replayed first: deletions a restart interrupted wait their turn too, as the reference's initial list.
    this.subscription = informer.subscribe({ added: (o) => seen(o.object), updated: (o) => seen(o.object) });
  }

  stop(): void {
    this.stopped = true;
    this.subscription?.stop();
    for (const { timer } of this.waiting.values()) clearTimeout(timer);
    this.waiting.clear();
  }

  private namespaces(): ResourceInfo {
    return this.registry.definitions.lookup('', 'v1', 'namespaces')!;
  }

  /** The namespace's turn comes in `delayMs`, unless it already comes sooner. */
  private enqueueAfter(name: string, delayMs: number): void {
    if (this.stopped) return;
    const at = Date.now() + delayMs;
    const pending = this.waiting.get(name);
    if (pending && pending.at <= at) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.waiting.delete(name);
      this.due.add(name);
      void this.work();
    }, delayMs);
    this.waiting.set(name, { at, timer });
  }

  /** Works on the namespaces whose turn has come, one at a time; one that is not done comes back. */
  private async work(): Promise<void> {
    if (this.working) return;
    this.working = true;
    try {
      for (const name of this.due) {
        if (this.stopped) return;
        this.due.delete(name);
        let done = false;
        try {
          done = await this.sync(name);
        } catch (err) {
          console.error('namespace controller:', err);
        }
        if (!done) this.enqueueAfter(name, RETRY_MS);
      }
    } finally {
      this.working = false;
    }
  }

  /** One pass over a namespace: true when it needs nothing more (gone, not terminating, or finalized). */
  private async sync(name: string): Promise<boolean> {
    const informer = await this.registry.informer(this.namespaces());
    const ns = informer.get(undefined, name);
    if (!ns || !metadataOf(ns)['deletionTimestamp']) return true;
    return this.finalize(name);
  }

  /** Deletes a namespace's content; true when the namespace could be finalized. */
  private async finalize(name: string): Promise<boolean> {
    const remaining = await this.deleteContent(name);
    const namespaces = this.namespaces();
    const empty = remaining.resources.size === 0;
    const conditions = [
      condition('NamespaceDeletionDiscoveryFailure', 'False', 'ResourcesDiscovered', 'All resources successfully discovered'),
      condition('NamespaceDeletionGroupVersionParsingFailure', 'False', 'ParsedGroupVersions', 'All legacy kube types successfully parsed'),
      condition('NamespaceDeletionContentFailure', 'False', 'ContentDeleted', 'All content successfully deleted, may be waiting on finalization'),
      empty
        ? condition('NamespaceContentRemaining', 'False', 'ContentRemoved', 'All content successfully removed')
        : condition('NamespaceContentRemaining', 'True', 'SomeResourcesRemain', `Some resources are remaining: ${describe(remaining.resources, ' has')}`),
      remaining.finalizers.size === 0
        ? condition('NamespaceFinalizersRemaining', 'False', 'ContentHasNoFinalizers', 'All content-preserving finalizers finished')
        : condition('NamespaceFinalizersRemaining', 'True', 'SomeFinalizersRemain', `Some content in the namespace has finalizers remaining: ${describe(remaining.finalizers, ' in')}`),
    ];
    try {
      await this.registry.patch(namespaces, undefined, name, (current) => {
        const status = (current['status'] ?? {}) as JsonObject;
        const before = (status['conditions'] ?? []) as JsonObject[];
        // A condition keeps its transition time while its status stays the same.
        const merged = conditions.map((c) => {
          const old = before.find((b) => b['type'] === c['type']);
          return old && old['status'] === c['status'] && old['message'] === c['message'] ? old : c;
        });
        return { ...current, status: { ...status, conditions: merged } };
      }, 'status', CONTROLLER_WRITER);
      if (!empty) return false;
      await this.registry.patch(namespaces, undefined, name, (current) => {
        const spec = (current['spec'] ?? {}) as JsonObject;
        const finalizers = ((spec['finalizers'] ?? []) as string[]).filter((f) => f !== 'kubernetes');
        return { ...current, spec: { ...spec, finalizers } };
      }, 'finalize', CONTROLLER_WRITER);
      return true;
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return true;
      throw err;
    }
  }

  private async deleteContent(namespace: string): Promise<Remaining> {
    const remaining: Remaining = { resources: new Map(), finalizers: new Map() };
    const seen = new Set<string>();
    for (const info of this.registry.definitions.all()) {
      if (!info.namespaced || !info.verbs.includes('delete') || !info.verbs.includes('list')) continue;
      const storeInfo = this.registry.storageInfo(info);
      const id = `${storeInfo.group}/${storeInfo.resource}`;
      if (seen.has(id)) continue;
      seen.add(id);
      const informer = await this.registry.informer(storeInfo);
      for (const obj of informer.list(namespace)) {
        const meta = metadataOf(obj);
        try {
          if (!meta['deletionTimestamp']) await this.registry.delete(storeInfo, namespace, String(meta['name']), { propagationPolicy: 'Background' });
        } catch (err) {
          if (!(err instanceof StatusError && err.code === 404)) throw err;
        }
      }
      for (const obj of informer.list(namespace)) {
        const key = `${storeInfo.resource}.${storeInfo.group}`;
        remaining.resources.set(key, (remaining.resources.get(key) ?? 0) + 1);
        const finalizers = (metadataOf(obj)['finalizers'] ?? []) as string[];
        for (const f of finalizers) remaining.finalizers.set(f, (remaining.finalizers.get(f) ?? 0) + 1);
      }
    }
    return remaining;
  }
}
