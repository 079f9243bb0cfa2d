// deletecollection: every object its ListOptions select, each deleted with its DeleteOptions;
// answered with the list of what was deleted.
import { decodeDeleteOptions, decodeListOptions } from '../options.js';
import { renderList } from '../representations.js';
import { mediaTypeOf } from '../negotiation.js';
import { readBody } from '../request.js';
import { deleterOf, type Answer, type Scope } from './scope.js';

export async function handleDeleteCollection(scope: Scope): Promise<Answer> {
  const { req, registry, info, request, query, negotiated } = scope;
  const listOptions = decodeListOptions(query, info, false, scope.features.enabled('APIListChunking'));
  const options = decodeDeleteOptions(query, await readBody(req), mediaTypeOf(req.headers['content-type']));
  const deleted = await registry.deleteCollection(info, request.namespace, listOptions, deleterOf(scope, options));
  return { status: 200, body: renderList(info, deleted, negotiated, query) };
}
