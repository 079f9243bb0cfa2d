// The disruption controller: keeps each PodDisruptionBudget's status (expected, healthy and desired
// pods, disruptions allowed) current from the pods it selects, so evictions can be judged.
import { selectsLabels } from '../api/label-selector-object.js';
import { StatusError } from '../errors.js';
import { metadataOf } from '../registry/objects.js';
import type { ResourceInfo } from '../registry/definitions.js';
import type { ObjectVersion, Subscription } from '../registry/informers.js';
import { type Registry, CONTROLLER_WRITER } from '../registry/store.js';
import { type JsonObject, isObject, jsonEqual, now } from '../json.js';


/** An int-or-string budget value against a pod count ("50%" rounds up, as the reference's). */
function scaled(value: unknown, total: number): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^\d+%$/.test(value)) return Math.ceil((Number(value.slice(0, -1)) * total) / 100);
  return undefined;
}

function isHealthy(pod: JsonObject): boolean {
  if (metadataOf(pod)['deletionTimestamp']) return false;
  const conditions = (isObject(pod['status']) ? pod['status']['conditions'] : undefined) as JsonObject[] | undefined;
  return Array.isArray(conditions) && conditions.some((c) => c['type'] === 'Ready' && c['status'] === 'True');
}

export class DisruptionController {
  private readonly subscriptions: Subscription[] = [];
  private readonly dirty = new Set<string>();
  private scheduled = false;
  private stopped = false;

  constructor(private readonly registry: Registry) {}

  async start(): Promise<void> {
    const pdbs = this.registry.definitions.lookup('policy', 'v1', 'poddisruptionbudgets');
    if (!pdbs) return;
    const pods = this.registry.definitions.lookup('', 'v1', 'pods')!;
    // Any change of a budget or a pod may change the budgets of that namespace.
    const mark = (obj: ObjectVersion) => this.mark(obj.namespace!);
    const handlers = { added: mark, updated: mark, deleted: mark };
    this.subscriptions.push((await this.registry.informer(pdbs)).subscribe(handlers));
    this.subscriptions.push((await this.registry.informer(pods)).subscribe(handlers, { replay: false }));
  }

  stop(): void {
    this.stopped = true;
    for (const s of this.subscriptions) s.stop();
  }

  private mark(namespace: string): void {
    this.dirty.add(namespace);
    if (this.scheduled) return;
    this.scheduled = true;
    // Batches a burst of pod changes into one pass per namespace.
    setTimeout(() => {
      this.scheduled = false;
      const namespaces = [...this.dirty];
      this.dirty.clear();
      (async () => {
        for (const ns of namespaces) await this.sync(ns);
      })().catch((err: unknown) => console.error('disruption controller:', err));
    }, 20).unref();
  }

  private async sync(namespace: string): Promise<void> {
    if (this.stopped) return;
    const pdbInfo = this.registry.definitions.lookup('policy', 'v1', 'poddisruptionbudgets')!;
    const podInfo = this.registry.definitions.lookup('', 'v1', 'pods')!;
    const budgets = (await this.registry.informer(pdbInfo)).list(namespace);
    if (budgets.length === 0) return;
    const pods = (await this.registry.informer(podInfo)).list(namespace);
    for (const pdb of budgets) await this.syncBudget(pdbInfo, pdb, pods);
  }

  private async syncBudget(pdbInfo: ResourceInfo, pdb: JsonObject, pods: JsonObject[]): Promise<void> {
    const meta = metadataOf(pdb);
    const desiredStatus = (current: JsonObject): JsonObject => budgetStatus(current, pods);
    if (jsonEqual(desiredStatus(pdb), pdb['status'] ?? {})) return;
    try {
      // Computed from the budget as stored at write time, so an eviction's record is never lost.
      await this.registry.patch(pdbInfo, String(meta['namespace']), String(meta['name']), (current) => ({ ...current, status: desiredStatus(current) }), 'status', CONTROLLER_WRITER);
    } catch (err) {
      if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return;
      throw err;
    }
  }
}

/** A budget's status from the pods of its namespace. Pods evicted but not yet gone count as disrupted. */
function budgetStatus(pdb: JsonObject, pods: JsonObject[]): JsonObject {
  const spec = isObject(pdb['spec']) ? pdb['spec'] : {};
  const selected = pods.filter((p) => selectsLabels(spec['selector'], metadataOf(p)['labels'] as Record<string, string> | undefined));
  const live = selected.filter((p) => !metadataOf(p)['deletionTimestamp']);
  const liveNames = new Set(live.map((p) => String(metadataOf(p)['name'])));
  const previous = isObject(pdb['status']) ? pdb['status'] : {};
  const disrupted = Object.fromEntries(Object.entries(isObject(previous['disruptedPods']) ? previous['disruptedPods'] : {}).filter(([name]) => liveNames.has(name)));
  const expected = live.length;
  const healthy = live.filter((p) => isHealthy(p) && !(String(metadataOf(p)['name']) in disrupted)).length;
  const min = scaled(spec['minAvailable'], expected);
  const maxUnavailable = scaled(spec['maxUnavailable'], expected);
  const desired = min !== undefined ? min : maxUnavailable !== undefined ? Math.max(0, expected - maxUnavailable) : expected;
  const allowed = Math.max(0, healthy - desired);
  const generation = Number(metadataOf(pdb)['generation'] ?? 0);
  const condition = allowed > 0
    ? { type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods', message: '' }
    : { type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods', message: '' };
  const prevCondition = Array.isArray(previous['conditions']) ? (previous['conditions'] as JsonObject[]).find((c) => c['type'] === 'DisruptionAllowed') : undefined;
  const status: JsonObject = { observedGeneration: generation };
  if (Object.keys(disrupted).length) status['disruptedPods'] = disrupted;
  Object.assign(status, {
    disruptionsAllowed: allowed, currentHealthy: healthy, desiredHealthy: desired, expectedPods: expected,
    conditions: [{
      type: condition.type, status: condition.status, observedGeneration: generation,
      lastTransitionTime: prevCondition && prevCondition['status'] === condition.status ? prevCondition['lastTransitionTime'] : now(),
      reason: condition.reason, message: condition.message,
    }],
  });
  return status;
}
