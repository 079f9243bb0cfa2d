// Compiling a structural schema's `x-kubernetes-validations` (the reference's cel.Compile and the
// CEL part of the CRD schema checks): each rule is parsed and type-checked against `self` (and
// `oldSelf`) typed by the schema node it sits on, must be a bool, is costed statically, and the
// node tree is kept for validation. Errors come with the reference's paths and messages.
import { createRequire } from 'node:module';
import type { ASTNode, Environment } from '@marcbachmann/cel-js';
import { type FieldError, fieldForbidden, goQuote } from '../../errors.js';
import type { Structural } from '../schema/index.js';
import { childPath, indexPath, keyPath } from '../schema/render.js';
import { estimateCost } from './cost.js';
import { type DeclType, MAX_REQUEST_BYTES, TypeNamer, celTypeName, declTypeOf, objectTypes } from './decl.js';
import { re2, registerKubernetesLibrary } from './library.js';
import { instrument } from './meter.js';
import { celEqual, objectClass, type ObjectClasses } from './values.js';

/** The largest estimated cost of one rule (StaticEstimatedCostLimit). */
export const PER_RULE_ESTIMATED_COST_LIMIT = 10_000_000;
/** The largest estimated cost of all rules of one schema (StaticEstimatedCRDCostLimit). */
export const PER_SCHEMA_ESTIMATED_COST_LIMIT = 100_000_000;

/** A rule ready to run. */
export interface CompiledRule {
  rule: string;
  message: string;
  /** Uses oldSelf: runs on updates only. */
  transition: boolean;
  evaluate?: (activation: Record<string, unknown>) => unknown;
  /** The compile error, when the rule did not compile (then evaluate is unset). */
  error?: string;
}

/** The compiled rules of one schema node and of the nodes under it that have any. */
export interface CompiledNode {
  schema: Structural;
  decl?: DeclType;
  classes: ObjectClasses;
  rules: CompiledRule[];
  properties?: Map<string, CompiledNode>;
  items?: CompiledNode;
  additionalProperties?: CompiledNode;
}

export interface CompiledSchema {
  /** Undefined when the schema has no rules at all. */
  root?: CompiledNode;
  /** Compile, cost and transition-rule errors, at `path`-based field paths. */
  errors: FieldError[];
}

type CelJs = typeof import('@marcbachmann/cel-js');

/**
 * cel-js, loaded when the first rule is compiled: a server without CRDs that have
 * x-kubernetes-validations never needs it. Rules are compiled deep in synchronous validation, so
 * it is required synchronously (an ES module: Node ≥ 20.19); an older Node loads it with this
 * module, as before.
 */
let celJs: CelJs | undefined = process.features.require_module ? undefined : await import('@marcbachmann/cel-js');

function cel(): CelJs {
  return (celJs ??= createRequire(import.meta.url)('@marcbachmann/cel-js') as CelJs);
}

let baseEnv: Environment | undefined;
let probed: unknown;

/** The environment every rule environment is cloned from: the library and a probe macro. */
function base(): Environment {
  if (!baseEnv) {
    const env = new (cel().Environment)({ homogeneousAggregateLiterals: false });
    registerKubernetesLibrary(env);
    // cel-js keeps its evaluator private; this macro hands it over so that it can be metered.
    env.registerFunction('__capstanProbe(ast): bool', ({ args }: { args: ASTNode[] }) => ({
      arg: args[0],
      typeCheck(checker: { check(a: unknown, c: unknown): unknown }, m: { arg: unknown }, ctx: unknown) { return checker.check(m.arg, ctx); },
      evaluate(ev: unknown) { probed = ev; return true; },
    }));
    baseEnv = env;
  }
  return baseEnv;
}

/** A metered environment with `self` and `oldSelf` of type `decl`. */
function ruleEnvironment(decl: DeclType): { env: Environment; classes: ObjectClasses } {
  const env = base().clone();
  const classes: ObjectClasses = new Map();
  for (const t of objectTypes(decl)) {
    const ctor = objectClass(t.typeName);
    classes.set(t.typeName, ctor);
    env.registerType(t.typeName, { ctor, fields: Object.fromEntries([...t.fields].map(([k, f]) => [k, celTypeName(f.type)])) });
    env.registerOperator(`${t.typeName} == ${t.typeName}`, celEqual);
  }
  env.registerVariable('self', celTypeName(decl));
  env.registerVariable('oldSelf', celTypeName(decl));
  probed = undefined;
  env.evaluate('__capstanProbe(true)');
  instrument(probed as Parameters<typeof instrument>[0]);
  return { env, classes };
}

/** Children of an AST node (cel-js's node shapes). */
function children(n: ASTNode): ASTNode[] {
  const out: ASTNode[] = [];
  const add = (x: unknown): void => {
    if (Array.isArray(x)) x.forEach(add);
    else if (x && typeof x === 'object' && 'op' in x) out.push(x as ASTNode);
  };
  if (n.op !== 'value' && n.op !== 'id') add(n.args);
  return out;
}

