// The diff of two pod specs the reference appends to "pod updates may not change fields other
// than …": its internal core.PodSpec, converted from v1 the way the reference converts it.
import { goCmpDiff, semanticallyEqual } from './go-cmp.js';
import { structType } from './go-types.js';
import { jsonEqual } from '../../json.js';

type Json = Record<string, unknown>;

const POD_SPEC = structType('PodSpec')!;

/**
 * v1 → internal: the host namespace fields move into the (then always present) security context,
 * and the deprecated serviceAccount fills serviceAccountName when that is empty.
 */
export function internalPodSpec(spec: Json): Json {
  const out: Json = { ...spec };
  const securityContext: Json = typeof spec['securityContext'] === 'object' && spec['securityContext'] !== null ? { ...(spec['securityContext'] as Json) } : {};
  for (const k of ['hostNetwork', 'hostPID', 'hostIPC', 'shareProcessNamespace', 'hostUsers']) {
    if (spec[k] !== undefined) securityContext[k] = spec[k];
  }
  out['securityContext'] = securityContext;
  if (!out['serviceAccountName'] && typeof spec['serviceAccount'] === 'string') out['serviceAccountName'] = spec['serviceAccount'];
  return out;
}

/** cmp.Diff(old, new) of two v1 pod specs, or '' when they are semantically equal. */
export function podSpecDiff(oldSpec: Json, newSpec: Json): string {
  // Equal JSON decodes to equal Go values: the common update (of labels, say) skips the walk by type.
  if (jsonEqual(oldSpec, newSpec)) return '';
  const x = internalPodSpec(oldSpec);
  const y = internalPodSpec(newSpec);
  if (semanticallyEqual(POD_SPEC, x, y)) return '';
  return goCmpDiff(POD_SPEC, x, y);
}
