// The shape of a quota evaluator: how one kind of object is measured against ResourceQuotas.
import type { Operation } from '../api/operation.js';
import type { ResourceList } from './resource-list.js';
import { type JsonObject } from '../json.js';

/** One scope of a quota: spec.scopes entries (operator Exists) and spec.scopeSelector.matchExpressions. */
export interface ScopeRequirement {
  scopeName: string;
  operator: string;
  values: string[];
}

export interface Evaluator {
  /** The group and resource whose objects it measures. */
  readonly group: string;
  readonly resource: string;
  /** Whether admitting this operation can change usage (creates; updates for some kinds). */
  handles(operation: Operation): boolean;
  /** The quota resource names among `names` that this evaluator measures. */
  matchingResources(names: Iterable<string>): string[];
  /** Whether an object falls in a quota scope (only pods have scopes; others match none). */
  matchesScope(requirement: ScopeRequirement, obj: JsonObject): boolean;
  /** What one object charges. `now` (ms) decides whether a deleted pod's grace period is over. */
  usage(obj: JsonObject, now: number): ResourceList;
  /** Why an object cannot be charged to a quota on `required` resources, if it cannot (pods). */
  constraints?(required: string[], obj: JsonObject): string | undefined;
}
