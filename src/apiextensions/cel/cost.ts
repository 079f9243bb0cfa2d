// The static cost estimate of a rule (the reference's cel-go EstimateCost with the Kubernetes
// library's estimator): 1 per identifier, field selection, index, operator and call; string and
// list functions proportional to the size bound of their input (maxLength/maxItems/maxProperties,
// or what a request can hold); a comprehension macro costs its range's size times its body.
// The numbers follow cel-go's model but are this implementation's own: they agree in order of
// magnitude, not to the unit.
import type { ASTNode } from '@marcbachmann/cel-js';
import type { DeclType } from './decl.js';
import { MAX_REQUEST_BYTES } from './decl.js';

interface Estimate { cost: number; type?: DeclType }

const STRING_UNBOUNDED: DeclType = { kind: 'scalar', cel: 'string', maxSize: MAX_REQUEST_BYTES - 2, minSize: 2 };
const MACROS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);
const TRAVERSING = new Set(['contains', 'startsWith', 'endsWith', 'indexOf', 'lastIndexOf', 'lowerAscii', 'upperAscii', 'trim', 'replace', 'split', 'substring', 'charAt', 'join', 'isURL', 'url', 'isSorted', 'sum', 'min', 'max']);
const REGEX = new Set(['matches', 're2matches', 'find', 'findAll']);

const sizeOf = (t: DeclType | undefined): number => (t && t.kind !== 'object' && !(t.kind === 'scalar' && t.cel !== 'string' && t.cel !== 'bytes' && t.cel !== 'dyn') ? t.maxSize : 1);
const traversal = (n: number): number => Math.ceil(n * 0.1);

/** Estimates rule costs with `self`/`oldSelf` of type `root`. */
export function estimateCost(ast: ASTNode, root: DeclType): number {
  const scopes: Array<Map<string, DeclType | undefined>> = [new Map([['self', root], ['oldSelf', root]])];
  const lookup = (name: string): DeclType | undefined => {
    for (let i = scopes.length - 1; i >= 0; i--) if (scopes[i]!.has(name)) return scopes[i]!.get(name);
    return undefined;
  };
  const est = (n: ASTNode): Estimate => {
    switch (n.op) {
      case 'value': return { cost: 0, type: typeof n.args === 'string' ? { kind: 'scalar', cel: 'string', maxSize: n.args.length, minSize: 2 } : undefined };
      case 'id': return { cost: 1, type: lookup(n.args) };
      case '.': case '.?': {
        const o = est(n.args[0]);
        const t = o.type;
        const field = t?.kind === 'object' ? t.fields.get(n.args[1])?.type : t?.kind === 'map' ? t.values : undefined;
        return { cost: o.cost + 1, type: field };
      }
      case '[]': case '[?]': {
        const a = est(n.args[0]);
        const b = est(n.args[1]);
        const t = a.type?.kind === 'list' ? a.type.items : a.type?.kind === 'map' ? a.type.values : undefined;
        return { cost: a.cost + b.cost + 1, type: t };
      }
      case 'list': return { cost: n.args.reduce((c, x) => c + est(x).cost, 10) };
      case 'map': return { cost: n.args.reduce((c, [k, v]) => c + est(k).cost + est(v).cost, 30) };
      case '?:': {
        const [c, l, r] = n.args.map(est) as [Estimate, Estimate, Estimate];
        return { cost: c.cost + Math.max(l.cost, r.cost), type: l.type ?? r.type };
      }
      case '||': case '&&': return { cost: est(n.args[0]).cost + est(n.args[1]).cost };
      case '!_': case '-_': return { cost: est(n.args).cost + 1 };
      case 'call': {
        const [name, args] = n.args;
        const parts = args.map(est);
        const base = parts.reduce((c, p) => c + p.cost, 0);
        if (name === 'has') return { cost: base };
        if (REGEX.has(name)) return { cost: base + 1 + Math.ceil(traversal(sizeOf(parts[0]?.type)) * Math.max(1, sizeOf(parts[1]?.type) * 0.25)) };
        if (TRAVERSING.has(name)) return { cost: base + 1 + traversal(sizeOf(parts[0]?.type)) };
        return { cost: base + 1 };
      }
      case 'rcall': {
        const [name, receiver, args] = n.args;
        const r = est(receiver);
        if (MACROS.has(name) && args[0]?.op === 'id') {
          const range = r.type;
          const element = range?.kind === 'list' ? range.items : range?.kind === 'map' ? STRING_UNBOUNDED : undefined;
          const size = range && (range.kind === 'list' || range.kind === 'map') ? range.maxSize : MAX_REQUEST_BYTES;
          scopes.push(new Map([[args[0].args as string, element]]));
          const body = args.slice(1).reduce((c, x) => c + est(x).cost, 0);
          scopes.pop();
          // map and filter yield at most as many elements as their range has.
          const out: DeclType | undefined = name === 'map' || name === 'filter'
            ? { kind: 'list', items: name === 'filter' && element ? element : STRING_UNBOUNDED, maxSize: size, minSize: 2 }
            : undefined;
          return { cost: r.cost + size * (body + 2), type: out };
        }
        const parts = args.map(est);
        const base = r.cost + parts.reduce((c, p) => c + p.cost, 0);
        if (REGEX.has(name)) return { cost: base + 1 + Math.ceil(traversal(sizeOf(r.type)) * Math.max(1, sizeOf(parts[0]?.type) * 0.25)) };
        if (TRAVERSING.has(name)) return { cost: base + 1 + traversal(sizeOf(r.type)) };
        return { cost: base + 1 };
      }
      default: {
        // Binary operators: equality, comparison, concatenation and `in` traverse their operands.
        const [l, r] = (n.args as [ASTNode, ASTNode]).map(est) as [Estimate, Estimate];
        const base = l.cost + r.cost + 1;
        if (n.op === 'in') return { cost: base + sizeOf(r.type) };
        if (n.op === '==' || n.op === '!=' || n.op === '+' || n.op === '<' || n.op === '<=' || n.op === '>' || n.op === '>=') {
          return { cost: base + traversal(Math.min(sizeOf(l.type), sizeOf(r.type))), type: n.op === '+' ? l.type : undefined };
        }
        return { cost: base };
      }
    }
  };
  return est(ast).cost;
}
