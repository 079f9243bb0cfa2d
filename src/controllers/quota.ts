// The ResourceQuota controller: every quota's status.hard follows spec.hard and status.used is
// measured from the objects of its namespace — when a quota is created or its spec changes, when
// an object it tracks is deleted or stops counting (a pod that finished, a claim that shrank),
// and on a periodic resync. Admission raises status.used as objects are created; this is what
// gives usage back. A client of the registry only; the watches it needs are opened on demand,
// so a server without quotas pays nothing.
import type { ResourceDefinition, ResourceInfo } from '../registry/definitions.js';
import { StatusError } from '../errors.js';
import { evaluatorsFor, objectCountEvaluator, type Evaluator } from '../quota/evaluators.js';
import { listsEqual, mask, resourceListJson, resourceListOf, type ResourceList } from '../quota/resource-list.js';
import { measureUsage } from '../quota/usage.js';
import type { ObjectVersion, Subscription } from '../registry/informers.js';
import { NamespaceIndex } from '../registry/namespace-index.js';
import { metadataOf } from '../registry/objects.js';
import { type Registry, CONTROLLER_WRITER } from '../registry/store.js';
import { type JsonObject, isObject, jsonEqual, copyJson } from '../json.js';

/** Changes that come together (a namespace's objects deleted one by one) are measured once. */
const BATCH_MS = 10;
const RETRY_MS = 200;
/** The reference's --resource-quota-sync-period default. */
const DEFAULT_RESYNC_MS = 5 * 60_000;

export interface QuotaControllerOptions {
  /** How often every quota is measured again whatever happened (ms). */
  resyncMs?: number;
}

function specHard(quota: JsonObject): ResourceList {
  return resourceListOf(isObject(quota['spec']) ? quota['spec']['hard'] : undefined);
}

function statusOf(quota: JsonObject): JsonObject {
  return isObject(quota['status']) ? quota['status'] : {};
}

function isStale(err: unknown): boolean {
  return err instanceof StatusError && (err.code === 409 || err.code === 404);
}

export class ResourceQuotaController {
  private quotas: NamespaceIndex | undefined;
  /** Subscriptions to tracked resources, by storage prefix. */
  private readonly watched = new Map<string, Subscription>();
  private watching: Promise<void> = Promise.resolve();
  private readonly dirty = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private resync: NodeJS.Timeout | undefined;
  private running = false;
  private stopped = false;
  /** The object counts of resources defined at run time (kept: evaluators are told apart by identity). */
  private readonly counts = new WeakMap<ResourceDefinition, Evaluator>();

  constructor(private readonly registry: Registry, private readonly options: QuotaControllerOptions = {}) {}

  async start(): Promise<void> {
    this.quotas = await NamespaceIndex.start(this.registry, this.quotaInfo(), (namespace, _name, quota, previous) => this.onQuota(namespace, quota, previous));
    for (const namespace of this.quotas.namespaces()) this.schedule(namespace);
    await this.watchTracked();
    this.resync = setInterval(() => {
      for (const namespace of this.quotas?.namespaces() ?? []) this.schedule(namespace);
    }, this.options.resyncMs ?? DEFAULT_RESYNC_MS);
    this.resync.unref();
  }

  stop(): void {
    this.stopped = true;
    this.quotas?.stop();
    for (const w of this.watched.values()) w.stop();
    this.watched.clear();
    clearTimeout(this.timer);
    clearInterval(this.resync);
  }

  private quotaInfo(): ResourceInfo {
    return this.registry.definitions.lookup('', 'v1', 'resourcequotas')!;
  }

  /** How each served resource is measured: its definition's evaluator; an object count for those defined at run time. */
  private evaluators(): Evaluator[] {
    const out: Evaluator[] = [];
    for (const definition of this.registry.definitions.definitions()) {
      let evaluator = definition.hooks.quota;
      if (!evaluator && !definition.builtin) {
        evaluator = this.counts.get(definition) ?? objectCountEvaluator(definition.group, definition.resource);
        this.counts.set(definition, evaluator);
      }
      if (evaluator) out.push(evaluator);
    }
    return out;
  }

  /** The stored resource an evaluator measures; undefined when it is not served. */
  private storageInfoOf(evaluator: Evaluator): ResourceInfo | undefined {
    const info = this.registry.definitions.versionsOf(evaluator.group, evaluator.resource)[0];
    return info && info.namespaced ? this.registry.storageInfo(info) : undefined;
  }

  // ---- triggers ----

  private onQuota(namespace: string, quota: JsonObject | undefined, previous: JsonObject | undefined): void {
    if (!quota) return;
    const specChanged = !previous || !jsonEqual(quota['spec'], previous['spec']);
    if (specChanged || !listsEqual(specHard(quota), resourceListOf(statusOf(quota)['hard']))) {
      this.schedule(namespace);
      if (specChanged) void this.watchTracked();
    }
  }

