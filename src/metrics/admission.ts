// Admission latencies as the reference reports them: each phase of the chain (the step: admit or
// validate), each plugin (the controller), and each webhook call, with the operation and whether
// it was rejected.
import type { Counter, Registry } from 'prom-client';
import { ADMISSION_CONTROLLER_DURATION, ADMISSION_STEP_DURATION, ADMISSION_WEBHOOK_DURATION, ADMISSION_WEBHOOK_REQUESTS, counter, presummedHistogram } from './families.js';
import { innerMap } from '../maps.js';
import type { HistogramSeries, PresummedHistogram } from './presummed.js';

/**
 * The time one request spent in webhook calls, as the reference tracks it to leave it out of
 * apiserver_request_slo_duration_seconds: mutating calls (one after another) summed, validating
 * ones (in parallel) the longest.
 */
export class WebhookLatencies {
  mutating = 0;
  validating = 0;

  add(mutating: boolean, seconds: number): void {
    if (mutating) this.mutating += seconds;
    else if (seconds > this.validating) this.validating = seconds;
  }

  get seconds(): number {
    return this.mutating + this.validating;
  }
}

/** `admit` for the mutating phase, `validate` for the validating one. */
export type AdmissionStep = 'admit' | 'validate';

/** The type label of a webhook call: the reference's mutating dispatcher says `admit`, its validating one `validating`. */
export type WebhookType = 'admit' | 'validating';

export class AdmissionMetrics {
  // Presummed: a request runs every plugin of both phases, and prom-client's children hash their labels at each observation.
  private readonly step: PresummedHistogram<string>;
  private readonly controller: PresummedHistogram<string>;
  private readonly webhook: PresummedHistogram<string>;
  private readonly webhookRequests: Counter<string>;
  /**
   * Each histogram's series by name, type and operation, then not rejected and rejected: found part
   * by part, as a write runs every plugin of both phases (a key string made of the labels, at each
   * observation, cost more than the rest of the metrics of a create).
   */
  private readonly children = new Map<PresummedHistogram<string>, Map<string, Map<string, Map<string, SeriesPair>>>>();

  constructor(registry: Registry) {
    this.step = presummedHistogram(registry, ADMISSION_STEP_DURATION);
    this.controller = presummedHistogram(registry, ADMISSION_CONTROLLER_DURATION);
    this.webhook = presummedHistogram(registry, ADMISSION_WEBHOOK_DURATION);
    this.webhookRequests = counter(registry, ADMISSION_WEBHOOK_REQUESTS);
  }

  /** A whole phase of the chain ran for `operation` (CREATE, UPDATE, DELETE, CONNECT). */
  observeStep(type: AdmissionStep, operation: string, rejected: boolean, seconds: number): void {
    this.child(this.step, '', type, operation, rejected).observe(seconds);
  }

  /** One plugin's mutate or validate ran. */
  observeController(name: string, type: AdmissionStep, operation: string, rejected: boolean, seconds: number): void {
    this.child(this.controller, name, type, operation, rejected).observe(seconds);
  }

  /** One webhook call: `code` 200 when it allowed, the denial's code, or 0 when the call failed. */
  observeWebhook(name: string, type: WebhookType, operation: string, rejected: boolean, code: number, seconds: number): void {
    this.child(this.webhook, name, type, operation, rejected).observe(seconds);
    // Bounded as the reference bounds it.
    this.webhookRequests.inc({ code: String(Math.min(code, 600)), name, operation, rejected: String(rejected), type });
  }

  private child(h: PresummedHistogram<string>, name: string, type: string, operation: string, rejected: boolean): HistogramSeries<string> {
    const byOperation = innerMap(innerMap(innerMap(this.children, h), name), type);
    let pair = byOperation.get(operation);
    if (pair === undefined) byOperation.set(operation, (pair = [undefined, undefined]));
    const at = rejected ? 1 : 0;
    let series = pair[at];
    if (series === undefined) {
      const labels: Record<string, string> = name ? { name, operation, rejected: String(rejected), type } : { operation, rejected: String(rejected), type };
      series = pair[at] = h.series(labels);
    }
    return series;
  }
}

/** A series not rejected and one rejected, each made when first observed. */
type SeriesPair = [HistogramSeries<string> | undefined, HistogramSeries<string> | undefined];
