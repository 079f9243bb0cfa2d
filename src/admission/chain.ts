// The admission chain: enabled plugins in the reference's fixed order; mutating phase, then validating.
import type { UserInfo } from '../api/user.js';
import type { AdmissionFor } from '../registry/store.js';
import type { AdmissionMetrics, AdmissionStep, WebhookLatencies } from '../metrics/admission.js';
import type { AdmissionAttributes, AdmissionPlugin, AdmissionServices, Operation } from './types.js';

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
  /**
   * Each phase's plugins for each operation, in order: those with the phase that handle the
   * operation. The reference neither runs nor measures a plugin for an operation it does not handle.
   */
  private readonly steps: Record<AdmissionStep, Record<Operation, readonly AdmissionPlugin[]>>;

  /** `available` are the implemented plugins; those `enabled` run, in the reference's order. */
  constructor(available: AdmissionPlugin[], enabled: Set<string>, private readonly services: AdmissionServices) {
    const rank = (name: string) => (ORDERED_PLUGINS as readonly string[]).indexOf(name);
    this.plugins = available.filter((p) => enabled.has(p.name)).sort((a, b) => rank(a.name) - rank(b.name));
    const byOperation = (inPhase: (p: AdmissionPlugin) => boolean): Record<Operation, readonly AdmissionPlugin[]> => {
      const of = (operation: Operation) => this.plugins.filter((p) => inPhase(p) && (p.operations === undefined || p.operations.includes(operation)));
      return { CREATE: of('CREATE'), UPDATE: of('UPDATE'), DELETE: of('DELETE'), CONNECT: of('CONNECT') };
    };
    this.steps = { admit: byOperation((p) => p.mutate !== undefined), validate: byOperation((p) => p.validate !== undefined) };
  }

  names(): string[] {
    return this.plugins.map((p) => p.name);
  }

  /** Whether a plugin runs (for rules the registry enforces on a plugin's behalf). */
  has(name: string): boolean {
    return this.plugins.some((p) => p.name === name);
  }

  mutate(attributes: AdmissionAttributes): Promise<void> {
    return this.phase('admit', attributes);
  }

  validate(attributes: AdmissionAttributes): Promise<void> {
    return this.phase('validate', attributes);
  }

  /**
   * One phase: each of its plugins in order, the next once the one before has finished. A plugin
   * that answers at once (most do, for most writes) is followed at once, without a turn of the
   * microtask queue per plugin; the first that answers with a promise is waited for. A plugin
   * that throws rejects the phase, as an async plugin's rejection does.
   */
  private phase(step: AdmissionStep, attributes: AdmissionAttributes): Promise<void> {
    try {
      const plugins = this.steps[step][attributes.operation];
      const metrics = this.services.metrics;
      const pending = metrics ? this.measuredFrom(metrics, step, plugins, attributes, 0, performance.now()) : this.plainFrom(step, plugins, attributes, 0);
      return pending ?? Promise.resolve();
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** The phase's `plugins` from `from` on; a promise when one of them answers later. */
  private plainFrom(step: AdmissionStep, plugins: readonly AdmissionPlugin[], attributes: AdmissionAttributes, from: number): Promise<void> | undefined {
    for (let i = from; i < plugins.length; i++) {
      const p = plugins[i]!;
      const result = step === 'admit' ? p.mutate!(attributes, this.services) : p.validate!(attributes, this.services);
      if (result) return result.then(() => this.plainFrom(step, plugins, attributes, i + 1));
    }
    return undefined;
  }

  /**
   * plainFrom with the phase's latency and each plugin's recorded (the reference's step and
   * controller metrics); `phaseStarted` is when the phase began.
   */
  private measuredFrom(metrics: AdmissionMetrics, step: AdmissionStep, plugins: readonly AdmissionPlugin[], attributes: AdmissionAttributes, from: number, phaseStarted: number): Promise<void> | undefined {
    const operation = attributes.operation;
    for (let i = from; i < plugins.length; i++) {
      const p = plugins[i]!;
      const started = performance.now();
      let result: Promise<void> | void;
      try {
        result = step === 'admit' ? p.mutate!(attributes, this.services) : p.validate!(attributes, this.services);
      } catch (err) {
        metrics.observeController(p.name, step, operation, true, (performance.now() - started) / 1000);
        metrics.observeStep(step, operation, true, (performance.now() - phaseStarted) / 1000);
        throw err;
      }
      if (result) {
        return result.then(
          () => {
            metrics.observeController(p.name, step, operation, false, (performance.now() - started) / 1000);
            // A throw here rejects the phase (the rest has recorded it).
            return this.measuredFrom(metrics, step, plugins, attributes, i + 1, phaseStarted);
          },
          (err: unknown) => {
            metrics.observeController(p.name, step, operation, true, (performance.now() - started) / 1000);
            metrics.observeStep(step, operation, true, (performance.now() - phaseStarted) / 1000);
            throw err;
          },
        );
      }
      metrics.observeController(p.name, step, operation, false, (performance.now() - started) / 1000);
    }
    metrics.observeStep(step, operation, false, (performance.now() - phaseStarted) / 1000);
    return undefined;
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
      // Built field by field: an object spread followed by more fields is slow in V8 (microseconds).
      const attributes = (object: AdmissionAttributes['object'], oldObject: AdmissionAttributes['oldObject']): AdmissionAttributes => {
        const a = Object.assign({}, target) as AdmissionAttributes;
        a.object = object;
        a.oldObject = oldObject;
        a.user = user;
        a.warnings = warnings;
        a.annotations = annotations;
        if (webhookLatencies) a.webhookLatencies = webhookLatencies;
        return a;
      };
      return {
        mutate: (object, oldObject) => this.mutate(attributes(object, oldObject)),
        validate: (object, oldObject) => this.validate(attributes(object, oldObject)),
      };
    };
  }
}
