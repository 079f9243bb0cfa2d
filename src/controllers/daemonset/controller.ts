// The daemonset controller, as kube-controller-manager 1.25's: one pod per eligible node, pinned to
// it by node affinity, with the daemon tolerations; pods on nodes they no longer belong on go;
// ControllerRevisions; RollingUpdate (maxUnavailable/maxSurge) or OnDelete; status. No nodes, no pods.
import { StatusError } from '../../errors.js';
import { metadataOf } from '../../registry/objects.js';
import type { ResourceInfo } from '../../registry/definitions.js';
import type { ObjectVersion, Subscription } from '../../registry/informers.js';
import type { Registry } from '../../registry/store.js';
import { type JsonObject, decodeJson, isObject, copyJson } from '../../json.js';
import { EventRecorder } from '../kit/events.js';
import { POD_REVISION_LABEL, truncateHistory } from '../kit/history.js';
import { claim, controllerOf, isPodAvailable, isPodReady, podFromTemplate } from '../kit/owned.js';
import { WorkQueue, keyOf, logUnlessRefused, splitKey } from '../kit/work-queue.js';
import { controllerWriter } from '../kit/writer.js';
import { pinToNode, placement, targetNode, withDaemonTolerations, type Placement } from './eligibility.js';
import { constructHistory, templateOfSet } from './revisions.js';
import { isPodUpdated, rollingStep, templateGeneration } from './update.js';

const WRITER = controllerWriter('daemon-set-controller');
/** How long a pod just created counts as there before the informer shows it (the reference's expectations). */
const EXPECTATION_MS = 5 * 60_000;

interface Resources {
  sets: ResourceInfo;
  pods: ResourceInfo;
  nodes: ResourceInfo;
  revisions: ResourceInfo;
}

function created(pod: JsonObject): string {
  return String(metadataOf(pod)['creationTimestamp'] ?? '');
}

export class DaemonSetController {
  private readonly subscriptions: Subscription[] = [];
  private readonly queue: WorkQueue;
  private readonly events: EventRecorder;
  /** Per set: pod names created and not yet seen, with when they stop being expected. */
  private readonly expected = new Map<string, Map<string, { node: string; hash: string; until: number }>>();
  private resources: Resources | undefined;

  constructor(private readonly registry: Registry) {
    this.queue = new WorkQueue((key) => this.sync(key), { onError: logUnlessRefused('daemonset controller') });
    this.events = new EventRecorder(registry, 'daemonset-controller', WRITER);
  }

  async start(): Promise<void> {
    const defs = this.registry.definitions;
    const sets = defs.lookup('apps', 'v1', 'daemonsets');
    const pods = defs.lookup('', 'v1', 'pods');
    const nodes = defs.lookup('', 'v1', 'nodes');
    const revisions = defs.lookup('apps', 'v1', 'controllerrevisions');
    if (!sets || !pods || !nodes || !revisions) return;
    this.resources = { sets, pods, nodes, revisions };
    const queueSet = (o: ObjectVersion) => this.queue.add(keyOf(o.namespace, o.name));
    const queueOwner = (o: ObjectVersion) => this.queueOwnerOf(o);
    const queueAll = () => void this.queueAll();
    this.subscriptions.push((await this.registry.informer(sets)).subscribe({ added: queueSet, updated: queueSet, deleted: (o) => this.expected.delete(keyOf(o.namespace, o.name)) }));
    this.subscriptions.push((await this.registry.informer(pods)).subscribe({ added: queueOwner, updated: queueOwner, deleted: queueOwner }, { replay: false }));
    this.subscriptions.push((await this.registry.informer(nodes)).subscribe({ added: queueAll, updated: queueAll, deleted: queueAll }, { replay: false }));
    await (await this.registry.informer(revisions)).ready();
  }

