// delete: one object, with the DeleteOptions of its query and body (preconditions, grace period,
// propagation, dry run).
import { methodNotAllowed } from '../../errors.js';
import { decodeDeleteOptions } from '../options.js';
import { mediaTypeOf } from '../negotiation.js';
import { readBody } from '../request.js';
import { deleterOf, type Answer, type Scope } from './scope.js';

export async function handleDelete(scope: Scope): Promise<Answer> {
  const { req, registry, info, request, query } = scope;
  if (request.name === undefined) throw methodNotAllowed();
  const options = decodeDeleteOptions(query, await readBody(req), mediaTypeOf(req.headers['content-type']));
  return registry.delete(info, request.namespace, request.name, deleterOf(scope, options));
}
