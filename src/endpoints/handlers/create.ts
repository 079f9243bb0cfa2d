// create: a POST to a collection (stored, or answered by a resource that stores nothing of its
// own), or to a subresource that acts when created (token, binding, eviction); the registry
// knows which from the resource's definition.
import { methodNotAllowed, resourceNotFound } from '../../errors.js';
import { decodeCreateOptions, fieldValidationLevel } from '../options.js';
import { objectBody } from './body.js';
import { writerOf, type Answer, type Scope } from './scope.js';

export async function handleCreate(scope: Scope): Promise<Answer> {
  const { registry, info, request, query } = scope;
  const { namespace, name, subresource } = request;
  if (name === undefined) {
    if (info.namespaced && namespace === undefined) throw resourceNotFound();
    const options = decodeCreateOptions(query);
    const writer = writerOf(scope, options);
    const body = await objectBody(scope, info.kind, { level: fieldValidationLevel(options, scope.features.enabled('ServerSideFieldValidation')) });
    return registry.create(info, namespace, body, writer);
  }
  if (subresource === undefined) throw methodNotAllowed();
  const options = decodeCreateOptions(query);
  const writer = writerOf(scope, options);
  // The body is the subresource's own kind (Binding, Eviction, TokenRequest).
  const body = await objectBody(scope, info.subresources.get(subresource)!.kind);
  return registry.createSubresource(info, namespace, name, subresource, body, writer);
}
