// The objects of a request as webhooks see them: in the version of the rule that matched
// (converted from the version the request addressed), and the Scale view for the scale
// subresource. (A CREATE's mutating phase runs before the registry gives the object its name, uid
// and times, as the reference's.) A webhook's change is written back into the admission attributes in place, in the request's
// version.
import { inVersion, type ResourceInfo } from '../../registry/definitions.js';
import type { Registry } from '../../registry/store.js';
import { canonical, metadataOf } from '../../registry/objects.js';
import { applyScale, toScale } from '../../registry/scale.js';
import type { AdmissionAttributes } from '../types.js';
import { kindOf } from './rules.js';
import { type JsonObject, isObject } from '../../json.js';

export interface ReviewObjects {
  /** The new object (absent for DELETE). */
  object?: JsonObject;
  /** The stored object (UPDATE and DELETE). */
  oldObject?: JsonObject;
}

/** The server's, whatever a webhook sends back. */
const SERVER_FIELDS = ['name', 'uid', 'creationTimestamp', 'generation'];

function versionOf(obj: JsonObject, fallback: string): string {
  const apiVersion = obj['apiVersion'];
  return typeof apiVersion === 'string' && apiVersion !== '' ? apiVersion.split('/').pop()! : fallback;
}

/**
 * An object of `info`'s resource (any served version) in `info`'s version, kind and apiVersion
 * first; by the resource's conversion call where it has one (a CRD's conversion webhook), as the
 * reference converts for a webhook matched through matchPolicy Equivalent.
 */
async function inVersionOf(registry: Registry, info: ResourceInfo, subresource: string, obj: JsonObject): Promise<JsonObject> {
  if (subresource === 'scale') return obj; // autoscaling/v1 Scale whatever the parent's version
  const from = versionOf(obj, info.version);
  const byCall = info.definition.hooks.convertByCall;
  const converted = from !== info.version && byCall ? await byCall(registry, obj, from, info.version) : inVersion(info, obj, from);
  const kind = kindOf(info, subresource);
  return canonical(converted, kind.kind, kind.group ? `${kind.group}/${kind.version}` : kind.version);
}

/** The request's objects in the version it addressed. */
export async function requestObjects(registry: Registry, attrs: AdmissionAttributes): Promise<ReviewObjects> {
  const sub = attrs.subresource ?? '';
  const view = async (obj: JsonObject | undefined) => {
    if (!obj) return undefined;
    const o = sub === 'scale' ? toScale(obj, attrs.info.resource) : obj;
    return inVersionOf(registry, attrs.info, sub, o);
  };
  return { object: await view(attrs.object), oldObject: await view(attrs.oldObject) };
}

/** The same objects in the version of `target` (another served version of the same resource). */
export async function objectsIn(registry: Registry, objects: ReviewObjects, target: ResourceInfo, subresource: string): Promise<ReviewObjects> {
  return {
    object: objects.object && await inVersionOf(registry, target, subresource, objects.object),
    oldObject: objects.oldObject && await inVersionOf(registry, target, subresource, objects.oldObject),
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
export async function writeBack(registry: Registry, attrs: AdmissionAttributes, changed: JsonObject): Promise<void> {
  const current = attrs.object;
  if (!current) return;
  const sub = attrs.subresource ?? '';
  let next: JsonObject;
  if (sub === 'scale') {
    next = applyScale(current, changed);
  } else {
    next = await inVersionOf(registry, attrs.info, sub, changed);
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
