// get: one object as the request's version serves it (its status and other object subresources
// read as the whole object), or its scale.
import { methodNotAllowed } from '../../errors.js';
import { decodeGetOptions } from '../options.js';
import { renderObject } from '../representations.js';
import type { Answer, Scope } from './scope.js';

export async function handleGet(scope: Scope): Promise<Answer> {
  const { registry, info, request, query, negotiated } = scope;
  const { namespace, name, subresource } = request;
  if (name === undefined) throw methodNotAllowed();
  if (subresource === 'scale') return { status: 200, body: await registry.getScale(info, namespace, name) };
  const object = await registry.get(info, namespace, name, decodeGetOptions(query));
  return { status: 200, body: renderObject(info, object, negotiated, query) };
}
