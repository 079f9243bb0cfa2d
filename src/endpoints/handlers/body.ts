// Request bodies of creates and updates: JSON, YAML or Protobuf, decoded as the kind the endpoint
// expects; an object of the endpoint's own kind is checked for unknown and repeated fields as the
// request's fieldValidation asks.
import { auditOf } from '../../audit/record.js';
import { decodeObject } from '../../encoding/decode.js';
import { checkObjectBody, type FieldValidation } from '../../encoding/fieldvalidation.js';
import { decodeProtobufObject, PROTOBUF_MEDIA_TYPE } from '../../encoding/protobuf.js';
import { unsupportedMediaType } from '../../errors.js';
import type { JsonObject } from '../../json.js';
import { mediaTypeOf } from '../negotiation.js';
import { readBody } from '../request.js';
import type { Scope } from './scope.js';

/** The decoded body; with `fields`, checked (and unknown fields dropped) as fieldValidation says. */
export async function objectBody(scope: Scope, kind: string, fields?: { level: FieldValidation }): Promise<JsonObject> {
  const { req, info, registry } = scope;
  const type = mediaTypeOf(req.headers['content-type']) || 'application/json';
  // Custom resources have no Protobuf messages: their bodies are JSON or YAML (the reference, its
  // serializers listing Protobuf, crashes on one and closes the connection).
  const protobufRead = info.definition.builtin || kind !== info.kind;
  if (type === PROTOBUF_MEDIA_TYPE && protobufRead) {
    const decoded = decodeProtobufObject(await readBody(req), kind).object;
    auditOf(scope.res)?.logRequestObject(decoded);
    return decoded;
  }
  if (type !== 'application/json' && type !== 'application/yaml') {
    await readBody(req).catch(() => undefined);
    throw protobufRead ? unsupportedMediaType() : unsupportedMediaType(['application/json', 'application/yaml']);
  }
  const text = (await readBody(req)).toString('utf8');
  const body = decodeObject(text, type, kind);
  auditOf(scope.res)?.logRequestObject(body);
  if (fields) {
    // A body of another kind or version is refused (or converted) before it is decoded.
    if (body['apiVersion'] !== info.apiVersion || body['kind'] !== info.kind) registry.checkTypeMeta(info, body);
    const endpoint = { group: info.group, version: info.version, kind: info.kind };
    const prune = info.definition.hooks.pruneUnknown;
    const pruneUnknown = prune && ((obj: JsonObject) => prune(obj, info.version));
    checkObjectBody({ text, yaml: type === 'application/yaml', object: body, endpoint, pruneUnknown }, fields.level, scope.warnings);
  }
  return body;
}
