// The objects of a request as webhooks see them: in the version of the rule that matched
// (converted from the version the request addressed), the Scale view for the scale subresource,
// and in CREATE's mutating phase without what the server only sets after it (uid,
// creationTimestamp, generation, a generated name), as the reference's webhooks see a new object.
// A webhook's change is written back into the admission attributes in place, in the request's
// version.
import type { ResourceInfo } from '../../api/catalog.js';
import { convert } from '../../api/conversion.js';
import { isObject, type JsonObject } from '../../encoding/decode.js';
import { canonical, metadataOf } from '../../registry/objects.js';
import { applyScale, toScale } from '../../registry/scale.js';
import type { AdmissionAttributes } from '../types.js';
import { kindOf } from './rules.js';

export interface ReviewObjects {
  /** The new object (absent for DELETE). */
  object?: JsonObject;
  /** The stored object (UPDATE and DELETE). */
  oldObject?: JsonObject;
}

/** Set by the server when it stores a new object, after mutating admission. */
const LATE_CREATE_FIELDS = ['uid', 'creationTimestamp', 'generation'];
/** The server's, whatever a webhook sends back. */
const SERVER_FIELDS = ['name', ...LATE_CREATE_FIELDS];
const GENERATED_SUFFIX_LENGTH = 5;

/**
 * Whether a CREATE's name is one the server generated from metadata.generateName (the reference
 * generates it after admission starts, so webhooks see no name). Told by its shape: the prefix, cut
 * as the server cuts it, and five more characters.
 */
export function hasGeneratedName(attrs: AdmissionAttributes): boolean {
  if (attrs.operation !== 'CREATE' || !attrs.object) return false;
  const meta = metadataOf(attrs.object);
  const prefix = typeof meta['generateName'] === 'string' ? meta['generateName'].slice(0, 58) : '';
  return prefix !== '' && attrs.name.length === prefix.length + GENERATED_SUFFIX_LENGTH && attrs.name.startsWith(prefix);
}

function versionOf(obj: JsonObject, fallback: string): string {
  const apiVersion = obj['apiVersion'];
  return typeof apiVersion === 'string' && apiVersion !== '' ? apiVersion.split('/').pop()! : fallback;
}

/** An object of `info`'s resource (any served version) in `info`'s version, kind and apiVersion first. */
function inVersionOf(info: ResourceInfo, subresource: string, obj: JsonObject): JsonObject {
  if (subresource === 'scale') return obj; // autoscaling/v1 Scale whatever the parent's version
  const converted = convert(obj, info.group, info.resource, versionOf(obj, info.version), info.version);
  const kind = kindOf(info, subresource);
  return canonical(converted, kind.kind, kind.group ? `${kind.group}/${kind.version}` : kind.version);
}

function withoutLateCreateFields(obj: JsonObject, generatedName: boolean): JsonObject {
  const meta = { ...metadataOf(obj) };
  for (const k of LATE_CREATE_FIELDS) delete meta[k];
  if (generatedName) delete meta['name'];
  return { ...obj, metadata: meta };
}

/** The request's objects in the version it addressed. */
export function requestObjects(attrs: AdmissionAttributes, mutatingCreate: boolean): ReviewObjects {
  const sub = attrs.subresource ?? '';
  const view = (obj: JsonObject | undefined) => {
    if (!obj) return undefined;
    const o = sub === 'scale' ? toScale(obj, attrs.info.resource) : obj;
    return inVersionOf(attrs.info, sub, o);
  };
  let object = view(attrs.object);
  if (object && mutatingCreate) object = withoutLateCreateFields(object, hasGeneratedName(attrs));
  return { object, oldObject: view(attrs.oldObject) };
}

/** The same objects in the version of `target` (another served version of the same resource). */
export function objectsIn(objects: ReviewObjects, target: ResourceInfo, subresource: string): ReviewObjects {
  return {
    object: objects.object && inVersionOf(target, subresource, objects.object),
    oldObject: objects.oldObject && inVersionOf(target, subresource, objects.oldObject),
  };
}

/** Makes `target` equal to `source` keeping nested objects' identity (callers hold references into it). */
function assignInPlace(target: JsonObject, source: JsonObject): void {
  for (const k of Object.keys(target)) if (!(k in source)) delete target[k];
  for (const [k, v] of Object.entries(source)) {
    const old = target[k];
    if (isObject(old) && isObject(v) && old !== v) assignInPlace(old, v);
    else target[k] = v;
  }
}

/** Writes a webhook-changed object (in any served version) back into the attributes. */
export function writeBack(attrs: AdmissionAttributes, changed: JsonObject): void {
  const current = attrs.object;
  if (!current) return;
  const sub = attrs.subresource ?? '';
  let next: JsonObject;
  if (sub === 'scale') {
    next = applyScale(current, changed);
  } else {
    next = inVersionOf(attrs.info, sub, changed);
    // The server's own fields are the server's, whatever the webhook saw or sent.
    const meta = metadataOf(next);
    const before = metadataOf(current);
    for (const k of SERVER_FIELDS) {
      if (before[k] === undefined) delete meta[k];
      else meta[k] = before[k];
    }
  }
  assignInPlace(current, next);
}
