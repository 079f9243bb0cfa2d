// update: a PUT of an object (or of its status and other object subresources, which change only
// their part), or of its scale.
import { decodeObject } from '../../encoding/decode.js';
import { methodNotAllowed } from '../../errors.js';
import { mediaTypeOf } from '../negotiation.js';
import { decodeUpdateOptions, fieldValidationLevel } from '../options.js';
import { readBody } from '../request.js';
import { objectBody } from './body.js';
import { writerOf, type Answer, type Scope } from './scope.js';

export async function handleUpdate(scope: Scope): Promise<Answer> {
  const { req, registry, info, request, query } = scope;
  const { namespace, name, subresource } = request;
  if (name === undefined) throw methodNotAllowed();
  const options = decodeUpdateOptions(query);
  const writer = writerOf(scope, options);
  if (subresource === 'scale') {
    const type = mediaTypeOf(req.headers['content-type']) === 'application/yaml' ? 'application/yaml' : 'application/json';
    const scale = decodeObject(await readBody(req), type, 'Scale');
    const uid = (scale['metadata'] as { uid?: unknown } | undefined)?.uid;
    return registry.updateScale(info, namespace, name, () => scale, writer, typeof uid === 'string' && uid ? uid : undefined);
  }
  const body = await objectBody(scope, info.kind, { level: fieldValidationLevel(options) });
  return registry.update(info, namespace, name, body, subresource, writer);
}
