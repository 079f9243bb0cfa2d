// patch: JSON patch, merge patch, strategic merge patch or server-side apply of an object (or of
// its status and other object subresources), or a patch of its scale.
import { decodeAppliedObject, decodePatch } from '../../encoding/decode.js';
import { applyDuplicates, PatchFieldCheck } from '../../encoding/fieldvalidation.js';
import { badRequest, methodNotAllowed, StatusError } from '../../errors.js';
import { applyStrategicMergePatch } from '../../fieldmanager/index.js';
import { applyJsonPatch } from '../../fieldmanager/jsonpatch.js';
import { applyMergePatch } from '../../fieldmanager/mergepatch.js';
import { type JsonObject, isObject } from '../../json.js';
import { mediaTypeOf } from '../negotiation.js';
import { decodePatchOptions, fieldValidationLevel } from '../options.js';
import { auditOf } from '../../audit/record.js';
import { readBody } from '../request.js';
import { writerOf, type Answer, type Scope } from './scope.js';

const JSON_PATCH = 'application/json-patch+json';
const MERGE_PATCH = 'application/merge-patch+json';
const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
const APPLY_PATCH = 'application/apply-patch+yaml';
const PATCH_TYPES = new Set([JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH]);

const SCALE = { group: 'autoscaling', version: 'v1', kind: 'Scale' };

function unsupportedPatchType(): StatusError {
  return new StatusError(415, 'UnsupportedMediaType', '415: Unsupported Media Type', {});
}

/**
 * Resources defined at run time (custom resources) take no strategic merge patch, as the
 * reference's; its Status has no details (unlike the 415 of an unknown patch type).
 */
function customResourcePatchType(): StatusError {
  return new StatusError(415, 'UnsupportedMediaType', 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml');
}

/** A merge patch must be an object (as the reference's decoding into a map). */
function mergePatchOf(patch: unknown): JsonObject {
  if (!isObject(patch)) throw badRequest('json: cannot unmarshal into Go value of type map[string]interface {}');
  return patch;
}

export async function handlePatch(scope: Scope): Promise<Answer> {
  const { req, registry, info, request, query, user, warnings } = scope;
  const { namespace, name, subresource } = request;
  if (name === undefined) throw methodNotAllowed();
  const type = mediaTypeOf(req.headers['content-type']);
  // A scale is patched, never applied.
  if (!PATCH_TYPES.has(type) || (subresource === 'scale' && type === APPLY_PATCH)) throw unsupportedPatchType();
  if (type === STRATEGIC_MERGE_PATCH && !info.definition.builtin) throw customResourcePatchType();
  const options = decodePatchOptions(query, type === APPLY_PATCH);
  const writer = writerOf(scope, options);
  const raw = await readBody(req);
  auditOf(scope.res)?.logRequestPatch(raw);
  const text = raw.toString('utf8');
  if (subresource === 'scale') {
    const patch = decodePatch(text);
    return registry.updateScale(info, namespace, name, (scale) => {
      if (type === JSON_PATCH) return applyJsonPatch(scale, patch);
      if (type === STRATEGIC_MERGE_PATCH) return applyStrategicMergePatch(SCALE, scale, mergePatchOf(patch));
      return applyMergePatch(scale, mergePatchOf(patch));
    }, writer);
  }
  const level = fieldValidationLevel(options, scope.features.enabled('ServerSideFieldValidation'));
  if (type === APPLY_PATCH) {
    const applied = decodeAppliedObject(text, info.kind);
    const applying = { manager: writer.manager, force: options.force, dryRun: writer.dryRun, user, warnings, options, admission: writer.admission };
    const refused = applyDuplicates(text, level, warnings);
    if (refused) {
      // The reference refuses repeated keys only once the apply itself went through.
      await registry.apply(info, namespace, name, applied, { ...applying, dryRun: true }, subresource);
      throw refused;
    }
    return registry.apply(info, namespace, name, applied, applying, subresource);
  }
  const patch = decodePatch(text);
  const gvk = { group: info.group, version: info.version, kind: info.kind };
  const kindOfPatch = type === JSON_PATCH ? 'json' : type === STRATEGIC_MERGE_PATCH ? 'strategic' : 'merge';
  const prune = info.definition.hooks.pruneUnknown;
  const fields = new PatchFieldCheck(kindOfPatch, text, patch, gvk, level, warnings, prune && ((obj: JsonObject) => prune(obj, info.version)));
  const apply = type === JSON_PATCH
    ? (current: JsonObject) => fields.patched(() => applyJsonPatch(current, patch))
    : type === STRATEGIC_MERGE_PATCH
      ? (current: JsonObject) => fields.patched(() => applyStrategicMergePatch(gvk, current, mergePatchOf(patch)))
      : (current: JsonObject) => fields.patched(() => applyMergePatch(current, mergePatchOf(patch)));
  return registry.patch(info, namespace, name, apply, subresource, writer);
}
