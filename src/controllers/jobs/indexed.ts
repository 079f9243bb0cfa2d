// Indexed Jobs: each pod carries its completion index (annotation, hostname, JOB_COMPLETION_INDEX),
// and the Job's status.completedIndexes lists the indexes done as intervals ("1,3-5,7").
import { metadataOf } from '../../registry/objects.js';
import { type JsonObject, isObject, copyJson } from '../../json.js';

export const COMPLETION_INDEX_ANNOTATION = 'batch.kubernetes.io/job-completion-index';

/** A pod's completion index, or undefined when it has none (or not a valid one). */
export function completionIndexOf(pod: JsonObject): number | undefined {
  const annotations = metadataOf(pod)['annotations'];
  const text = isObject(annotations) ? annotations[COMPLETION_INDEX_ANNOTATION] : undefined;
  if (typeof text !== 'string' || !/^\d+$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** Parses completedIndexes text into a sorted set of indexes below `completions` (bad parts are skipped). */
export function parseIndexes(text: unknown, completions: number): Set<number> {
  const out = new Set<number>();
  if (typeof text !== 'string' || !text) return out;
  for (const part of text.split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) continue;
    const first = Number(m[1]);
    const last = Math.min(m[2] === undefined ? first : Number(m[2]), completions - 1);
    for (let i = first; i <= last; i++) out.add(i);
  }
  return out;
}

/** A set of indexes as the reference writes completedIndexes: ascending intervals, "a-b" for runs of more than one. */
export function formatIndexes(indexes: Iterable<number>): string {
  const sorted = [...new Set(indexes)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(j === i ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

/** The `count` lowest indexes below `completions` neither succeeded nor held by an active pod. */
export function firstPendingIndexes(activePods: JsonObject[], succeeded: Set<number>, count: number, completions: number): number[] {
  const held = new Set(activePods.map(completionIndexOf).filter((i): i is number => i !== undefined));
  const out: number[] = [];
  for (let i = 0; i < completions && out.length < count; i++) if (!succeeded.has(i) && !held.has(i)) out.push(i);
  return out;
}

/** Active pods an Indexed Job must remove whatever its parallelism: no index, an index out of range or done, or a duplicate. */
export function podsWithBadIndexes(activePods: JsonObject[], succeeded: Set<number>, completions: number): JsonObject[] {
  const seen = new Set<number>();
  const bad: JsonObject[] = [];
  for (const pod of activePods) {
    const ix = completionIndexOf(pod);
    if (ix === undefined || ix >= completions || succeeded.has(ix) || seen.has(ix)) bad.push(pod);
    else seen.add(ix);
  }
  return bad;
}

/** The pod template of an Indexed Job: every container gets JOB_COMPLETION_INDEX from the annotation (unless it sets it). */
export function withCompletionIndexEnv(template: JsonObject): JsonObject {
  const copy = copyJson(template);
  const spec = isObject(copy['spec']) ? copy['spec'] : {};
  for (const field of ['initContainers', 'containers']) {
    const containers = spec[field];
    if (!Array.isArray(containers)) continue;
    for (const c of containers) {
      if (!isObject(c)) continue;
      const env = Array.isArray(c['env']) ? (c['env'] as JsonObject[]) : [];
      if (env.some((e) => isObject(e) && e['name'] === 'JOB_COMPLETION_INDEX')) continue;
      c['env'] = [...env, { name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${COMPLETION_INDEX_ANNOTATION}']` } } }];
    }
  }
  return copy;
}
