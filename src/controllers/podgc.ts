// The pod garbage collector (kube-controller-manager 1.25's `podgc`), every 20 seconds: deletes
// (grace 0) the oldest terminated pods (phase neither Pending, Running nor Unknown) beyond
// --terminated-pod-gc-threshold, pods bound to a node that has been missing for 40 seconds (and
// is still missing when asked), and terminating pods never scheduled. It keeps its own tally of
// pods as they change (how many are terminated, how many each node holds, which terminate unscheduled),
// so a pass over a quiet cluster reads nothing and looks at each node once, not at each pod: over
// 150,000 pods a pass that went through them all held the event loop for ~80 ms every 20 s.
import { StatusError } from '../errors.js';
import { metadataOf } from '../registry/objects.js';
import type { ResourceInfo } from '../registry/definitions.js';
import type { Informer, Subscription } from '../registry/informers.js';
import type { Registry } from '../registry/store.js';
import { type JsonObject, isObject } from '../json.js';
import { keyOf, splitKey } from './kit/work-queue.js';
import { controllerWriter } from './kit/writer.js';

const PERIOD_MS = 20_000;
/** How long a node must be missing before its pods are orphans (the reference's quarantine). */
const QUARANTINE_MS = 40_000;

export interface PodGcOptions {
  /** --terminated-pod-gc-threshold: how many terminated pods may stay (0: no limit). */
  terminatedPodThreshold?: number;
  /** Between passes (ms). */
  periodMs?: number;
  quarantineMs?: number;
}

interface Tallied {
  created: string;
  terminated: boolean;
  node: string;
  terminating: boolean;
  revision: string;
}

export class PodGcController {
  private readonly writer = controllerWriter('pod-garbage-collector');
  private readonly pods = new Map<string, Tallied>();
  private terminatedCount = 0;
  /** Pods by the node they are bound to. */
  private readonly podsOnNode = new Map<string, number>();
  /** Pods terminating that were never bound to a node. */
  private readonly terminatingUnscheduled = new Set<string>();
  private readonly missingSince = new Map<string, number>();
  /** Pods already deleted at this revision (held by finalizers): not deleted again until they change. */
  private readonly attempted = new Map<string, string>();
  private readonly subscriptions: Subscription[] = [];
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private podInfo!: ResourceInfo;
  private nodeInfo!: ResourceInfo;
  private nodes!: Informer;
  private readonly threshold: number;
  private readonly periodMs: number;
  private readonly quarantineMs: number;

  constructor(private readonly registry: Registry, options: PodGcOptions = {}) {
    this.threshold = options.terminatedPodThreshold ?? 12_500;
    this.periodMs = options.periodMs ?? PERIOD_MS;
    this.quarantineMs = options.quarantineMs ?? QUARANTINE_MS;
  }