  stop(): void {
    this.queue.stop();
    for (const s of this.subscriptions) s.stop();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  private async queueAll(): Promise<void> {
    for (const ds of (await this.registry.informer(this.resources!.sets)).list()) {
      const meta = metadataOf(ds);
      this.queue.add(keyOf(meta['namespace'] as string, String(meta['name'])));
    }
  }

  private queueOwnerOf(o: ObjectVersion): void {
    const ref = controllerOf(o.frozen);
    if (ref) {
      if (ref['kind'] === 'DaemonSet' && String(ref['apiVersion']).startsWith('apps/')) this.queue.add(keyOf(o.namespace, String(ref['name'])));
      return;
    }
    void this.registry.informer(this.resources!.sets).then((inf) => {
      for (const ds of inf.list(o.namespace)) this.queue.add(keyOf(o.namespace, String(metadataOf(ds)['name'])));
    });
  }

  private async sync(key: string): Promise<void> {
    const r = this.resources!;
    const { namespace, name } = splitKey(key);
    const ds = (await this.registry.informer(r.sets)).get(namespace, name);
    if (!ds) return;
    const spec = isObject(ds['spec']) ? ds['spec'] : {};
    const uid = metadataOf(ds)['uid'];
    const nodes = (await this.registry.informer(r.nodes)).list();
    const candidates = (await this.registry.informer(r.pods)).list(namespace).filter((p) => controllerOf(p)?.['uid'] === uid || !controllerOf(p));
    const pods = await claim(this.registry, r.pods, WRITER, ds, spec['selector'], candidates);
    const revisionCandidates = (await this.registry.informer(r.revisions)).list(namespace).filter((rev) => controllerOf(rev)?.['uid'] === uid || !controllerOf(rev));
    const owned = await claim(this.registry, r.revisions, WRITER, ds, spec['selector'], revisionCandidates);
    const history = await constructHistory(this.registry, r.revisions, WRITER, ds, owned);
    const nodeToPods = this.nodeToPods(key, pods);
    const placements = new Map(nodes.map((n) => [String(metadataOf(n)['name']), placement(templateOfSet(ds), n)] as const));

    if (!metadataOf(ds)['deletionTimestamp']) {
      await this.manage(ds, key, placements, nodeToPods, history.hash);
      const strategy = isObject(spec['updateStrategy']) ? spec['updateStrategy'] : {};
      if (strategy['type'] !== 'OnDelete') {
        const desired = [...placements.values()].filter((p) => p.shouldRun).length;
        const fresh = this.nodeToPods(key, pods);
        const step = rollingStep(ds, fresh, desired, history.hash, Date.now());
        await this.syncNodes(ds, key, step.createOnNodes, step.deletePods, history.hash);
      }
    }
    const live = new Set<string>([String(metadataOf(history.current)['name'])]);
    const liveHashes = new Set(pods.map((p) => ((metadataOf(p)['labels'] ?? {}) as Record<string, string>)[POD_REVISION_LABEL]));
    for (const rev of history.all) {
      if (liveHashes.has(((metadataOf(rev)['labels'] ?? {}) as Record<string, string>)[POD_REVISION_LABEL])) live.add(String(metadataOf(rev)['name']));
    }
    const limit = typeof spec['revisionHistoryLimit'] === 'number' ? spec['revisionHistoryLimit'] : 10;
    await truncateHistory(this.registry, r.revisions, WRITER, history.all, live, limit);
    await this.writeStatus(ds, placements, this.nodeToPods(key, pods), history.hash, history.collisionCount);
  }

  /** Claimed pods by the node they are for, counting pods just created that the informer does not show yet. */
  private nodeToPods(key: string, pods: JsonObject[]): Map<string, JsonObject[]> {
    const map = new Map<string, JsonObject[]>();
    const seen = new Set(pods.map((p) => String(metadataOf(p)['name'])));
    for (const pod of pods) {
      const node = targetNode(pod) ?? '';
      map.set(node, [...(map.get(node) ?? []), pod]);
    }
    const expected = this.expected.get(key);
    if (expected) {
      const nowMs = Date.now();
      for (const [podName, e] of expected) {
        if (seen.has(podName) || e.until < nowMs) { expected.delete(podName); continue; }
        // A stand-in for the pod: new (of its revision), not yet available.
        map.set(e.node, [...(map.get(e.node) ?? []), { metadata: { name: podName, creationTimestamp: new Date().toISOString(), labels: { [POD_REVISION_LABEL]: e.hash } } }]);
      }
    }
    return map;
  }

  /** Creates pods where they belong and none is; deletes failed, surplus and misplaced ones. */
  private async manage(ds: JsonObject, key: string, placements: Map<string, Placement>, nodeToPods: Map<string, JsonObject[]>, hash: string): Promise<void> {
    const generation = templateGeneration(ds);
    const spec = isObject(ds['spec']) ? ds['spec'] : {};
    const strategy = isObject(spec['updateStrategy']) ? spec['updateStrategy'] : {};
    const rolling = isObject(strategy['rollingUpdate']) ? strategy['rollingUpdate'] : {};
    const surge = strategy['type'] !== 'OnDelete' && rolling['maxSurge'] !== undefined && rolling['maxSurge'] !== 0 && rolling['maxSurge'] !== '0%';
    const create: string[] = [];
    const remove: JsonObject[] = [];
    for (const [node, where] of placements) {
      const running = (nodeToPods.get(node) ?? []).filter((p) => !metadataOf(p)['deletionTimestamp']);
      if (where.shouldRun) {
        const failed = running.filter((p) => isObject(p['status']) && p['status']['phase'] === 'Failed');
        for (const p of failed) {
          this.events.record(ds, 'Warning', 'FailedDaemonPod', `Found failed daemon pod ${String(metadataOf(p)['namespace'])}/${String(metadataOf(p)['name'])} on node ${node}, will try to kill it`);
          remove.push(p);
        }
        const healthy = running.filter((p) => !failed.includes(p)).sort((a, b) => created(a).localeCompare(created(b)));
        if (healthy.length === 0 && failed.length === 0) create.push(node);
        else if (healthy.length > 1) {
          if (!surge) remove.push(...healthy.slice(1));
          else {
            const keepNew = healthy.find((p) => isPodUpdated(p, hash, generation));
            const keepOld = healthy.find((p) => !isPodUpdated(p, hash, generation));
            remove.push(...healthy.filter((p) => p !== keepNew && p !== keepOld));
          }
        }
      } else if (!where.shouldContinueRunning) {
        remove.push(...running);
      }
    }
    // Pods for nodes that do not exist, never bound to one, go too.
    for (const [node, pods] of nodeToPods) {
      if (placements.has(node)) continue;
      remove.push(...pods.filter((p) => !metadataOf(p)['deletionTimestamp'] && !(isObject(p['spec']) && p['spec']['nodeName']) && metadataOf(p)['uid']));
    }
    await this.syncNodes(ds, key, create, remove, hash);
  }

  private async syncNodes(ds: JsonObject, key: string, nodes: string[], remove: JsonObject[], hash: string): Promise<void> {
    const r = this.resources!;
    const meta = metadataOf(ds);
    const ns = String(meta['namespace']);
    const template = copyJson(templateOfSet(ds));
    const tspec = isObject(template['spec']) ? template['spec'] : (template['spec'] = {});
    tspec['tolerations'] = withDaemonTolerations(tspec);
    const tmeta = metadataOf(template);
    const labels: Record<string, string> = { ...((tmeta['labels'] ?? {}) as Record<string, string>) };
    const generation = templateGeneration(ds);
    if (generation !== undefined) labels['pod-template-generation'] = generation;
    labels[POD_REVISION_LABEL] = hash;
    tmeta['labels'] = labels;
    template['metadata'] = tmeta;
    for (const node of nodes) {
      const pod = podFromTemplate(template, ds, { generateName: `${String(meta['name'])}-` });
      pinToNode(pod['spec'] as JsonObject, node);
      try {
        const made = decodeJson((await this.registry.create(r.pods, ns, pod, WRITER)).body);
        const podName = String(metadataOf(made)['name']);
        const expected = this.expected.get(key) ?? new Map();
        expected.set(podName, { node, hash, until: Date.now() + EXPECTATION_MS });
        this.expected.set(key, expected);
        this.events.record(ds, 'Normal', 'SuccessfulCreate', `Created pod: ${podName}`);
      } catch (err) {
        this.events.record(ds, 'Warning', 'FailedCreate', `Error creating: ${err instanceof Error ? err.message : String(err)}`);
        throw err;
      }
    }
    for (const pod of remove) {
      const pmeta = metadataOf(pod);
      if (!pmeta['uid']) continue;
      try {
        await this.registry.delete(r.pods, ns, String(pmeta['name']), { preconditions: { uid: String(pmeta['uid']) }, user: WRITER.user });
        this.events.record(ds, 'Normal', 'SuccessfulDelete', `Deleted pod: ${String(pmeta['name'])}`);
      } catch (err) {
        if (err instanceof StatusError && (err.code === 404 || err.code === 409)) continue;
        this.events.record(ds, 'Warning', 'FailedDelete', `Error deleting: ${err instanceof Error ? err.message : String(err)}`);
        throw err;
      }
    }
  }

  private async writeStatus(ds: JsonObject, placements: Map<string, Placement>, nodeToPods: Map<string, JsonObject[]>, hash: string, collisionCount: number | undefined): Promise<void> {
    const meta = metadataOf(ds);
    const spec = isObject(ds['spec']) ? ds['spec'] : {};
    const minReady = typeof spec['minReadySeconds'] === 'number' ? spec['minReadySeconds'] : 0;
    const generation = templateGeneration(ds);
    let desired = 0, current = 0, misscheduled = 0, ready = 0, available = 0, updated = 0;
    const nowMs = Date.now();
    for (const [node, where] of placements) {
      const pods = (nodeToPods.get(node) ?? []).filter((p) => metadataOf(p)['uid']);
      if (!where.shouldRun) {
        if (pods.length) misscheduled++;
        continue;
      }
      desired++;
      if (pods.length === 0) continue;
      current++;
      const pod = [...pods].sort((a, b) => created(a).localeCompare(created(b)))[0]!;
      if (isPodReady(pod)) {
        ready++;
        if (isPodAvailable(pod, minReady, nowMs)) available++;
      }
      if (isPodUpdated(pod, hash, generation)) updated++;
    }
    const previous = isObject(ds['status']) ? ds['status'] : {};
    const status: JsonObject = { currentNumberScheduled: current, numberMisscheduled: misscheduled, desiredNumberScheduled: desired, numberReady: ready };
    if (meta['generation']) status['observedGeneration'] = meta['generation'];
    if (updated) status['updatedNumberScheduled'] = updated;
    if (available) status['numberAvailable'] = available;
    if (desired - available) status['numberUnavailable'] = desired - available;
    const count = collisionCount ?? previous['collisionCount'];
    if (count !== undefined) status['collisionCount'] = count;
    if (Array.isArray(previous['conditions'])) status['conditions'] = previous['conditions'];
    // Availability after minReadySeconds is seen only by looking again.
    if (minReady > 0 && ready > available) this.queue.addAfter(keyOf(meta['namespace'] as string, String(meta['name'])), minReady * 1000);
    const same = Object.keys({ ...status, ...previous }).every((k) => JSON.stringify(status[k]) === JSON.stringify(previous[k]));
    if (same) return;
    try {
      await this.registry.patch(this.resources!.sets, String(meta['namespace']), String(meta['name']), (cur) => ({ ...cur, status }), 'status', WRITER);
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return;
      throw err;
    }
  }
}
