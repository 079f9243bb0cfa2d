// ValidatingAdmissionWebhook: the validating webhooks that select a request are called in
// parallel, each with the objects in the version its rule matched. Any denial or (failing closed)
// failure refuses the request; the first webhook's, in order, is the answer.
import type { AdmissionMetrics } from '../../metrics/admission.js';
import type { Registry } from '../../registry/store.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.js';
import { addAnnotation, failedOpenValidatingKey } from './annotations.js';
import { callWebhook } from './call.js';
import type { Webhook } from './config.js';
import { WebhookCallError } from './errors.js';
import { isWebhookConfiguration } from './exempt.js';
import type { Invocation } from './rules.js';
import { Selection } from './selection.js';
import { webhookSource } from './source.js';
import { objectsIn, requestObjects, type ReviewObjects } from './versioned.js';

async function dispatch(registry: Registry, attrs: AdmissionAttributes, hooks: readonly Webhook[], metrics: AdmissionMetrics | undefined): Promise<void> {
  const selection = new Selection(registry, attrs);
  const objects = await requestObjects(registry, attrs);
  const relevant: Invocation[] = [];
  for (const hook of hooks) {
    const invocation = await selection.invocation(hook, objects);
    if (invocation) relevant.push(invocation);
  }
  if (relevant.length === 0) return;
  // One conversion per version the webhooks want.
  const byVersion = new Map<string, Promise<ReviewObjects>>([[attrs.info.apiVersion, Promise.resolve(objects)]]);
  const objectsFor = (invocation: Invocation): Promise<ReviewObjects> => {
    let found = byVersion.get(invocation.info.apiVersion);
    if (!found) byVersion.set(invocation.info.apiVersion, (found = objectsIn(registry, objects, invocation.info, attrs.subresource ?? '')));
    return found;
  };
  const outcomes = await Promise.all(relevant.map(async (invocation, index): Promise<unknown> => {
    try {
      await callWebhook(registry, attrs, invocation, await objectsFor(invocation), false, metrics);
      return undefined;
    } catch (err) {
      if (!(err instanceof WebhookCallError)) return err;
      if (invocation.hook.failurePolicy === 'Ignore') {
        addAnnotation(attrs, failedOpenValidatingKey(index), invocation.hook.name);
        return undefined;
      }
      return err.toStatusError();
    }
  }));
  const refusal = outcomes.find((o) => o !== undefined);
  if (refusal !== undefined) throw refusal;
}

export function validatingAdmissionWebhook(): AdmissionPlugin {
  return {
    name: 'ValidatingAdmissionWebhook',
    async validate(attrs, { registry, metrics }) {
      if (isWebhookConfiguration(attrs)) return;
      const hooks = await webhookSource(registry, 'validating').hooks();
      if (hooks.length === 0) return;
      await dispatch(registry, attrs, hooks, metrics);
    },
  };
}