function walkAst(n: ASTNode, f: (n: ASTNode) => void): void {
  f(n);
  for (const c of children(n)) walkAst(c, f);
}

const REGEX_FUNCTIONS = new Set(['re2matches', 'find', 'findAll']);
const OPERATOR_NAMES: Record<string, string> = { '+': '_+_', '-': '_-_', '*': '_*_', '/': '_/_', '%': '_%_', '==': '_==_', '!=': '_!=_', '<': '_<_', '<=': '_<=_', '>': '_>_', '>=': '_>=_', in: '@in' };

/** cel-js's message in cel-go's words where they differ. */
function celGoMessage(summary: string): string {
  let m = /^No such key: (.*)$/.exec(summary);
  if (m) return `undefined field '${m[1]}'`;
  m = /^Unknown variable: (.*)$/.exec(summary);
  if (m) return `undeclared reference to '${m[1]}' (in container '')`;
  m = /^no such overload: (\S+) (\S+) (\S+)$/.exec(summary);
  if (m && OPERATOR_NAMES[m[2]!]) return `found no matching overload for '${OPERATOR_NAMES[m[2]!]}' applied to '(${m[1]}, ${m[3]})'`;
  if (/^(Unexpected|Expected|Unterminated|Invalid)/.test(summary)) return `Syntax error: ${summary}`;
  return summary.replace(/re2matches/g, 'matches');
}

/** cel-go's issue text: `ERROR: <input>:line:col: message` and the line with a caret under the column. */
function compileIssue(rule: string, err: unknown): string {
  const e = err as { summary?: string; message?: string; range?: { start: number } };
  const summary = e.summary ?? String(e.message ?? err).split('\n')[0]!;
  let at = Math.max(0, Math.min(e.range?.start ?? 0, rule.length));
  // cel-go places a missing field's error on the '.' that selects it; cel-js on the field's name.
  if (summary.startsWith('No such key')) {
    let dot = at - 1;
    while (dot >= 0 && /\s/.test(rule[dot]!)) dot--;
    if (rule[dot] === '.') at = dot;
  }
  const before = rule.slice(0, at);
  const line = before.split('\n').length;
  const col = at - (before.lastIndexOf('\n') + 1);
  const text = rule.split('\n')[line - 1] ?? '';
  return `ERROR: <input>:${line}:${col + 1}: ${celGoMessage(summary)}\n | ${text}\n | ${'.'.repeat(col)}^`;
}

function compileRule(env: Environment, decl: DeclType, rule: string, message: string): { compiled: CompiledRule; cost: number } {
  const compiled: CompiledRule = { rule, message, transition: false };
  let parsed: ReturnType<Environment['parse']>;
  try {
    parsed = env.parse(rule);
  } catch (err) {
    return { compiled: { ...compiled, error: `compilation failed: ${compileIssue(rule, err)}` }, cost: 0 };
  }
  // RE2 for `matches` (see library.ts); literal patterns must compile, as cel-go's regex optimization requires.
  let regexError: string | undefined;
  walkAst(parsed.ast, (n) => {
    if ((n.op === 'rcall' || n.op === 'call') && n.args[0] === 'matches') (n.args as unknown as unknown[])[0] = 're2matches';
    const pattern = n.op === 'rcall' && REGEX_FUNCTIONS.has(n.args[0]) ? n.args[2][0] : n.op === 'call' && n.args[0] === 're2matches' ? n.args[1][1] : undefined;
    if (pattern?.op === 'value' && typeof pattern.args === 'string' && !regexError) {
      try {
        re2(pattern.args);
      } catch (err) {
        regexError = `program instantiation failed: error parsing regexp: ${(err as Error).message}`;
      }
    }
    if (n.op === 'id' && n.args === 'oldSelf') compiled.transition = true;
  });
  const result = parsed.check();
  if (!result.valid) return { compiled: { ...compiled, error: `compilation failed: ${compileIssue(rule, result.error)}` }, cost: 0 };
  if (String(result.type) !== 'bool') return { compiled: { ...compiled, error: 'cel expression must evaluate to a bool' }, cost: 0 };
  if (regexError) return { compiled: { ...compiled, error: regexError }, cost: 0 };
  return { compiled: { ...compiled, evaluate: (activation) => parsed(activation) }, cost: estimateCost(parsed.ast, decl) };
}

