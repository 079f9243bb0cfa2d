// DefaultTolerationSeconds: pods that do not tolerate a node becoming not-ready or unreachable get
// tolerations for both (NoExecute, 300 s), so they are evicted five minutes after such a taint.
import type { AdmissionPlugin } from '../types.js';
import { podSpecOf, setSpecField } from './pods.js';
import { arrayOf, isResource, objectOf, objectsOf, stringOf, type JsonObject } from './support.js';

/** --default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds (both 300 by default). */
const TOLERATION_SECONDS = 300;
const NOT_READY = 'node.kubernetes.io/not-ready';
const UNREACHABLE = 'node.kubernetes.io/unreachable';

export const defaultTolerationSeconds: AdmissionPlugin = {
  name: 'DefaultTolerationSeconds',
  operations: ['CREATE', 'UPDATE'],
  mutate(a) {
    if (!isResource(a, '', 'pods') || a.subresource) return;
    const pod = objectOf(a.object);
    if (!pod) return;
    const spec = podSpecOf(pod);
    const tolerations = objectsOf(spec['tolerations']);
    const added: JsonObject[] = [];
    for (const key of [NOT_READY, UNREACHABLE]) {
      if (!tolerations.some((t) => toleratesNoExecute(t, key))) {
        added.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: TOLERATION_SECONDS });
      }
    }
    if (added.length) setSpecField(spec, 'tolerations', [...arrayOf(spec['tolerations']), ...added]);
  },
};

/** A toleration covers the taint when its key is the taint's (or empty) and its effect NoExecute (or empty). */
function toleratesNoExecute(toleration: JsonObject, key: string): boolean {
  const k = stringOf(toleration['key']) ?? '';
  const effect = stringOf(toleration['effect']) ?? '';
  return (k === key || k === '') && (effect === 'NoExecute' || effect === '');
}
