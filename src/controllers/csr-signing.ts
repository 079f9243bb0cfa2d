// The built-in CSR signers (the controller manager's csrsigning controller): an approved request for
// one of the kubernetes.io signers gets a certificate from the cluster CA in status.certificate;
// a request the signer refuses gets a Failed condition.
import { StatusError } from '../errors.js';
import { metadataOf } from '../registry/objects.js';
import type { ObjectVersion, Subscription } from '../registry/informers.js';
import { type Registry, CONTROLLER_WRITER } from '../registry/store.js';
import { type JsonObject, isObject, now } from '../json.js';

/** The signer's longest certificate (--cluster-signing-duration's default, one year). */
const MAX_DURATION_SECONDS = 365 * 24 * 3600;
const MIN_DURATION_SECONDS = 600;

/** Usages each built-in signer allows, and the one it requires. */
const SIGNERS: Record<string, { allowed: string[]; required?: string }> = {
  'kubernetes.io/kube-apiserver-client': { allowed: ['digital signature', 'key encipherment', 'client auth'], required: 'client auth' },
  'kubernetes.io/kube-apiserver-client-kubelet': { allowed: ['digital signature', 'key encipherment', 'client auth'], required: 'client auth' },
  'kubernetes.io/kubelet-serving': { allowed: ['digital signature', 'key encipherment', 'server auth'], required: 'server auth' },
  'kubernetes.io/legacy-unknown': { allowed: ['digital signature', 'key encipherment', 'client auth', 'server auth'] },
};

function conditionsOf(csr: JsonObject): JsonObject[] {
  const status = isObject(csr['status']) ? csr['status'] : {};
  return Array.isArray(status['conditions']) ? (status['conditions'] as JsonObject[]) : [];
}

export class CsrSigningController {
  private subscription: Subscription | undefined;
  private readonly inFlight = new Set<string>();

  /** `sign`: the cluster CA's signature of a PKCS#10 request (PEM) with these usages and duration; PEM out. */
  constructor(private readonly registry: Registry, private readonly signWithCa: (requestPem: string, signing: { usages: string[]; durationSeconds: number }) => Promise<string>) {}

  async start(): Promise<void> {
    const info = this.registry.definitions.lookup('certificates.k8s.io', 'v1', 'certificatesigningrequests');
    if (!info) return;
    const consider = (csr: ObjectVersion) => this.consider(csr.object);
    this.subscription = (await this.registry.informer(info)).subscribe({ added: consider, updated: consider });
  }

  stop(): void {
    this.subscription?.stop();
  }

  private consider(csr: JsonObject): void {
    const spec = isObject(csr['spec']) ? csr['spec'] : {};
    const signer = SIGNERS[String(spec['signerName'] ?? '')];
    const status = isObject(csr['status']) ? csr['status'] : {};
    const conditions = conditionsOf(csr);
    const approved = conditions.some((c) => c['type'] === 'Approved' && c['status'] === 'True');
    const finished = conditions.some((c) => (c['type'] === 'Denied' || c['type'] === 'Failed') && c['status'] === 'True');
    const name = String(metadataOf(csr)['name']);
    if (!signer || !approved || finished || status['certificate'] || this.inFlight.has(name)) return;
    this.inFlight.add(name);
    this.sign(csr, signer).catch((err: unknown) => console.error('csr signing:', err)).finally(() => this.inFlight.delete(name));
  }

  private async sign(csr: JsonObject, signer: { allowed: string[]; required?: string }): Promise<void> {
    const spec = isObject(csr['spec']) ? csr['spec'] : {};
    const usages = Array.isArray(spec['usages']) ? spec['usages'].map(String) : [];
    const refused = usages.filter((u) => !signer.allowed.includes(u));
    let failure: string | undefined;
    if (refused.length) failure = `invalid usage for client certificate: ${refused.join(', ')}`;
    else if (signer.required && !usages.includes(signer.required)) failure = `missing required usages: [${signer.required}]`;
    let certificate: string | undefined;
    if (!failure) {
      const requested = typeof spec['expirationSeconds'] === 'number' ? spec['expirationSeconds'] : MAX_DURATION_SECONDS;
      const durationSeconds = Math.max(MIN_DURATION_SECONDS, Math.min(requested, MAX_DURATION_SECONDS));
      try {
        const pem = Buffer.from(String(spec['request'] ?? ''), 'base64').toString('utf8');
        certificate = Buffer.from(await this.signWithCa(pem, { usages, durationSeconds })).toString('base64');
      } catch (err) {
        failure = `unable to parse csr: ${err instanceof Error ? err.message : String(err)}`;
      }
    }
    const info = this.registry.definitions.lookup('certificates.k8s.io', 'v1', 'certificatesigningrequests')!;
    try {
      await this.registry.patch(info, undefined, String(metadataOf(csr)['name']), (current) => {
        const status = isObject(current['status']) ? { ...current['status'] } : {};
        if (certificate) status['certificate'] = certificate;
        else status['conditions'] = [...conditionsOf(current), { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: failure, lastUpdateTime: now(), lastTransitionTime: now() }];
        return { ...current, status };
      }, 'status', CONTROLLER_WRITER);
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return;
      throw err;
    }
  }
}