/** Go's %f and %.1f for the cost factor messages. */
function costErrorMessage(what: string, cost: number, limit: number): string {
  const factor = cost / limit;
  const f = factor > 100 ? 'more than 100x' : factor < 1.5 ? `${factor.toFixed(6)}x` : `${factor.toFixed(1)}x`;
  return `${what} exceeds budget by factor of ${f} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

const ruleValue = (rule: string, message: string): string => `apiextensions.ValidationRule{Rule:${goQuote(rule)}, Message:${goQuote(message)}}`;

interface WalkState { errors: FieldError[]; costs: Array<{ path: string; cost: number }> }

function compileNode(s: Structural, path: string, isResourceRoot: boolean, cardinality: number | undefined, uncorrelatable: string | undefined, st: WalkState): CompiledNode | undefined {
  const src = s.source;
  const rules = Array.isArray(src['x-kubernetes-validations']) ? src['x-kubernetes-validations'] : [];
  const node: CompiledNode = { schema: s, classes: new Map(), rules: [] };
  if (rules.length) {
    const decl = declTypeOf(s, isResourceRoot, new TypeNamer());
    if (!decl) {
      st.errors.push({ type: 'FieldValueInvalid', field: childPath(path, 'x-kubernetes-validations'), detail: `Internal error: rule declared on schema that does not support validation rules type: '${s.type}' x-kubernetes-preserve-unknown-fields: '${s.preserveUnknownFields}'` });
    } else {
      const { env, classes } = ruleEnvironment(decl);
      node.decl = decl;
      node.classes = classes;
      // Where the node repeats without declared bounds, as many times as the smallest such value fits in a request.
      const times = cardinality ?? Math.floor((MAX_REQUEST_BYTES - 2) / (decl.minSize + 1));
      rules.forEach((r, i) => {
        const rule = typeof r?.rule === 'string' ? r.rule : '';
        const message = typeof r?.message === 'string' ? r.message : '';
        const at = childPath(indexPath(childPath(path, 'x-kubernetes-validations'), i), 'rule');
        if (!rule.trim()) { node.rules.push({ rule, message, transition: false }); return; }
        const { compiled, cost } = compileRule(env, decl, rule, message);
        node.rules.push(compiled);
        const total = Math.min(cost * times, Number.MAX_SAFE_INTEGER);
        if (total > PER_RULE_ESTIMATED_COST_LIMIT) st.errors.push(fieldForbidden(at, costErrorMessage('estimated rule cost', total, PER_RULE_ESTIMATED_COST_LIMIT)));
        st.costs.push({ path: at, cost: total });
        if (compiled.error) st.errors.push({ type: 'FieldValueInvalid', field: at, detail: `Invalid value: ${ruleValue(rule, message)}: ${compiled.error}` });
        if (compiled.transition && uncorrelatable !== undefined) {
          st.errors.push({ type: 'FieldValueInvalid', field: at, detail: `Invalid value: ${goQuote(rule)}: oldSelf cannot be used on the uncorrelatable portion of the schema within ${uncorrelatable}` });
        }
      });
    }
  }
  const bounded = (limit: unknown): number | undefined => (cardinality !== undefined && typeof limit === 'number' && limit >= 0 ? cardinality * limit : undefined);
  let any = node.rules.length > 0;
  for (const [k, p] of s.properties ?? []) {
    const sub = compileNode(p, keyPath(childPath(path, 'properties'), k), p.embeddedResource, cardinality, uncorrelatable, st);
    if (sub) (node.properties ??= new Map()).set(k, sub), (any = true);
  }
  if (s.items) {
    const itemsPath = childPath(path, 'items');
    const sub = compileNode(s.items, itemsPath, s.items.embeddedResource, bounded(src.maxItems), uncorrelatable ?? (s.listType === 'map' ? undefined : itemsPath), st);
    if (sub) (node.items = sub), (any = true);
  }
  const ap = s.additionalProperties?.schema;
  if (ap) {
    const sub = compileNode(ap, childPath(path, 'additionalProperties'), ap.embeddedResource, bounded(src.maxProperties), uncorrelatable, st);
    if (sub) (node.additionalProperties = sub), (any = true);
  }
  return any ? node : undefined;
}

/**
 * Compiles every rule of structural schema `s` (the openAPIV3Schema at `path`, e.g.
 * `spec.validation.openAPIV3Schema`): compile errors, per-rule and whole-schema estimated cost
 * errors, transition rules under lists that cannot correlate old and new items.
 */
export function compileSchemaRules(s: Structural, path: string): CompiledSchema {
  const st: WalkState = { errors: [], costs: [] };
  const root = compileNode(s, path, true, 1, undefined, st);
  const total = st.costs.reduce((a, c) => Math.min(a + c.cost, Number.MAX_SAFE_INTEGER), 0);
  if (total > PER_SCHEMA_ESTIMATED_COST_LIMIT) {
    // The reference names the (at most 4) costliest rules that each take more than 1% of the limit.
    const top = st.costs.filter((c) => c.cost > PER_SCHEMA_ESTIMATED_COST_LIMIT / 100).sort((a, b) => b.cost - a.cost).slice(0, 4);
    for (const c of top) st.errors.push(fieldForbidden(c.path, 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema'));
    st.errors.push(fieldForbidden(path, costErrorMessage('x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema', total, PER_SCHEMA_ESTIMATED_COST_LIMIT)));
  }
  return { root, errors: st.errors };
}

const cache = new WeakMap<Structural, CompiledSchema>();

/** The compiled rules of a structural schema, compiled once per schema object. */
export function compiledRulesFor(s: Structural): CompiledSchema {
  let c = cache.get(s);
  if (!c) {
    c = compileSchemaRules(s, '');
    cache.set(s, c);
  }
  return c;
}
