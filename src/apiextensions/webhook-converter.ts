// A CRD's `Webhook` conversion: one object at a time (as the reference's storage decodes them), a
// ConversionReview POSTed over the webhook transport admission uses (URL or service, caBundle),
// the answer checked, failures in the reference's words ("conversion webhook for <gvk> failed: …").
import { randomUUID } from 'node:crypto';
import { type JsonObject, isObject } from '../json.js';
import { ConversionFailure } from '../registry/definitions.js';
import type { Registry } from '../registry/store.js';
import { CallFailure, clientConfigFrom, postJson, type CallOptions, type ClientConfig } from '../registry/webhook-client.js';
import { type ReviewVersion, buildConversionReview, checkConvertedObject, ConvertedObjectError, convertedObjectsOf, gvkText, ReviewError, reviewVersionOf, UnwrappedReviewError } from './conversion-review.js';

/** The reference gives conversion calls its webhook client's default deadline, not sent as `?timeout=`. */
const CONVERSION_CALL: CallOptions = { timeoutSeconds: 30, timeoutInQuery: false, userAgent: 'kube-apiserver' };

export interface WebhookConversion {
  clientConfig: ClientConfig;
  reviewVersions: string[];
}

/** The webhook conversion a CRD's spec.conversion asks for; undefined for `None`. */
export function webhookConversionOf(spec: JsonObject): WebhookConversion | undefined {
  const conversion = isObject(spec['conversion']) ? spec['conversion'] : {};
  if (conversion['strategy'] !== 'Webhook') return undefined;
  const webhook = isObject(conversion['webhook']) ? conversion['webhook'] : {};
  const versions = Array.isArray(webhook['conversionReviewVersions']) ? webhook['conversionReviewVersions'].filter((v): v is string => typeof v === 'string') : [];
  return { clientConfig: clientConfigFrom(webhook['clientConfig']), reviewVersions: versions };
}

/** Converts `obj` to `desiredAPIVersion` through the webhook; throws ConversionFailure. */
export async function convertByWebhook(registry: Registry, conversion: WebhookConversion, obj: JsonObject, desiredAPIVersion: string): Promise<JsonObject> {
  const source = gvkText(String(obj['apiVersion'] ?? ''), String(obj['kind'] ?? ''));
  const uid = randomUUID();
  let answer: unknown;
  let version: ReviewVersion;
  try {
    version = reviewVersionOf(conversion.reviewVersions);
    const review = buildConversionReview(version, uid, desiredAPIVersion, [obj]);
    answer = await postJson(registry, conversion.clientConfig, Buffer.from(JSON.stringify(review)), CONVERSION_CALL);
  } catch (err) {
    if (err instanceof CallFailure) throw new ConversionFailure(`conversion webhook for ${source} failed: ${err.message}`);
    if (err instanceof UnwrappedReviewError) throw new ConversionFailure(err.message);
    throw err;
  }
  try {
    const converted = convertedObjectsOf(version, uid, answer);
    if (converted.length !== 1) throw new ConversionFailure(`conversion webhook for ${source} returned ${converted.length} objects, expected 1`);
    return checkConvertedObject(obj, converted[0], desiredAPIVersion);
  } catch (err) {
    if (err instanceof UnwrappedReviewError) throw new ConversionFailure(err.message);
    if (err instanceof ReviewError) throw new ConversionFailure(`conversion webhook for ${source} failed: ${err.message}`);
    if (err instanceof ConvertedObjectError) throw new ConversionFailure(`conversion webhook for ${source} returned ${err.message}`);
    throw err;
  }
}
