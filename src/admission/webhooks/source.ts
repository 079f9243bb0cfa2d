// The webhooks in force, read from the informer of the configurations: rebuilt only when a
// configuration changed (one number compared per request), so writes pay nothing when none exist.
import type { ResourceInfo } from '../../registry/definitions.js';
import type { Informer } from '../../registry/informers.js';
import { metadataOf } from '../../registry/objects.js';
import type { Registry } from '../../registry/store.js';
import { webhooksOf, type Webhook } from './config.js';

export type WebhookKind = 'mutating' | 'validating';

const GROUP = 'admissionregistration.k8s.io';
const RESOURCES: Record<WebhookKind, string> = {
  mutating: 'mutatingwebhookconfigurations',
  validating: 'validatingwebhookconfigurations',
};

export class WebhookSource {
  private informer?: Informer;
  private starting?: Promise<Informer | undefined>;
  private seenChange = -1;
  private current: readonly Webhook[] = [];

  constructor(private readonly registry: Registry, private readonly kind: WebhookKind) {}

  /** Every webhook of this kind: configurations sorted by name, webhooks in their order. */
  async hooks(): Promise<readonly Webhook[]> {
    const informer = this.informer ?? (await this.start());
    if (!informer) return this.current;
    const change = informer.changeNumber();
    if (change !== this.seenChange) {
      this.seenChange = change;
      this.current = this.load(informer);
    }
    return this.current;
  }

  private start(): Promise<Informer | undefined> {
    this.starting ??= (async () => {
      const info = this.info();
      if (!info) return undefined;
      this.informer = await this.registry.informer(info);
      return this.informer;
    })();
    return this.starting;
  }

  private info(): ResourceInfo | undefined {
    const resource = RESOURCES[this.kind];
    return this.registry.definitions.versionsOf(GROUP, resource)[0];
  }

  private load(informer: Informer): Webhook[] {
    const configurations = informer.list();
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
