// The admission chain: enabled plugins in the reference's fixed order; mutating phase, then validating.
import type { UserInfo } from '../api/user.js';
import type { AdmissionFor } from '../registry/store.js';
import type { AdmissionMetrics, AdmissionStep, WebhookLatencies } from '../metrics/admission.js';
import type { AdmissionAttributes, AdmissionPlugin, AdmissionServices } from './types.js';

/** Every plugin name the reference knows, in its fixed order (the order of --enable-admission-plugins does not matter). */
export const ORDERED_PLUGINS = [
  'AlwaysAdmit', 'NamespaceAutoProvision', 'NamespaceLifecycle', 'NamespaceExists', 'SecurityContextDeny',
  'LimitPodHardAntiAffinityTopology', 'LimitRanger', 'ServiceAccount', 'NodeRestriction', 'TaintNodesByCondition',
  'AlwaysPullImages', 'ImagePolicyWebhook', 'PodSecurity', 'PodNodeSelector', 'Priority', 'DefaultTolerationSeconds',
  'PodTolerationRestriction', 'EventRateLimit', 'ExtendedResourceToleration', 'PersistentVolumeLabel',
  'DefaultStorageClass', 'StorageObjectInUseProtection', 'OwnerReferencesPermissionEnforcement',
  'PersistentVolumeClaimResize', 'RuntimeClass', 'CertificateApproval', 'CertificateSigning',
  'CertificateSubjectRestriction', 'DefaultIngressClass', 'DenyServiceExternalIPs',
  'MutatingAdmissionWebhook', 'ValidatingAdmissionWebhook', 'ResourceQuota', 'AlwaysDeny',
] as const;

/** The plugins on by default in 1.25 (kube-apiserver's DefaultOffAdmissionPlugins complement). */
export const DEFAULT_ENABLED = new Set<string>([
  'NamespaceLifecycle', 'LimitRanger', 'ServiceAccount', 'TaintNodesByCondition', 'PodSecurity', 'Priority',
  'DefaultTolerationSeconds', 'DefaultStorageClass', 'StorageObjectInUseProtection', 'PersistentVolumeClaimResize',
  'RuntimeClass', 'CertificateApproval', 'CertificateSigning', 'CertificateSubjectRestriction', 'DefaultIngressClass',
  'MutatingAdmissionWebhook', 'ValidatingAdmissionWebhook', 'ResourceQuota',
]);

/** Which plugins run: the defaults plus --enable-admission-plugins minus --disable-admission-plugins. */
export function enabledPlugins(enable: string[] = [], disable: string[] = []): Set<string> {
  const known = new Set<string>(ORDERED_PLUGINS);
  for (const name of [...enable, ...disable]) {
    if (!known.has(name)) throw new Error(`admission-control plugin "${name}" is not registered`);
  }
  const on = new Set([...DEFAULT_ENABLED, ...enable]);
  for (const name of disable) on.delete(name);
  return on;
}

export class AdmissionChain {
  private readonly plugins: AdmissionPlugin[];

  /** `available` are the implemented plugins; those `enabled` run, in the reference's order. */
  constructor(available: AdmissionPlugin[], enabled: Set<string>, private readonly services: AdmissionServices) {
    const rank = (name: string) => (ORDERED_PLUGINS as readonly string[]).indexOf(name);
    this.plugins = available.filter((p) => enabled.has(p.name)).sort((a, b) => rank(a.name) - rank(b.name));
  }

  names(): string[] {
    return this.plugins.map((p) => p.name);
  }

  /** Whether a plugin runs (for rules the registry enforces on a plugin's behalf). */
  has(name: string): boolean {
    return this.plugins.some((p) => p.name === name);
  }

  async mutate(attributes: AdmissionAttributes): Promise<void> {
    const metrics = this.services.metrics;
    if (metrics) return this.measuredPhase(metrics, 'admit', attributes);
    for (const p of this.plugins) if (p.mutate) await p.mutate(attributes, this.services);
  }

  async validate(attributes: AdmissionAttributes): Promise<void> {
    const metrics = this.services.metrics;
    if (metrics) return this.measuredPhase(metrics, 'validate', attributes);
    for (const p of this.plugins) if (p.validate) await p.validate(attributes, this.services);
  }

  /** A phase with its latency and each plugin's recorded (the reference's step and controller metrics). */
  private async measuredPhase(metrics: AdmissionMetrics, step: AdmissionStep, attributes: AdmissionAttributes): Promise<void> {
    const operation = attributes.operation;
    const phaseStarted = performance.now();
    let rejected = false;
    try {
      for (const p of this.plugins) {
        const run = step === 'admit' ? p.mutate : p.validate;
        if (!run) continue;
        const started = performance.now();
        let pluginRejected = false;
        try {
          await run.call(p, attributes, this.services);
        } catch (err) {
          pluginRejected = true;
          throw err;
        } finally {
          metrics.observeController(p.name, step, operation, pluginRejected, (performance.now() - started) / 1000);
        }
      }
    } catch (err) {
      rejected = true;
      throw err;
    } finally {
      metrics.observeStep(step, operation, rejected, (performance.now() - phaseStarted) / 1000);
    }
  }

  /**
   * The admission of writes by `user` (its warnings collected in `warnings`, its time in webhooks
   * in `webhookLatencies`), as handed to the
   * registry: the registry says what each write is, this builds its attributes and runs the
   * chain's phases on the objects the registry passes.
   */
  for(user: UserInfo, warnings: string[] = [], webhookLatencies?: WebhookLatencies, auditAnnotations?: Record<string, string>): AdmissionFor {
    return (target) => {
      // The request's audit annotations when it is audited.
      const annotations: Record<string, string> = auditAnnotations ?? {};
      const attributes = (object: AdmissionAttributes['object'], oldObject: AdmissionAttributes['oldObject']): AdmissionAttributes =>
        ({ ...target, object, oldObject, user, warnings, annotations, ...(webhookLatencies ? { webhookLatencies } : {}) });
      return {
        mutate: (object, oldObject) => this.mutate(attributes(object, oldObject)),
        validate: (object, oldObject) => this.validate(attributes(object, oldObject)),
      };
    };
  }
}
