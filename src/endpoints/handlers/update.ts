// update: a PUT of an object (or of its status and other object subresources, which change only
// their part), or of its scale.
import { methodNotAllowed } from '../../errors.js';
import { decodeUpdateOptions, fieldValidationLevel } from '../options.js';
import { objectBody } from './body.js';
import { writerOf, type Answer, type Scope } from './scope.js';

export async function handleUpdate(scope: Scope): Promise<Answer> {
  const { registry, info, request, query } = scope;
  const { namespace, name, subresource } = request;
  if (name === undefined) throw methodNotAllowed();
  const options = decodeUpdateOptions(query);
  const writer = writerOf(scope, options);
  if (subresource === 'scale') {
    // autoscaling/v1 Scale, in JSON, YAML or Protobuf (client-go's scale client sends Protobuf).
    const scale = await objectBody(scope, 'Scale');
    const uid = (scale['metadata'] as { uid?: unknown } | undefined)?.uid;
    return registry.updateScale(info, namespace, name, () => scale, writer, typeof uid === 'string' && uid ? uid : undefined);
  }
  const body = await objectBody(scope, info.kind, { level: fieldValidationLevel(options, scope.features.enabled('ServerSideFieldValidation')) });
  return registry.update(info, namespace, name, body, subresource, writer);
}
