// The horizontalpodautoscaling controller, as far as it acts without a metrics API (capstan serves
// none, as the reference's recording ran without metrics-server): each HorizontalPodAutoscaler is
// looked at every 15 s, the first time 15 s after it appears (as the reference's rate-limited
// queue); its target's scale is read (AbleToScale), brought within [minReplicas, maxReplicas]
// when outside, and otherwise the metrics it names cannot be had (ScalingActive False, with the
// reference's events and messages). Status is written only when it changes.
import { StatusError } from '../errors.js';
import type { ResourceInfo } from '../registry/definitions.js';
import type { Informer, ObjectVersion, Subscription } from '../registry/informers.js';
import type { Registry } from '../registry/store.js';
import { type JsonObject, decodeJson, isObject, jsonEqual, now } from '../json.js';
import { EventRecorder, type EventType } from './kit/events.js';
import { WorkQueue, keyOf, splitKey } from './kit/work-queue.js';
import { controllerWriter } from './kit/writer.js';
import { metadataOf } from '../registry/objects.js';

export const HPA_COMPONENT = 'horizontal-pod-autoscaler';
const SYNC_PERIOD_MS = 15_000;

export interface HorizontalPodAutoscalerOptions {
  /** The reference's --horizontal-pod-autoscaler-sync-period. */
  syncPeriodMs?: number;
}

interface Condition {
  type: string;
  status: 'True' | 'False';
  lastTransitionTime?: string;
  reason: string;
  message: string;
}

/**
 * What fetching a metric without a metrics API fails with: the condition's reason, the error the
 * condition and its own event tell, and the error the controller returns (in FailedComputeMetricsReplicas).
 */
function metricFailure(metric: JsonObject, namespace: string): { reason: string; error: string; returned: string } {
  const type = String(metric['type'] ?? '');
  const sourceOf = (field: string): JsonObject => (isObject(metric[field]) ? (metric[field] as JsonObject) : {});
  const metricName = (source: JsonObject) => (isObject(source['metric']) ? String(source['metric']['name'] ?? '') : '');
  const noCustomMetrics = 'unable to fetch metrics from custom metrics API: no custom metrics API (custom.metrics.k8s.io) registered';
  switch (type) {
    case 'Resource':
    case 'ContainerResource': {
      const source = sourceOf(type === 'Resource' ? 'resource' : 'containerResource');
      const name = String(source['name'] ?? '');
      const target = isObject(source['target']) ? source['target'] : {};
      const what = target['averageValue'] !== undefined ? 'usage' : 'utilization';
      const error = `failed to get ${name} ${what}: unable to get metrics for resource ${name}: unable to fetch metrics from resource metrics API: the server could not find the requested resource (get pods.metrics.k8s.io)`;
      return { reason: type === 'Resource' ? 'FailedGetResourceMetric' : 'FailedGetContainerResourceMetric', error, returned: error };
    }
    case 'Pods': {
      const error = `unable to get metric ${metricName(sourceOf('pods'))}: ${noCustomMetrics}`;
      return { reason: 'FailedGetPodsMetric', error, returned: `failed to get pods metric value: ${error}` };
    }
    case 'Object': {
      const source = sourceOf('object');
      const described = isObject(source['describedObject']) ? source['describedObject'] : {};
      const error = `unable to get metric ${metricName(source)}: ${String(described['kind'] ?? '')} on ${namespace} ${String(described['name'] ?? '')}/${noCustomMetrics}`;
      return { reason: 'FailedGetObjectMetric', error, returned: `failed to get object metric value: ${error}` };
    }
    case 'External': {
      const name = metricName(sourceOf('external'));
      const error = `unable to get external metric ${namespace}/${name}/nil: unable to fetch metrics from external metrics API: the server could not find the requested resource (get ${name}.external.metrics.k8s.io)`;
      return { reason: 'FailedGetExternalMetric', error, returned: `failed to get external metric value: ${error}` };
    }
    default: {
      const error = `unknown metric source type "${type}"`;
      return { reason: 'InvalidMetricSourceType', error, returned: error };
    }
  }
}

/** The conditions with one set as the reference's setCondition: the transition time moves only when the status does. */
function setCondition(conditions: Condition[], type: string, status: 'True' | 'False', reason: string, message: string): Condition[] {
  const i = conditions.findIndex((c) => c.type === type);
  const old = i >= 0 ? conditions[i] : undefined;
  const next: Condition = {
    type, status,
    lastTransitionTime: old && old.status === status ? old.lastTransitionTime : now(),
    reason, message,
  };
  return i >= 0 ? conditions.map((c, j) => (j === i ? next : c)) : [...conditions, next];
}

export class HorizontalPodAutoscalerController {
  private readonly writer = controllerWriter('horizontal-pod-autoscaler');
  private readonly events: EventRecorder;
  private readonly subscriptions: Subscription[] = [];
  private readonly queue = new WorkQueue((key) => this.reconcile(key), { workers: 1 });
  /** The next look at each autoscaler. */
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private hpas!: Informer;
  private hpaInfo!: ResourceInfo;
  private stopped = false;

