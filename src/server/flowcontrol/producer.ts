// The reference's priority-and-fairness-config-producer: at start and then every minute, the
// bootstrap configuration is made to hold. A missing object is created. A mandatory one's spec is
// put back whenever it differs (its annotation set to "true"). A suggested one's spec is put
// back only when its apf.kubernetes.io/autoupdate-spec annotation is true — or, with no
// annotation that reads as a boolean, while nobody has changed it (generation 1); the annotation
// then says which. An object the configuration does not have, annotated true, is deleted.
import { StatusError } from '../../errors.js';
import { isObject, jsonEqual, type JsonObject } from '../../json.js';
import type { ResourceInfo } from '../../registry/definitions.js';
import type { Registry } from '../../registry/store.js';
import { AUTO_UPDATE_ANNOTATION, bootstrapConfiguration } from './bootstrap.js';

/** The field manager of the producer's writes, as the reference's. */
export const PRODUCER_MANAGER = 'api-priority-and-fairness-config-producer-v1';

/** Go's strconv.ParseBool. */
function parseBool(text: unknown): boolean | undefined {
  if (typeof text !== 'string') return undefined;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  return undefined;
}

const metadataOf = (o: JsonObject): JsonObject => (isObject(o['metadata']) ? o['metadata'] : {});
const annotationOf = (o: JsonObject): unknown => {
  const a = metadataOf(o)['annotations'];
  return isObject(a) ? a[AUTO_UPDATE_ANNOTATION] : undefined;
};

export class ApfConfigProducer {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly registry: Registry, private readonly periodMs: number) {}

  async start(): Promise<void> {
    await this.ensure();
    this.timer = setInterval(() => {
      if (this.stopped) return;
      this.running = this.running.then(() => this.ensure()).catch((err: unknown) => console.error('priority and fairness bootstrap configuration:', err));
    }, this.periodMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }

  /** One pass: every bootstrap object as it should be, the unwanted auto-updated ones gone. */
  async ensure(): Promise<void> {
    const config = bootstrapConfiguration();
    for (const [resource, entries] of [['prioritylevelconfigurations', config.levels], ['flowschemas', config.schemas]] as const) {
      const info = this.info(resource);
      if (!info) continue;
      const informer = await this.registry.informer(info);
      const wanted = new Set<string>();
      for (const { object, mandatory } of entries) {
        const name = String(metadataOf(object)['name']);
        wanted.add(name);
        await this.ensureOne(info, object, informer.get(undefined, name), mandatory);
      }
      for (const current of informer.list()) {
        const name = String(metadataOf(current)['name']);
        if (wanted.has(name) || parseBool(annotationOf(current)) !== true) continue;
        // Only as it was seen: a change meanwhile is looked at again next time.
        const resourceVersion = String(metadataOf(current)['resourceVersion']);
        await this.quietly(() => this.registry.delete(info, undefined, name, { preconditions: { resourceVersion } }));
      }
    }
  }

  private info(resource: string): ResourceInfo | undefined {
    const defs = this.registry.definitions;
    return defs.lookup('flowcontrol.apiserver.k8s.io', 'v1beta2', resource) ?? defs.lookup('flowcontrol.apiserver.k8s.io', 'v1beta1', resource);
  }

  private async ensureOne(info: ResourceInfo, bootstrap: JsonObject, current: JsonObject | undefined, mandatory: boolean): Promise<void> {
    const typeMeta = { apiVersion: info.apiVersion, kind: info.kind };
    if (!current) {
      await this.quietly(() => this.registry.create(info, undefined, { ...bootstrap, ...typeMeta }, { manager: PRODUCER_MANAGER }));
      return;
    }
    const meta = metadataOf(current);
    const said = parseBool(annotationOf(current));
    const autoUpdate = mandatory || (said ?? meta['generation'] === 1);
    const annotationStale = said !== autoUpdate;
    const specChanged = autoUpdate && !jsonEqual(current['spec'], bootstrap['spec']);
    if (!annotationStale && !specChanged) return;
    const annotations = { ...(isObject(meta['annotations']) ? meta['annotations'] : {}), [AUTO_UPDATE_ANNOTATION]: String(autoUpdate) };
    const next: JsonObject = { ...current, ...typeMeta, metadata: { ...meta, annotations }, ...(specChanged ? { spec: bootstrap['spec'] } : {}) };
    await this.quietly(() => this.registry.update(info, undefined, String(meta['name']), next, undefined, { manager: PRODUCER_MANAGER }));
  }

  /** A write that lost a race (the object changed or went meanwhile) waits for the next pass. */
  private async quietly(write: () => Promise<unknown>): Promise<void> {
    try {
      await write();
    } catch (err) {
      if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
    }
  }
}
