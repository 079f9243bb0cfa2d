// The webhooks in force, read from the watch cache of the configurations: rebuilt only when a
// configuration changed (one number compared per request), so writes pay nothing when none exist.
import type { ResourceInfo } from '../../registry/definitions.js';
import { metadataOf } from '../../registry/objects.js';
import type { Registry } from '../../registry/store.js';
import type { Cacher } from '../../storage/cacher.js';
import { webhooksOf, type Webhook } from './config.js';
import { decodeJson } from '../../json.js';

export type WebhookKind = 'mutating' | 'validating';

const GROUP = 'admissionregistration.k8s.io';
const RESOURCES: Record<WebhookKind, string> = {
  mutating: 'mutatingwebhookconfigurations',
  validating: 'validatingwebhookconfigurations',
};

export class WebhookSource {
  private cacher?: Cacher;
  private starting?: Promise<Cacher | undefined>;
  private seenRevision = -1;
  private current: readonly Webhook[] = [];

  constructor(private readonly registry: Registry, private readonly kind: WebhookKind) {}

  /** Every webhook of this kind: configurations sorted by name, webhooks in their order. */
  async hooks(): Promise<readonly Webhook[]> {
    const cacher = this.cacher ?? (await this.start());
    if (!cacher) return this.current;
    const revision = cacher.lastChangeRevision();
    if (revision !== this.seenRevision) {
      this.seenRevision = revision;
      this.current = this.load(cacher);
    }
    return this.current;
  }

  private start(): Promise<Cacher | undefined> {
    this.starting ??= (async () => {
      const info = this.info();
      if (!info) return undefined;
      this.cacher = await this.registry.cacher(this.registry.storageInfo(info));
      return this.cacher;
    })();
    return this.starting;
  }

  private info(): ResourceInfo | undefined {
    const resource = RESOURCES[this.kind];
    return this.registry.definitions.versionsOf(GROUP, resource)[0];
  }

  private load(cacher: Cacher): Webhook[] {
    const configurations = cacher.list({ prefix: cacher.prefix }).items.map(decodeJson);
    configurations.sort((a, b) => {
      const x = String(metadataOf(a)['name'] ?? '');
      const y = String(metadataOf(b)['name'] ?? '');
      return x < y ? -1 : x > y ? 1 : 0;
    });
    return configurations.flatMap(webhooksOf);
  }
}

const sources = new WeakMap<Registry, Map<WebhookKind, WebhookSource>>();

/** The source of one registry and kind (shared by every request). */
export function webhookSource(registry: Registry, kind: WebhookKind): WebhookSource {
  let byKind = sources.get(registry);
  if (!byKind) sources.set(registry, (byKind = new Map()));
  let source = byKind.get(kind);
  if (!source) byKind.set(kind, (source = new WebhookSource(registry, kind)));
  return source;
}