  /** Subscribes to every resource some quota tracks (never closed: quotas come and go). */
  private watchTracked(): Promise<void> {
    this.watching = this.watching.then(async () => {
      const names = new Set<string>();
      for (const namespace of this.quotas?.namespaces() ?? []) {
        for (const quota of this.quotas!.in(namespace)) for (const name of specHard(quota).keys()) names.add(name);
      }
      for (const evaluator of evaluatorsFor(names, this.evaluators())) {
        const info = this.storageInfoOf(evaluator);
        if (!info || this.stopped) continue;
        const informer = await this.registry.informer(info);
        if (this.watched.has(informer.prefix)) continue;
        this.watched.set(informer.prefix, informer.subscribe({
          added: (o) => this.onCreated(o),
          updated: (o, old) => this.onUpdated(evaluator, o, old),
          deleted: (o) => this.onDeleted(o),
        }, { replay: false }));
      }
    }).catch((err: unknown) => console.error('resource quota controller:', err));
    return this.watching;
  }

  /** The quotas of a tracked object's namespace (none for a cluster-scoped object). */
  private quotasOf(o: ObjectVersion): readonly JsonObject[] {
    return o.namespace === undefined ? [] : this.quotas?.in(o.namespace) ?? [];
  }

  /** Deletions give usage back. */
  private onDeleted(o: ObjectVersion): void {
    if (this.quotasOf(o).length > 0) this.schedule(o.namespace!);
  }

  /** So do updates that change what an object charges. */
  private onUpdated(evaluator: Evaluator, o: ObjectVersion, old: ObjectVersion): void {
    if (this.quotasOf(o).length === 0) return;
    const now = Date.now();
    if (!listsEqual(evaluator.usage(old.object, now), evaluator.usage(o.object, now))) this.schedule(o.namespace!);
  }

  /** A create admission could not charge: a quota the controller has not measured yet. */
  private onCreated(o: ObjectVersion): void {
    if (this.quotasOf(o).some((q) => statusOf(q)['hard'] === undefined && specHard(q).size > 0)) this.schedule(o.namespace!);
  }

  // ---- the work queue ----

  private schedule(namespace: string, delay = BATCH_MS): void {
    if (this.stopped) return;
    this.dirty.add(namespace);
    if (this.timer || this.running) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.run().catch((err: unknown) => console.error('resource quota controller:', err));
    }, delay);
  }

  private async run(): Promise<void> {
    this.running = true;
    const retry: string[] = [];
    try {
      const namespaces = [...this.dirty];
      this.dirty.clear();
      for (const namespace of namespaces) {
        if (this.stopped) return;
        if (!(await this.syncNamespace(namespace))) retry.push(namespace);
      }
    } finally {
      this.running = false;
    }
    if (retry.length) for (const namespace of retry) this.schedule(namespace, RETRY_MS);
    else if (this.dirty.size) this.schedule([...this.dirty][0]!);
  }

  /** Records every quota of a namespace; false when one changed meanwhile (to be done again). */
  private async syncNamespace(namespace: string): Promise<boolean> {
    let done = true;
    for (const quota of this.quotas?.in(namespace) ?? []) {
      try {
        await this.syncQuota(namespace, quota);
      } catch (err) {
        if (!isStale(err)) throw err;
        done = false;
      }
    }
    return done;
  }

  private async syncQuota(namespace: string, quota: JsonObject): Promise<void> {
    const hard = specHard(quota);
    const status = statusOf(quota);
    const statusUsed = resourceListOf(status['used']);
    const objects = new Map<Evaluator, JsonObject[]>();
    const evaluators = this.evaluators();
    for (const evaluator of evaluatorsFor(hard.keys(), evaluators)) {
      const info = this.storageInfoOf(evaluator);
      if (!info) continue;
      objects.set(evaluator, (await this.registry.informer(info)).list(namespace));
    }
    const measured = measureUsage(quota, hard, evaluators, (e) => objects.get(e), Date.now());
    // What is not measured keeps its last recorded value; only what the quota limits is kept.
    const used = mask(new Map([...statusUsed, ...measured]), hard.keys());
    const dirty = status['hard'] === undefined || status['used'] === undefined
      || !listsEqual(hard, resourceListOf(status['hard'])) || !listsEqual(used, statusUsed);
    if (!dirty) return;
    const next: JsonObject = {};
    if (hard.size) next['hard'] = resourceListJson(hard);
    if (used.size) next['used'] = resourceListJson(used);
    const meta = copyJson(metadataOf(quota));
    await this.registry.update(this.quotaInfo(), namespace, String(meta['name']), { ...quota, metadata: meta, status: next }, 'status', CONTROLLER_WRITER);
  }
}
