// Where a workload keeps its pod template (what Pod Security looks into).
import { isObject, type JsonObject } from '../../json.js';

export type PodTemplateOf = (obj: JsonObject) => { metadata: JsonObject; spec: JsonObject } | undefined;

/** The pod template's metadata and spec at `path` within the object; undefined when it has none (an optional one). */
export function podTemplateAt(...path: string[]): PodTemplateOf {
  return (obj) => {
    let at: JsonObject | undefined = obj;
    for (const key of path) at = isObject(at?.[key]) ? (at[key] as JsonObject) : undefined;
    if (!at) return undefined;
    return { metadata: isObject(at['metadata']) ? at['metadata'] : {}, spec: isObject(at['spec']) ? at['spec'] : {} };
  };
}
