// AlwaysPullImages: every container pulls its image (imagePullPolicy Always), so that a pod can only
// run an image its credentials can pull, not one another pod left on the node.
import type { AdmissionAttributes, AdmissionPlugin } from '../types.js';
import { allContainers, setContainerField } from './pods.js';
import { forbidden, isResource, objectOf, plainError, stringOf, type JsonObject } from './support.js';

export const alwaysPullImages: AdmissionPlugin = {
  name: 'AlwaysPullImages',
  operations: ['CREATE', 'UPDATE'],
  mutate(a) {
    const spec = specToCheck(a);
    if (!spec) return;
    for (const { container } of allContainers(spec)) setContainerField(container, 'imagePullPolicy', 'Always');
  },
  validate(a) {
    const spec = specToCheck(a);
    if (!spec) return;
    const refusals = allContainers(spec)
      .filter(({ container }) => container['imagePullPolicy'] !== 'Always')
      .map(({ container, path }) => forbidden(a, `${path}.imagePullPolicy: Unsupported value: ${JSON.stringify(stringOf(container['imagePullPolicy']) ?? '')}: supported values: "Always"`).message);
    // The reference returns these as an aggregate, without a Status.
    if (refusals.length) throw plainError(refusals.length === 1 ? refusals[0]! : `[${refusals.join(', ')}]`);
  },
};

/** The pod spec to hold to Always: pods and their ephemeral containers, unless an update brings no new image. */
function specToCheck(a: AdmissionAttributes): JsonObject | undefined {
  if (!isResource(a, '', 'pods') || (a.subresource && a.subresource !== 'ephemeralcontainers')) return undefined;
  const spec = objectOf(objectOf(a.object)?.['spec']);
  if (!spec) return undefined;
  if (a.operation === 'UPDATE') {
    const oldImages = new Set(allContainers(objectOf(objectOf(a.oldObject)?.['spec']) ?? {}).map(({ container }) => container['image']));
    if (allContainers(spec).every(({ container }) => oldImages.has(container['image']))) return undefined;
  }
  return spec;
}
