// Running a schema's compiled rules on a custom resource (the reference's cel.Validator): each
// node's rules see `self` (and, for transition rules on updates, `oldSelf` — the old value at the
// same place: same property, same map key, the list-map item with the same keys), then the walk
// goes on into properties, additionalProperties and items. Errors read
// `<path>: Invalid value: "<type>": <message or "failed rule: <rule>">`.
//
// Bounds: each rule evaluation stops after PER_CALL_COST_LIMIT cost units (1 per evaluated node,
// plus size-proportional costs of string, list and regex functions), and all rules of one object
// together after RUNTIME_COST_BUDGET; regular expressions run on RE2 (linear time).
import { type FieldError, goQuote } from '../../errors.js';
import { isObject } from '../../json.js';
import { childPath, indexPath, keyPath } from '../schema/render.js';
import type { CompiledNode, CompiledRule, CompiledSchema } from './compile.js';
import { CostLimitExceeded, Meter, metered } from './meter.js';
import { toCel } from './values.js';

/** Cost units one rule evaluation may use (the reference's PerCallLimit). */
export const PER_CALL_COST_LIMIT = 1_000_000;
/** Cost units all rule evaluations of one object may use (RuntimeCELCostBudget). */
export const RUNTIME_COST_BUDGET = 10_000_000;

const OUT_OF_BUDGET = 'validation failed due to running out of cost budget, no further validation rules will be run';

interface State { errors: FieldError[]; remaining: number; stopped: boolean }

const shown = (path: string): string => path || '<nil>';
const ruleText = (r: CompiledRule): string => (r.message.length ? r.message.trim() : r.rule.trim());

function fail(st: State, path: string, type: string, why: string): void {
  st.errors.push({ type: 'FieldValueInvalid', field: shown(path), detail: `Invalid value: ${goQuote(type)}: ${why}` });
}

function runtimeMessage(err: unknown): string {
  const e = err as { summary?: string; message?: string };
  const m = e.summary ?? String(e.message ?? err).split('\n')[0]!;
  const lower = m.charAt(0).toLowerCase() + m.slice(1);
  return lower.replace(/^no such key: index out of bounds, index (\d+) >= size \d+$/, 'index out of bounds: $1');
}

function runRules(node: CompiledNode, path: string, value: unknown, old: unknown, st: State): void {
  if (!node.rules.length || !node.decl) return;
  const type = node.schema.type;
  if (st.remaining <= 0) {
    fail(st, path, type, OUT_OF_BUDGET);
    st.stopped = true;
    return;
  }
  const self = toCel(value, node.decl, node.classes);
  // Only transition rules read oldSelf (a rule that names it is one).
  const oldSelf = old === undefined || old === null || !node.rules.some((r) => r.transition) ? undefined : toCel(old, node.decl, node.classes);
  for (const rule of node.rules) {
    if (rule.error) { fail(st, path, type, `rule compile error: ${rule.error}`); continue; }
    if (!rule.evaluate) continue;
    if (rule.transition && oldSelf === undefined) continue;
    const meter = new Meter(PER_CALL_COST_LIMIT);
    let result: unknown;
    let error: unknown;
    try {
      result = metered(meter, () => rule.evaluate!(oldSelf === undefined ? { self } : { self, oldSelf }));
    } catch (err) {
      error = err;
    }
    if (meter.exceeded || error instanceof CostLimitExceeded) {
      fail(st, path, type, `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleText(rule)}`);
      st.stopped = true;
      return;
    }
    if (meter.cost > st.remaining) {
      fail(st, path, type, OUT_OF_BUDGET);
      st.stopped = true;
      return;
    }
    st.remaining -= meter.cost;
    if (error !== undefined) {
      const m = runtimeMessage(error);
      if (m.startsWith('no such overload')) fail(st, path, type, `'no such overload': call arguments did not match a supported operator, function or macro signature for rule: ${ruleText(rule)}`);
      else fail(st, path, type, `${m} evaluating rule: ${ruleText(rule)}`);
      continue;
    }
    if (result !== true) fail(st, path, type, rule.message.length ? rule.message : `failed rule: ${ruleText(rule)}`);
  }
}

/** The old item a list-map item correlates with (same values of the map keys), if any. */
function correlatedItem(node: CompiledNode, item: unknown, oldList: unknown): unknown {
  const keys = node.schema.listMapKeys;
  if (node.schema.listType !== 'map' || !keys?.length || !Array.isArray(oldList) || !isObject(item)) return undefined;
  return oldList.find((o) => isObject(o) && keys.every((k) => JSON.stringify(o[k]) === JSON.stringify(item[k])));
}

function walk(node: CompiledNode, path: string, value: unknown, old: unknown, st: State): void {
  if (value === null || value === undefined || st.stopped) return;
  runRules(node, path, value, old, st);
  if (st.stopped) return;
  if (Array.isArray(value) && node.items) {
    for (let i = 0; i < value.length && !st.stopped; i++) walk(node.items, indexPath(path, i), value[i], correlatedItem(node, value[i], old), st);
  } else if (isObject(value)) {
    const oldObj = isObject(old) ? old : undefined;
    if (node.additionalProperties) {
      for (const [k, v] of Object.entries(value)) {
        if (st.stopped) return;
        walk(node.additionalProperties, keyPath(path, k), v, oldObj && Object.hasOwn(oldObj, k) ? oldObj[k] : undefined, st);
      }
    }
    if (node.properties) {
      for (const [k, v] of Object.entries(value)) {
        const sub = node.properties.get(k);
        if (!sub || st.stopped) continue;
        walk(sub, childPath(path, k), v, oldObj && Object.hasOwn(oldObj, k) ? oldObj[k] : undefined, st);
      }
    }
  }
}

/**
 * The errors of the rules of `compiled` on custom resource `obj`; `oldObj` is the stored object
 * on updates (transition rules run only then). `budget` is the cost all rules may use.
 */
export function validateRules(compiled: CompiledSchema, obj: unknown, oldObj?: unknown, budget = RUNTIME_COST_BUDGET): FieldError[] {
  if (!compiled.root) return [];
  const st: State = { errors: [], remaining: budget, stopped: false };
  walk(compiled.root, '', obj, oldObj, st);
  return st.errors;
}
