// watch: the collection's changes (or one object's: the collection's watch narrowed to its name),
// streamed by ../watch.ts from the options the request decoded.
import type { JsonObject } from '../../json.js';
import { metadataOf } from '../../registry/objects.js';
import { selectionOf } from '../../registry/readoptions.js';
import { decodeListOptions } from '../options.js';
import { serveWatch } from '../watch.js';
import type { Answer, Scope } from './scope.js';

export async function handleWatch(scope: Scope): Promise<Answer> {
  const { req, res, registry, info, request, query, negotiated } = scope;
  const options = decodeListOptions(query, info, true);
  // Without timeoutSeconds a watch ends after a random time from --min-request-timeout to twice it, as the reference's.
  options.timeoutSeconds ??= scope.minRequestTimeoutSeconds * (1 + Math.random());
  const selected = selectionOf(info, options);
  const name = request.name;
  const filter = name === undefined ? selected : (obj: JsonObject) => metadataOf(obj)['name'] === name && (!selected || selected(obj));
  const sent = scope.metrics?.watchOf(info.group, info.version, info.kind);
  await serveWatch(req, res, registry, info, request.namespace, options, filter, negotiated, query, sent);
  return undefined;
}
