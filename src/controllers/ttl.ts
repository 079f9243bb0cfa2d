// The ttl controller, as kube-controller-manager 1.25's: every Node carries the annotation
// `node.alpha.kubernetes.io/ttl`, the seconds kubelets may cache secrets and config maps, chosen by
// the cluster's size (0 up to 100 nodes, then 15, 30, 60 and 300), with overlapping bounds so a
// size near a boundary does not flip the value back and forth.
import { StatusError } from '../errors.js';
import { metadataOf } from '../registry/objects.js';
import type { ResourceInfo } from '../registry/definitions.js';
import type { Subscription } from '../registry/informers.js';
import type { Registry } from '../registry/store.js';
import { type JsonObject, isObject } from '../json.js';
import { WorkQueue } from './kit/work-queue.js';
import { controllerWriter } from './kit/writer.js';

export const TTL_ANNOTATION = 'node.alpha.kubernetes.io/ttl';
const WRITER = controllerWriter('ttl-controller');

/** [smallest size, largest size, ttl seconds]: a step is left upward above its largest, downward below its smallest. */
const STEPS: ReadonlyArray<readonly [number, number, number]> = [
  [0, 100, 0],
  [90, 500, 15],
  [450, 1000, 30],
  [900, 2000, 60],
  [1800, Number.MAX_SAFE_INTEGER, 300],
];

/** The step after the cluster grew (or shrank) to `nodeCount`: one up above the step's largest size, one down below its smallest. */
export function nextStep(step: number, nodeCount: number, grew: boolean): number {
  if (grew && nodeCount > STEPS[step]![1]) return step + 1;
  if (!grew && nodeCount < STEPS[step]![0]) return step - 1;
  return step;
}

/** The ttl seconds of a step. */
export function ttlOfStep(step: number): number {
  return STEPS[step]![2];
}

export class TtlController {
  private readonly subscriptions: Subscription[] = [];
  private readonly queue: WorkQueue;
  private nodeCount = 0;
  private step = 0;
  private nodes: ResourceInfo | undefined;

  constructor(private readonly registry: Registry) {
    this.queue = new WorkQueue((name) => this.sync(name), { onError: (name, err) => console.error(`ttl controller: ${name}:`, err) });
  }

  async start(): Promise<void> {
    this.nodes = this.registry.definitions.lookup('', 'v1', 'nodes');
    if (!this.nodes) return;
    this.subscriptions.push((await this.registry.informer(this.nodes)).subscribe({
      added: (o) => { this.resize(+1); this.queue.add(o.name); },
      updated: (o) => this.queue.add(o.name),
      deleted: () => this.resize(-1),
    }));
  }

  stop(): void {
    this.queue.stop();
    for (const s of this.subscriptions) s.stop();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  /** The ttl every node should carry now. */
  desiredTtl(): number {
    return ttlOfStep(this.step);
  }

  private resize(by: number): void {
    const before = this.step;
    this.nodeCount += by;
    this.step = nextStep(this.step, this.nodeCount, by > 0);
    // A new ttl applies to every node, not only the one that came or went.
    if (this.step !== before) void this.queueAll();
  }

  private async queueAll(): Promise<void> {
    for (const name of (await this.registry.informer(this.nodes!)).names()) this.queue.add(name);
  }

  private async sync(name: string): Promise<void> {
    const node = (await this.registry.informer(this.nodes!)).get(undefined, name);
    if (!node) return;
    const want = String(this.desiredTtl());
    if (annotationOf(node) === want) return;
    try {
      await this.registry.patch(this.nodes!, undefined, name, (cur) => {
        const meta = metadataOf(cur);
        const annotations = isObject(meta['annotations']) ? meta['annotations'] : {};
        return { ...cur, metadata: { ...meta, annotations: { ...annotations, [TTL_ANNOTATION]: want } } };
      }, undefined, WRITER);
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return;
      throw err;
    }
  }
}

function annotationOf(node: JsonObject): unknown {
  const annotations = metadataOf(node)['annotations'];
  return isObject(annotations) ? annotations[TTL_ANNOTATION] : undefined;
}
