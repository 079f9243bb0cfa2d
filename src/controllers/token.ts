// The service-account token controller (legacy tokens): a Secret of type
// kubernetes.io/service-account-token naming a service account gets a long-lived token, the cluster
// CA and the namespace in its data; a token secret whose service account is gone is deleted.
import { StatusError } from '../errors.js';
import { metadataOf } from '../registry/objects.js';
import type { ObjectVersion, Subscription } from '../registry/informers.js';
import { type Registry, CONTROLLER_WRITER } from '../registry/store.js';
import type { TokenIssuer } from '../auth/tokens.js';
import { type JsonObject, isObject } from '../json.js';

const TOKEN_TYPE = 'kubernetes.io/service-account-token';
const SA_NAME = 'kubernetes.io/service-account.name';
const SA_UID = 'kubernetes.io/service-account.uid';

export class TokenController {
  private readonly subscriptions: Subscription[] = [];
  private stopped = false;

  constructor(private readonly registry: Registry, private readonly issuer: TokenIssuer, private readonly caCert: string) {}

  async start(): Promise<void> {
    const secrets = this.registry.definitions.lookup('', 'v1', 'secrets')!;
    const serviceAccounts = this.registry.definitions.lookup('', 'v1', 'serviceaccounts')!;
    const syncSecret = (secret: ObjectVersion) => this.run(() => this.syncSecret(secret.object));
    this.subscriptions.push((await this.registry.informer(secrets)).subscribe({ added: syncSecret, updated: syncSecret }));
    // A deleted service account takes its token secrets along.
    this.subscriptions.push((await this.registry.informer(serviceAccounts)).subscribe({
      deleted: (sa) => this.run(() => this.removeTokensOf(sa.object)),
    }, { replay: false }));
  }

  stop(): void {
    this.stopped = true;
    for (const s of this.subscriptions) s.stop();
  }

  private run(work: () => Promise<void>): void {
    if (this.stopped) return;
    work().catch((err: unknown) => {
      if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return;
      console.error('token controller:', err);
    });
  }

  private async syncSecret(secret: JsonObject): Promise<void> {
    if (secret['type'] !== TOKEN_TYPE) return;
    const meta = metadataOf(secret);
    if (meta['deletionTimestamp']) return;
    const annotations = isObject(meta['annotations']) ? meta['annotations'] : {};
    const saName = typeof annotations[SA_NAME] === 'string' ? annotations[SA_NAME] : '';
    const namespace = String(meta['namespace']);
    const secrets = this.registry.definitions.lookup('', 'v1', 'secrets')!;
    const sa = saName ? await this.registry.getObject(this.registry.definitions.lookup('', 'v1', 'serviceaccounts')!, namespace, saName) : undefined;
    const saUid = sa ? String(metadataOf(sa)['uid']) : undefined;
    const wantedUid = annotations[SA_UID];
    if (!sa || (typeof wantedUid === 'string' && wantedUid !== saUid)) {
      // The account it names does not exist (any more): the token would be for no one.
      await this.registry.delete(secrets, namespace, String(meta['name']), { preconditions: { uid: String(meta['uid']) } });
      return;
    }
    const data = isObject(secret['data']) ? secret['data'] : {};
    if (data['token'] && data['ca.crt'] !== undefined && data['namespace'] && wantedUid === saUid) return;
    const token = await this.issuer.issueLegacy({ namespace, name: saName, uid: saUid! }, String(meta['name']));
    await this.registry.patch(secrets, namespace, String(meta['name']), (current) => {
      const m = metadataOf(current);
      m['annotations'] = { ...(isObject(m['annotations']) ? m['annotations'] : {}), [SA_UID]: saUid };
      const d = isObject(current['data']) ? { ...current['data'] } : {};
      if (!d['token']) d['token'] = Buffer.from(token).toString('base64');
      d['ca.crt'] = Buffer.from(this.caCert).toString('base64');
      d['namespace'] = Buffer.from(namespace).toString('base64');
      return { ...current, data: d };
    }, undefined, CONTROLLER_WRITER);
  }

  private async removeTokensOf(sa: JsonObject): Promise<void> {
    const meta = metadataOf(sa);
    const secrets = this.registry.definitions.lookup('', 'v1', 'secrets')!;
    for (const secret of (await this.registry.informer(secrets)).list(String(meta['namespace']))) {
      const annotations = metadataOf(secret)['annotations'];
      if (secret['type'] === TOKEN_TYPE && isObject(annotations) && annotations[SA_NAME] === meta['name']) await this.syncSecret(secret);
    }
  }
}