  constructor(private readonly registry: Registry, private readonly options: HorizontalPodAutoscalerOptions = {}) {
    this.events = new EventRecorder(registry, HPA_COMPONENT, this.writer);
  }

  async start(): Promise<void> {
    const info = this.registry.definitions.lookup('autoscaling', 'v2', 'horizontalpodautoscalers');
    if (!info) return;
    this.hpaInfo = info;
    this.hpas = await this.registry.informer(info);
    const seen = (h: ObjectVersion) => this.schedule(keyOf(h.namespace, h.name));
    this.subscriptions.push(this.hpas.subscribe({
      added: seen,
      updated: seen,
      deleted: (h) => this.forget(keyOf(h.namespace, h.name)),
    }));
  }

  stop(): void {
    this.stopped = true;
    for (const s of this.subscriptions) s.stop();
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.queue.stop();
  }

  /** Resolves once nothing is being worked (tests). */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  private get period(): number {
    return this.options.syncPeriodMs ?? SYNC_PERIOD_MS;
  }

  /** A look one period from now, unless one is already due (a change does not hurry it, as in the reference). */
  private schedule(key: string): void {
    if (this.stopped || this.timers.has(key)) return;
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.queue.add(key);
    }, this.period);
    timer.unref();
    this.timers.set(key, timer);
  }

  private forget(key: string): void {
    const timer = this.timers.get(key);
    if (timer) clearTimeout(timer);
    this.timers.delete(key);
  }

  private async reconcile(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const hpa = this.hpas.get(namespace, name);
    if (!hpa) return;
    try {
      await this.reconcileAutoscaler(hpa);
    } catch (err) {
      if (process.env['CAPSTAN_DEBUG_CONTROLLERS']) console.error(`${HPA_COMPONENT}: ${key}:`, err);
    } finally {
      this.schedule(key);
    }
  }

  private async reconcileAutoscaler(hpa: JsonObject): Promise<void> {
    const spec = isObject(hpa['spec']) ? hpa['spec'] : {};
    const oldStatus = isObject(hpa['status']) ? hpa['status'] : {};
    let conditions: Condition[] = Array.isArray(oldStatus['conditions']) ? (oldStatus['conditions'] as Condition[]) : [];
    const status = (currentReplicas: number, desiredReplicas: number, lastScaleTime: unknown): JsonObject => {
      const out: JsonObject = {};
      if (oldStatus['observedGeneration'] !== undefined) out['observedGeneration'] = oldStatus['observedGeneration'];
      if (lastScaleTime !== undefined) out['lastScaleTime'] = lastScaleTime;
      if (currentReplicas) out['currentReplicas'] = currentReplicas;
      out['desiredReplicas'] = desiredReplicas;
      out['currentMetrics'] = oldStatus['currentMetrics'] ?? null;
      if (conditions.length) out['conditions'] = conditions;
      return out;
    };
    const keepCounts = () => status(Number(oldStatus['currentReplicas'] ?? 0), Number(oldStatus['desiredReplicas'] ?? 0), oldStatus['lastScaleTime']);

    const target = await this.targetScale(hpa, spec);
    if ('error' in target) {
      this.record(hpa, 'Warning', 'FailedGetScale', target.error);
      conditions = setCondition(conditions, 'AbleToScale', 'False', 'FailedGetScale', `the HPA controller was unable to get the target's current scale: ${target.error}`);
      await this.writeStatus(hpa, oldStatus, keepCounts());
      return;
    }
    conditions = setCondition(conditions, 'AbleToScale', 'True', 'SucceededGetScale', "the HPA controller was able to get the target's current scale");
    const scaleSpec = isObject(target.scale['spec']) ? target.scale['spec'] : {};
    const currentReplicas = Number(scaleSpec['replicas'] ?? 0);
    const minReplicas = typeof spec['minReplicas'] === 'number' ? spec['minReplicas'] : 1;
    const maxReplicas = Number(spec['maxReplicas'] ?? 0);

    let desiredReplicas: number;
    let reason: string;
    if (currentReplicas === 0 && minReplicas !== 0) {
      conditions = setCondition(conditions, 'ScalingActive', 'False', 'ScalingDisabled', 'scaling is disabled since the replica count of the target is zero');
      await this.writeStatus(hpa, oldStatus, status(currentReplicas, currentReplicas, oldStatus['lastScaleTime']));
      return;
    } else if (currentReplicas > maxReplicas) {
      desiredReplicas = maxReplicas;
      reason = 'Current number of replicas above Spec.MaxReplicas';
    } else if (currentReplicas < minReplicas) {
      desiredReplicas = minReplicas;
      reason = 'Current number of replicas below Spec.MinReplicas';
    } else {
      // Within bounds: a decision needs metrics, and there is no metrics API to ask.
      const failure = this.metricsUnavailable(hpa, spec, target.scale);
      conditions = setCondition(conditions, 'ScalingActive', 'False', failure.reason, failure.message);
      await this.writeStatus(hpa, oldStatus, status(currentReplicas, Number(oldStatus['desiredReplicas'] ?? 0), oldStatus['lastScaleTime']));
      this.record(hpa, 'Warning', 'FailedComputeMetricsReplicas', failure.error);
      return;
    }

    try {
      await this.registry.updateScale(target.info, String(metadataOf(hpa)['namespace']), target.name, (scale) => ({
        ...scale, spec: { ...(isObject(scale['spec']) ? scale['spec'] : {}), replicas: desiredReplicas },
      }), this.writer);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.record(hpa, 'Warning', 'FailedRescale', `New size: ${desiredReplicas}; reason: ${reason}; error: ${message}`);
      conditions = setCondition(conditions, 'AbleToScale', 'False', 'FailedUpdateScale', `the HPA controller was unable to update the target scale: ${message}`);
      await this.writeStatus(hpa, oldStatus, status(currentReplicas, Number(oldStatus['desiredReplicas'] ?? 0), oldStatus['lastScaleTime']));
      return;
    }
    conditions = setCondition(conditions, 'AbleToScale', 'True', 'SucceededRescale', `the HPA controller was able to update the target scale to ${desiredReplicas}`);
    this.record(hpa, 'Normal', 'SuccessfulRescale', `New size: ${desiredReplicas}; reason: ${reason}`);
    await this.writeStatus(hpa, oldStatus, status(currentReplicas, desiredReplicas, now()));
  }

  /** The scale of the autoscaler's target, or the reference's reason it cannot be had. */
  private async targetScale(hpa: JsonObject, spec: JsonObject): Promise<{ scale: JsonObject; info: ResourceInfo; name: string } | { error: string }> {
    const ref = isObject(spec['scaleTargetRef']) ? spec['scaleTargetRef'] : {};
    const apiVersion = String(ref['apiVersion'] ?? '');
    const kind = String(ref['kind'] ?? '');
    const name = String(ref['name'] ?? '');
    const parts = apiVersion.split('/');
    if (parts.length > 2) return { error: `unexpected GroupVersion string: ${apiVersion}` };
    const group = parts.length === 2 ? parts[0] : '';
    const versions = this.registry.definitions.group(group)?.versions ?? [];
    const info = versions.map((v) => this.registry.definitions.byKind(group, v, kind)).find((i): i is ResourceInfo => i !== undefined);
    if (!info) return { error: `no matches for kind "${kind}" in group "${group}"` };
    if (!info.subresources.has('scale')) return { error: 'the server could not find the requested resource' };
    try {
      const scale = decodeJson(await this.registry.getScale(info, String(metadataOf(hpa)['namespace']), name));
      return { scale, info, name };
    } catch (err) {
      if (err instanceof StatusError) return { error: err.message };
      throw err;
    }
  }

  /** ScalingActive's reason and message, the events' texts, for metrics that cannot be fetched. */
  private metricsUnavailable(hpa: JsonObject, spec: JsonObject, scale: JsonObject): { reason: string; message: string; error: string } {
    const selector = isObject(scale['status']) ? String(scale['status']['selector'] ?? '') : '';
    if (!selector) {
      this.record(hpa, 'Warning', 'SelectorRequired', 'selector is required');
      return { reason: 'InvalidSelector', message: "the HPA target's scale is missing a selector", error: 'selector is required' };
    }
    const metrics = Array.isArray(spec['metrics']) ? spec['metrics'].filter(isObject) : [];
    const failures = metrics.map((m) => metricFailure(m, String(metadataOf(hpa)['namespace'])));
    // The first failing metric speaks for all (each one's own event is recorded as it fails).
    for (const f of failures) this.record(hpa, 'Warning', f.reason, f.error);
    const first = failures[0] ?? { reason: '', error: '<nil>', returned: '<nil>' };
    return {
      reason: first.reason,
      message: `the HPA was unable to compute the replica count: ${first.error}`,
      error: `invalid metrics (${failures.length} invalid out of ${metrics.length}), first error is: ${first.returned}`,
    };
  }

  private async writeStatus(hpa: JsonObject, oldStatus: JsonObject, next: JsonObject): Promise<void> {
    if (jsonEqual(oldStatus, next)) return;
    const meta = metadataOf(hpa);
    try {
      await this.registry.patch(this.hpaInfo, String(meta['namespace']), String(meta['name']), (current) => ({ ...current, status: next }), 'status', this.writer);
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return;
      this.record(hpa, 'Warning', 'FailedUpdateStatus', err instanceof Error ? err.message : String(err));
    }
  }

  private record(hpa: JsonObject, type: EventType, reason: string, message: string): void {
    this.events.record({ ...hpa, apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' }, type, reason, message);
  }
}