  async start(): Promise<void> {
    const podInfo = this.registry.definitions.lookup('', 'v1', 'pods');
    const nodeInfo = this.registry.definitions.lookup('', 'v1', 'nodes');
    if (!podInfo || !nodeInfo) return;
    this.podInfo = podInfo;
    this.nodeInfo = nodeInfo;
    this.nodes = await this.registry.informer(nodeInfo);
    const tally = (pod: JsonObject) => {
      const meta = metadataOf(pod);
      const phase = isObject(pod['status']) ? pod['status']['phase'] : undefined;
      const spec = isObject(pod['spec']) ? pod['spec'] : {};
      this.tally(keyOf(String(meta['namespace']), String(meta['name'])), {
        created: String(meta['creationTimestamp'] ?? ''),
        terminated: phase !== 'Pending' && phase !== 'Running' && phase !== 'Unknown',
        node: typeof spec['nodeName'] === 'string' ? spec['nodeName'] : '',
        terminating: Boolean(meta['deletionTimestamp']),
        revision: String(meta['resourceVersion'] ?? ''),
      });
    };
    this.subscriptions.push((await this.registry.informer(podInfo)).subscribe({
      // Read only, kept nowhere: the decoding every pod controller shares.
      added: (p) => tally(p.frozen),
      updated: (p) => tally(p.frozen),
      deleted: (p) => {
        const key = keyOf(p.namespace, p.name);
        this.tally(key, undefined);
        this.attempted.delete(key);
      },
    }));
    this.timer = setInterval(() => {
      this.running ??= this.pass().catch((err: unknown) => {
        if (process.env['CAPSTAN_DEBUG_CONTROLLERS']) console.error('podgc:', err);
      }).finally(() => (this.running = undefined));
    }, this.periodMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    for (const s of this.subscriptions) s.stop();
    await this.running;
  }

  /** A pod's new state (undefined: deleted), its old one taken out of the counts and the new one put in. */
  private tally(key: string, pod: Tallied | undefined): void {
    const old = this.pods.get(key);
    if (old) {
      if (old.terminated) this.terminatedCount--;
      if (old.node) {
        const left = this.podsOnNode.get(old.node)! - 1;
        if (left === 0) this.podsOnNode.delete(old.node);
        else this.podsOnNode.set(old.node, left);
      }
      if (old.terminating && !old.node) this.terminatingUnscheduled.delete(key);
    }
    if (!pod) {
      this.pods.delete(key);
      return;
    }
    this.pods.set(key, pod);
    if (pod.terminated) this.terminatedCount++;
    if (pod.node) this.podsOnNode.set(pod.node, (this.podsOnNode.get(pod.node) ?? 0) + 1);
    if (pod.terminating && !pod.node) this.terminatingUnscheduled.add(key);
  }

  /** One collection (tests call it). */
  async pass(): Promise<void> {
    if (this.threshold > 0) await this.collectTerminated();
    await this.collectOrphaned();
    for (const key of [...this.terminatingUnscheduled]) {
      const pod = this.pods.get(key);
      if (pod?.terminating && !pod.node) await this.forceDelete(key, pod);
    }
  }

  private async collectTerminated(): Promise<void> {
    if (this.terminatedCount <= this.threshold) return;
    const terminated = [...this.pods].filter(([, p]) => p.terminated);
    const excess = terminated.length - this.threshold;
    if (excess <= 0) return;
    // Oldest first; ties by name.
    terminated.sort(([ka, a], [kb, b]) => (a.created === b.created ? (splitKey(ka).name < splitKey(kb).name ? -1 : 1) : Date.parse(a.created) - Date.parse(b.created)));
    await Promise.all(terminated.slice(0, excess).map(([key, pod]) => this.forceDelete(key, pod)));
  }

  private async collectOrphaned(): Promise<void> {
    const now = Date.now();
    const missing = new Set<string>();
    for (const node of this.podsOnNode.keys()) if (!this.nodes.has(undefined, node)) missing.add(node);
    for (const node of [...this.missingSince.keys()]) if (!missing.has(node)) this.missingSince.delete(node);
    const deleted = new Set<string>();
    for (const node of missing) {
      const since = this.missingSince.get(node);
      if (since === undefined) {
        this.missingSince.set(node, now);
        continue;
      }
      // Past the quarantine, and still missing when asked of the store (not only of the cache).
      if (now - since >= this.quarantineMs && !(await this.registry.getObject(this.nodeInfo, undefined, node))) deleted.add(node);
    }
    if (deleted.size === 0) return;
    for (const [key, pod] of this.pods) if (deleted.has(pod.node)) await this.forceDelete(key, pod);
  }

  private async forceDelete(key: string, pod: Tallied): Promise<void> {
    if (this.attempted.get(key) === pod.revision) return;
    this.attempted.set(key, pod.revision);
    const { namespace, name } = splitKey(key);
    try {
      await this.registry.delete(this.podInfo, namespace, name, { gracePeriodSeconds: 0, user: this.writer.user });
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return;
      throw err;
    }
  }
}
