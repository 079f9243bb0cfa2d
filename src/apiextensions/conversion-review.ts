// The ConversionReview a CRD's conversion webhook is sent (apiextensions.k8s.io/v1 or v1beta1, the
// first of conversionReviewVersions this server speaks), and the checks of its answer in the
// reference's words: review kind and uid (v1 only, as the reference), result status, the number of
// objects, each object's apiVersion, kind, name, namespace and uid. The converted object keeps the
// original's metadata but for labels and annotations, which the webhook may change (validated).
import { validateLabels, isQualifiedName } from '../api/names.js';
import type { FieldError } from '../errors.js';
import { type JsonObject, isObject, copyJson } from '../json.js';

export type ReviewVersion = 'v1' | 'v1beta1';

const REVIEW_GROUP = 'apiextensions.k8s.io';

/** A check of the review answered that failed: the reference's words after "conversion webhook for <gvk> failed: ". */
export class ReviewError extends Error {}

/** A converted object that is not acceptable: the reference's words after "conversion webhook for <gvk> returned ". */
export class ConvertedObjectError extends Error {}

/** A failure the reference reports as is, without the "conversion webhook for …" prefix. */
export class UnwrappedReviewError extends Error {}

/** The review version to send: the first one listed that this server speaks. */
export function reviewVersionOf(listed: readonly string[]): ReviewVersion {
  for (const v of listed) if (v === 'v1' || v === 'v1beta1') return v;
  throw new UnwrappedReviewError('no supported conversion review versions');
}

/** The review as the reference sends it (its empty response included). */
export function buildConversionReview(version: ReviewVersion, uid: string, desiredAPIVersion: string, objects: JsonObject[]): JsonObject {
  return {
    kind: 'ConversionReview',
    apiVersion: `${REVIEW_GROUP}/${version}`,
    request: { uid, desiredAPIVersion, objects },
    response: { uid: '', convertedObjects: null, result: { metadata: {} } },
  };
}

/** Go's GroupVersionKind.String() of an object's apiVersion and kind: "group/version, Kind=Kind". */
export function gvkText(apiVersion: string, kind: string): string {
  const slash = apiVersion.indexOf('/');
  const [group, version] = slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
  return `${group}/${version}, Kind=${kind}`;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * The converted objects of a webhook's answer to the review `uid`, after the checks the reference
 * makes of the review itself; throws ReviewError.
 */
export function convertedObjectsOf(version: ReviewVersion, uid: string, answer: unknown): unknown[] {
  if (!isObject(answer) || typeof answer['kind'] !== 'string' || answer['kind'] === '') {
    throw new ReviewError(`Object 'Kind' is missing in '${JSON.stringify(answer)}'`);
  }
  // v1beta1 reviews were never checked for their kind and uid; the reference keeps it so.
  if (version === 'v1') {
    const expected = `${REVIEW_GROUP}/v1, Kind=ConversionReview`;
    const got = gvkText(str(answer['apiVersion']), answer['kind']);
    if (got !== expected) throw new ReviewError(`expected webhook response of ${expected}, got ${got}`);
  }
  const response = answer['response'];
  if (!isObject(response)) throw new ReviewError('no response provided');
  if (version === 'v1' && str(response['uid']) !== uid) {
    throw new ReviewError(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(str(response['uid']))}`);
  }
  const result = isObject(response['result']) ? response['result'] : {};
  if (result['status'] !== 'Success') {
    const message = str(result['message']);
    throw new ReviewError(message || `response.result.status was '${str(result['status'])}', not 'Success'`);
  }
  return Array.isArray(response['convertedObjects']) ? response['convertedObjects'] : [];
}

/** Go's %T of a decoded JSON value, as the reference prints it. */
function goTypeOf(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

function aggregate(errors: FieldError[]): string {
  const list = [...new Set(errors.map((e) => `${e.field}: ${e.detail}`))];
  return list.length === 1 ? list[0]! : `[${list.join(', ')}]`;
}

function annotationErrors(annotations: Record<string, string>): FieldError[] {
  // The reference names the path "metadata.annotation" here.
  return Object.keys(annotations).flatMap((k) =>
    isQualifiedName(k.toLowerCase()).map((why): FieldError => ({ type: 'FieldValueInvalid', field: 'metadata.annotation', detail: `Invalid value: ${JSON.stringify(k)}: ${why}` })),
  );
}

/**
 * Checks one converted object against its original and the desired version; answers it with the
 * original's metadata but the webhook's labels and annotations. Throws ConvertedObjectError.
 */
export function checkConvertedObject(original: JsonObject, raw: unknown, desiredAPIVersion: string): JsonObject {
  if (!isObject(raw) || typeof raw['kind'] !== 'string' || raw['kind'] === '') {
    // Not wrapped by the reference: its decoder's own error.
    throw new UnwrappedReviewError(`Object 'Kind' is missing in '${JSON.stringify(raw)}'`);
  }
  const converted = copyJson(raw);
  const apiVersion = str(converted['apiVersion']);
  if (apiVersion !== desiredAPIVersion) throw new ConvertedObjectError(`invalid object at index 0: invalid groupVersion (expected ${desiredAPIVersion}, received ${apiVersion})`);
  const kind = str(original['kind']);
  if (converted['kind'] !== kind) throw new ConvertedObjectError(`invalid object at index 0: invalid kind (expected ${kind}, received ${str(converted['kind'])})`);
  const before = isObject(original['metadata']) ? original['metadata'] : {};
  const after = isObject(converted['metadata']) ? converted['metadata'] : {};
  for (const [field, name] of [['name', 'name'], ['namespace', 'namespace'], ['uid', 'UID']] as const) {
    if (str(before[field]) !== str(after[field])) throw new ConvertedObjectError(`invalid object: must have the same ${name}: ${str(before[field])} != ${str(after[field])}`);
  }
  converted['metadata'] = restoredMetadata(before, converted['metadata']);
  return converted;
}

/** The original metadata with the webhook's labels and annotations (the only metadata it may change). */
function restoredMetadata(original: JsonObject, answered: unknown): JsonObject {
  if (answered === undefined) throw new ConvertedObjectError('invalid metadata: missing metadata in converted object');
  if (!isObject(answered)) throw new ConvertedObjectError(`invalid metadata: invalid metadata of type ${goTypeOf(answered)} in converted object`);
  const out = copyJson(original);
  for (const field of ['labels', 'annotations'] as const) {
    const given = answered[field];
    if (given === undefined || given === null) {
      delete out[field];
      continue;
    }
    if (!isObject(given)) throw new ConvertedObjectError(`invalid metadata: invalid metadata.${field} of type ${goTypeOf(given)} in converted object`);
    const had = isObject(out[field]) ? (out[field] as JsonObject) : {};
    let changed = Object.keys(had).length !== Object.keys(given).length;
    for (const [k, v] of Object.entries(given)) {
      if (typeof v !== 'string') throw new ConvertedObjectError(`invalid metadata: metadata.${field}[${k}] must be a string, but is ${goTypeOf(v)} in converted object`);
      if (had[k] !== v) changed = true;
    }
    if (changed) {
      const errors = field === 'labels' ? validateLabels(given, 'metadata.labels') : annotationErrors(given as Record<string, string>);
      if (errors.length) throw new ConvertedObjectError(`invalid metadata: ${aggregate(errors)}`);
    }
    out[field] = given;
  }
  return out;
}
