// A quota's usage measured from the objects of its namespace (what the quota controller records).
import { Quantity } from '../api/quantity.js';
import { evaluatorsFor, inScopes, scopesOf, type Evaluator } from './evaluators.js';
import { addLists, type ResourceList } from './resource-list.js';
import { type JsonObject } from '../json.js';

/**
 * The usage of every resource in `hard` some evaluator measures (0 when nothing is charged).
 * `evaluators`: those of every served resource; `objectsOf` gives the namespace's objects an
 * evaluator measures, or undefined when the resource is not served (its usage is then left unknown).
 */
export function measureUsage(
  quota: JsonObject, hard: ResourceList, evaluators: Iterable<Evaluator>, objectsOf: (evaluator: Evaluator) => JsonObject[] | undefined, now: number,
): ResourceList {
  const names = [...hard.keys()];
  const scopes = scopesOf(quota);
  let usage: ResourceList = new Map();
  for (const evaluator of evaluatorsFor(names, evaluators)) {
    const objects = objectsOf(evaluator);
    if (!objects) continue;
    let used: ResourceList = new Map(evaluator.matchingResources(names).map((n) => [n, Quantity.zero()]));
    for (const obj of objects) if (inScopes(evaluator, scopes, obj)) used = addLists(used, evaluator.usage(obj, now));
    usage = addLists(usage, used);
  }
  return usage;
}
