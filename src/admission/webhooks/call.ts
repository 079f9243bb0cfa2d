// One webhook call, shared by both dispatchers: the dry-run check, the review, the HTTPS round
// trip, the answer's checks, its audit annotations and warnings, and a denial turned into the
// client's error.
import { randomUUID } from 'node:crypto';
import { StatusError } from '../../errors.js';
import type { AdmissionMetrics } from '../../metrics/admission.js';
import type { Registry } from '../../registry/store.js';
import type { AdmissionAttributes } from '../types.js';
import { addWebhookAnnotations } from './annotations.js';
import { admissionCall, CallFailure, postJson } from '../../registry/webhook-client.js';
import { denial, dryRunUnsupported, WebhookCallError } from './errors.js';
import { buildReview, reviewVersionOf, verifyResponse, type ReviewResponse, type ReviewVersion } from './review.js';
import type { Invocation } from './rules.js';
import type { ReviewObjects } from './versioned.js';

const DRY_RUN_SAFE = new Set(['None', 'NoneOnDryRun']);

/**
 * Calls the webhook of `invocation` with `objects` (in its version). Returns its answer when it
 * allows the request; throws WebhookCallError (failurePolicy applies), or a StatusError for a
 * denial or a dry run the webhook cannot take.
 */
export async function callWebhook(registry: Registry, attrs: AdmissionAttributes, invocation: Invocation, objects: ReviewObjects, mutating: boolean, metrics?: AdmissionMetrics): Promise<ReviewResponse> {
  if (!metrics) return callOnce(registry, attrs, invocation, objects, mutating);
  const started = performance.now();
  const observe = (rejected: boolean, code: number) => {
    const seconds = (performance.now() - started) / 1000;
    metrics.observeWebhook(invocation.hook.name, mutating ? 'admit' : 'validating', attrs.operation, rejected, code, seconds);
    attrs.webhookLatencies?.add(mutating, seconds);
  };
  try {
    const response = await callOnce(registry, attrs, invocation, objects, mutating);
    observe(false, 200);
    return response;
  } catch (err) {
    // As the reference: a failed call rejects only when the webhook fails closed; a denial carries its code.
    if (err instanceof WebhookCallError) observe(invocation.hook.failurePolicy !== 'Ignore', 0);
    else observe(true, err instanceof StatusError ? err.code : 0);
    throw err;
  }
}

async function callOnce(registry: Registry, attrs: AdmissionAttributes, invocation: Invocation, objects: ReviewObjects, mutating: boolean): Promise<ReviewResponse> {
  const hook = invocation.hook;
  if (attrs.dryRun) {
    if (hook.sideEffects === undefined) throw new WebhookCallError(hook.name, 'Webhook SideEffects is nil');
    if (!DRY_RUN_SAFE.has(hook.sideEffects)) throw dryRunUnsupported(hook.name);
  }
  let version: ReviewVersion;
  try {
    version = reviewVersionOf(hook.admissionReviewVersions);
  } catch (err) {
    throw new WebhookCallError(hook.name, `could not create admission objects: ${(err as Error).message}`);
  }
  const uid = randomUUID();
  const review = buildReview(version, uid, invocation, objects, attrs);
  let answer: unknown;
  try {
    answer = await postJson(registry, hook.clientConfig, Buffer.from(JSON.stringify(review)), admissionCall(hook.timeoutSeconds));
  } catch (err) {
    if (err instanceof CallFailure) throw new WebhookCallError(hook.name, `failed to call webhook: ${err.message}`);
    throw err;
  }
  let response: ReviewResponse;
  try {
    response = verifyResponse(version, uid, mutating, answer);
  } catch (err) {
    throw new WebhookCallError(hook.name, `received invalid webhook response: ${(err as Error).message}`);
  }
  addWebhookAnnotations(attrs, hook.name, response.auditAnnotations);
  attrs.warnings.push(...response.warnings);
  if (!response.allowed) throw denial(hook.name, response.result);
  return response;
}
