// Quantities as the reference stores them: every resource.Quantity field is decoded and encoded
// again, so it comes back in the reference's text ("0.5" → "500m", 2 → "2"); resource lists
// (maps of quantities: requests, limits, capacity, hard, …) are first rounded up to thousandths,
// as core/v1's SetDefaults_ResourceList does ("100u" → "1m").
import { Quantity } from '../quantity.js';
import { schemaFor, type GroupVersionKind } from '../schema.js';
import type { SchemaNode } from '../schema.js';
import { type JsonObject } from '../../json.js';

const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';

/** Where a kind's quantities are: the fields, map values or list items that lead to one. */
type Plan =
  | { kind: 'quantity' }
  | { kind: 'resourceList' }
  | { kind: 'struct'; fields: ReadonlyMap<string, Plan> }
  | { kind: 'each'; plan: Plan };

const plans = new Map<SchemaNode, Plan | null>();

/** The plan of a schema node; null when no quantity is under it (computed once per node). */
function planOf(node: SchemaNode): Plan | null {
  if (plans.has(node)) return plans.get(node)!;
  plans.set(node, null); // a recursive schema (JSONSchemaProps) holds no quantity through its cycle
  let plan: Plan | null = null;
  if (node.kind === 'scalar' && node.defName === QUANTITY) plan = { kind: 'quantity' };
  else if (node.kind === 'struct') {
    const fields = new Map<string, Plan>();
    for (const name of node.fieldNames()) {
      const child = node.field(name);
      const p = child ? planOf(child) : null;
      if (p) fields.set(name, p);
    }
    if (fields.size) plan = { kind: 'struct', fields };
  } else if (node.kind === 'map') {
    const values = node.field('');
    const p = values ? planOf(values) : null;
    if (p) plan = p.kind === 'quantity' ? { kind: 'resourceList' } : { kind: 'each', plan: p };
  } else if (node.kind === 'list') {
    const p = planOf(node.items());
    if (p) plan = { kind: 'each', plan: p };
  }
  plans.set(node, plan);
  return plan;
}

const byKind = new Map<string, Plan | null>();

function planFor(gvk: GroupVersionKind): Plan | null {
  const key = `${gvk.group}/${gvk.version}/${gvk.kind}`;
  let plan = byKind.get(key);
  if (plan === undefined) {
    plan = planOf(schemaFor(gvk));
    byKind.set(key, plan);
  }
  return plan;
}

/** The stored text of a quantity value; a value that does not parse is left for validation. */
function normalized(value: unknown, roundToMilli: boolean): unknown {
  const q = Quantity.from(value);
  if (!q) return value;
  return (roundToMilli ? q.roundUpToMilli() : q).toString();
}

function walk(value: unknown, plan: Plan): unknown {
  if (value === null || typeof value !== 'object') {
    return plan.kind === 'quantity' ? normalized(value, false) : value;
  }
  switch (plan.kind) {
    case 'quantity':
      return value;
    case 'resourceList':
      if (!Array.isArray(value)) for (const [k, v] of Object.entries(value)) (value as JsonObject)[k] = normalized(v, true);
      return value;
    case 'each':
      if (Array.isArray(value)) value.forEach((v, i) => (value[i] = walk(v, plan.plan)));
      else for (const [k, v] of Object.entries(value)) (value as JsonObject)[k] = walk(v, plan.plan);
      return value;
    case 'struct':
      if (!Array.isArray(value)) {
        for (const [name, p] of plan.fields) {
          const v = (value as JsonObject)[name];
          if (v !== undefined) (value as JsonObject)[name] = walk(v, p);
        }
      }
      return value;
  }
}

/** Rewrites an object's quantities as the reference stores them, in place (kinds without any cost a lookup). */
export function normalizeQuantities(gvk: GroupVersionKind, obj: JsonObject): void {
  const plan = planFor(gvk);
  if (plan) walk(obj, plan);
}
