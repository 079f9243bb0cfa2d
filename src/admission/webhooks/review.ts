// The AdmissionReview a webhook receives (admission.k8s.io/v1 or v1beta1, the first of its
// admissionReviewVersions that is known), and the checks its answer must pass.
import type { UserInfo } from '../../api/user.js';
import type { AdmissionAttributes } from '../types.js';
import { kindOf, type Invocation } from './rules.js';
import type { ReviewObjects } from './versioned.js';
import { type JsonObject, isObject } from '../../json.js';

export type ReviewVersion = 'v1' | 'v1beta1';

/** The first version in the webhook's list that the server speaks; throws when there is none. */
export function reviewVersionOf(versions: string[]): ReviewVersion {
  for (const v of versions) if (v === 'v1' || v === 'v1beta1') return v;
  throw new Error(`webhook does not accept known AdmissionReview versions [${versions.join(' ')}]`);
}

function userInfoOf(user: UserInfo): JsonObject {
  const out: JsonObject = { username: user.name };
  if (user.uid) out['uid'] = user.uid;
  if (user.groups.length) out['groups'] = user.groups;
  if (user.extra && Object.keys(user.extra).length) out['extra'] = user.extra;
  return out;
}

/** The namespace admission names: a namespace's own name for requests on an existing namespace. */
export function admissionNamespace(attrs: AdmissionAttributes): string {
  if (attrs.info.group === '' && attrs.info.resource === 'namespaces' && attrs.operation !== 'CREATE') return attrs.name;
  return attrs.namespace ?? '';
}

/**
 * The request's options as the review carries them: the options of the operation admitted (a
 * patch's PatchOptions become UpdateOptions, or CreateOptions when it creates; a create through
 * PUT gets CreateOptions); a delete's are DeleteOptions.
 */
function optionsOf(attrs: AdmissionAttributes): JsonObject | null {
  const given = attrs.options;
  if (attrs.operation === 'DELETE') {
    if (given && given['kind'] === 'DeleteOptions') return given;
    const options: JsonObject = { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1' };
    if (attrs.dryRun) options['dryRun'] = ['All'];
    return options;
  }
  if (!given) return null;
  const kind = attrs.operation === 'CREATE' ? 'CreateOptions' : attrs.operation === 'UPDATE' ? 'UpdateOptions' : undefined;
  if (!kind || given['kind'] === kind) return given;
  const options: JsonObject = { kind, apiVersion: 'meta.k8s.io/v1' };
  for (const k of ['dryRun', 'fieldManager', 'fieldValidation']) if (given[k] !== undefined) options[k] = given[k];
  return options;
}

/** The AdmissionReview for one call, with the fields in the reference's order. */
export function buildReview(version: ReviewVersion, uid: string, invocation: Invocation, objects: ReviewObjects, attrs: AdmissionAttributes): JsonObject {
  const request: JsonObject = {
    uid,
    kind: invocation.kind,
    resource: invocation.resource,
  };
  if (invocation.subresource) request['subResource'] = invocation.subresource;
  request['requestKind'] = kindOf(attrs.info, attrs.subresource ?? '');
  request['requestResource'] = { group: attrs.info.group, version: attrs.info.version, resource: attrs.info.resource };
  if (attrs.subresource) request['requestSubResource'] = attrs.subresource;
  if (attrs.name) request['name'] = attrs.name;
  const namespace = admissionNamespace(attrs);
  if (namespace) request['namespace'] = namespace;
  request['operation'] = attrs.operation;
  request['userInfo'] = userInfoOf(attrs.user);
  request['object'] = objects.object ?? null;
  request['oldObject'] = objects.oldObject ?? null;
  request['dryRun'] = attrs.dryRun;
  request['options'] = optionsOf(attrs);
  return { kind: 'AdmissionReview', apiVersion: `admission.k8s.io/${version}`, request };
}

/** A webhook's answer, checked. */
export interface ReviewResponse {
  allowed: boolean;
  /** The Status of a denial. */
  result?: JsonObject;
  patch?: Buffer;
  patchType?: string;
  auditAnnotations: Record<string, string>;
  warnings: string[];
}

/** Checks the answer as the reference does (throws with its text); v1beta1 answers are taken as they are. */
export function verifyResponse(version: ReviewVersion, uid: string, mutating: boolean, review: unknown): ReviewResponse {
  const body = isObject(review) ? review : {};
  const response = body['response'];
  if (!isObject(response)) throw new Error('webhook response was absent');
  const patchText = typeof response['patch'] === 'string' ? response['patch'] : '';
  const patchType = typeof response['patchType'] === 'string' ? response['patchType'] : '';
  if (version === 'v1') {
    const got = typeof response['uid'] === 'string' ? response['uid'] : '';
    if (got !== uid) throw new Error(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(got)}`);
    const apiVersion = typeof body['apiVersion'] === 'string' ? body['apiVersion'] : '';
    const kind = typeof body['kind'] === 'string' ? body['kind'] : '';
    if (apiVersion !== 'admission.k8s.io/v1' || kind !== 'AdmissionReview') {
      throw new Error(`expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${apiVersion.includes('/') ? apiVersion : `/${apiVersion}`}, Kind=${kind}`);
    }
    if (mutating && patchText && !patchType) throw new Error('webhook returned response.patch but not response.patchType');
    if (mutating && patchType && !patchText) throw new Error('webhook returned response.patchType but not response.patch');
    if (!mutating && patchType) throw new Error('validating webhook may not return response.patchType');
    if (!mutating && patchText) throw new Error('validating webhook may not return response.patch');
  }
  const annotations = isObject(response['auditAnnotations']) ? response['auditAnnotations'] : {};
  return {
    allowed: response['allowed'] === true,
    result: isObject(response['status']) ? response['status'] : undefined,
    patch: patchText ? Buffer.from(patchText, 'base64') : undefined,
    patchType: patchType || undefined,
    auditAnnotations: Object.fromEntries(Object.entries(annotations).filter((e): e is [string, string] => typeof e[1] === 'string')),
    warnings: Array.isArray(response['warnings']) ? response['warnings'].filter((w): w is string => typeof w === 'string') : [],
  };
}
