// What every namespace gets, as the reference's controllers give it: the `default` ServiceAccount
// (service account controller) and the `kube-root-ca.crt` ConfigMap holding the cluster CA (root CA
// publisher). Clients of the registry; they act at start and whenever a namespace appears.
import { StatusError } from '../errors.js';
import { metadataOf } from '../registry/objects.js';
import type { ObjectVersion, Subscription } from '../registry/informers.js';
import { type Registry, CONTROLLER_WRITER } from '../registry/store.js';
import { type JsonObject } from '../json.js';

const ROOT_CA_DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

export class NamespaceDefaults {
  private subscription: Subscription | undefined;

  /**
   * `defaultServiceAccount`: whether the service account controller runs; `caCert`: the cluster CA
   * to publish (none on a plain-HTTP server or without the root CA publisher).
   */
  constructor(private readonly registry: Registry, private readonly defaultServiceAccount: boolean, private readonly caCert: string | undefined) {}

  async start(): Promise<void> {
    const informer = await this.registry.informer(this.registry.definitions.lookup('', 'v1', 'namespaces')!);
    // The namespaces there now are done before start returns; those that come or change later as they do.
    const existing: JsonObject[] = [];
    const changed = (ns: ObjectVersion) => {
      this.ensure(ns.object).catch((err: unknown) => console.error('namespace defaults:', err));
    };
    this.subscription = informer.subscribe({
      added: (ns, initial) => (initial ? existing.push(ns.object) : changed(ns)),
      updated: changed,
    });
    for (const ns of existing) await this.ensure(ns);
  }

  stop(): void {
    this.subscription?.stop();
  }

  private async ensure(ns: JsonObject): Promise<void> {
    const meta = metadataOf(ns);
    if (meta['deletionTimestamp']) return;
    const name = String(meta['name']);
    if (this.defaultServiceAccount) await this.createIfMissing('serviceaccounts', name, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });
    if (this.caCert) {
      await this.createIfMissing('configmaps', name, {
        apiVersion: 'v1', kind: 'ConfigMap',
        metadata: { name: 'kube-root-ca.crt', annotations: { 'kubernetes.io/description': ROOT_CA_DESCRIPTION } },
        data: { 'ca.crt': this.caCert },
      });
    }
  }

  private async createIfMissing(resource: string, namespace: string, obj: JsonObject): Promise<void> {
    const info = this.registry.definitions.lookup('', 'v1', resource)!;
    if ((await this.registry.informer(info)).has(namespace, String(metadataOf(obj)['name']))) return;
    try {
      await this.registry.create(info, namespace, obj, CONTROLLER_WRITER);
    } catch (err) {
      // Raced with another writer, or the namespace began terminating meanwhile.
      if (err instanceof StatusError && (err.code === 409 || err.code === 403 || err.code === 404)) return;
      throw err;
    }
  }
}
