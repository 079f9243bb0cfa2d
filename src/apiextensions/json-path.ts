// The JSONPath CRDs use: scale paths take the simple subset (`.a.b`, `.a[0]`, `.a['k']`, `.a["k"]`);
// printer columns also take `[*]` and filters (`[?(@.type=="Ready")]`), which real CRDs use for
// their conditions (cert-manager's Ready, the Prometheus operator's Reconciled). A path that asks for
// more than that finds nothing.
import { isObject } from '../json.js';

type Step = string | number;

/** `@.path op literal`, or `@.path` alone (the field is there). */
interface Filter {
  path: Step[];
  op?: '==' | '!=' | '<' | '>' | '<=' | '>=';
  literal?: string | number | boolean;
}

/** A step of a printer column's path: a simple step, every element (`[*]`), or the elements a filter keeps. */
export type ColumnStep = Step | { every: true } | { filter: Filter };

const SIMPLE = /\.([^.[\]]+)|\[(\d+)\]|\['([^']*)'\]|\["([^"]*)"\]/y;

function trimmed(path: string): string {
  return path.replace(/^\{(.*)\}$/, '$1').trim();
}

/** The steps of a simple path (`.`-separated, from the top), or undefined when it asks for more. */
function simpleSteps(path: string): Step[] | undefined {
  const steps: Step[] = [];
  let at = 0;
  while (at < path.length) {
    SIMPLE.lastIndex = at;
    const m = SIMPLE.exec(path);
    if (!m) return undefined;
    if (m[1] !== undefined) steps.push(m[1]);
    else if (m[2] !== undefined) steps.push(Number(m[2]));
    else steps.push(m[3] ?? m[4]!);
    at = SIMPLE.lastIndex;
  }
  return steps;
}

/** The steps of a path, or undefined when it is not of the simple subset. */
export function parseJsonPath(path: string): Step[] | undefined {
  const t = trimmed(path);
  if (!t.startsWith('.')) return undefined;
  return t === '.' ? [] : simpleSteps(t);
}

const EVERY = /\[\*\]|\.\*/y;
// `[?(@.a.b == "x")]`: the relative path, an operator and a quoted, numeric or boolean literal.
const FILTER = /\[\?\(\s*@((?:\.[A-Za-z0-9_-]+)*)\s*(?:(==|!=|<=|>=|<|>)\s*(?:"([^"]*)"|'([^']*)'|(-?\d+(?:\.\d+)?)|(true|false)))?\s*\)\]/y;

/** The steps of a printer column's path, or undefined when it asks for more than this module evaluates. */
export function parseColumnPath(path: string): ColumnStep[] | undefined {
  const t = trimmed(path);
  if (!t.startsWith('.')) return undefined;
  if (t === '.') return [];
  const steps: ColumnStep[] = [];
  let at = 0;
  while (at < t.length) {
    EVERY.lastIndex = at;
    FILTER.lastIndex = at;
    SIMPLE.lastIndex = at;
    let m: RegExpExecArray | null;
    if (EVERY.exec(t)) {
      steps.push({ every: true });
      at = EVERY.lastIndex;
    } else if ((m = FILTER.exec(t))) {
      const filter: Filter = { path: m[1] ? m[1].slice(1).split('.') : [] };
      if (m[2]) {
        filter.op = m[2] as Filter['op'];
        filter.literal = m[3] ?? m[4] ?? (m[5] !== undefined ? Number(m[5]) : m[6] === 'true');
      }
      steps.push({ filter });
      at = FILTER.lastIndex;
    } else if ((m = SIMPLE.exec(t))) {
      steps.push(m[1] ?? (m[2] !== undefined ? Number(m[2]) : (m[3] ?? m[4]!)));
      at = SIMPLE.lastIndex;
    } else return undefined;
  }
  return steps;
}

/** The value at `steps`, or undefined. */
export function valueAt(value: unknown, steps: readonly Step[]): unknown {
  let at = value;
  for (const step of steps) {
    if (typeof step === 'number') {
      if (!Array.isArray(at)) return undefined;
      at = at[step];
    } else {
      if (!isObject(at)) return undefined;
      at = at[step];
    }
  }
  return at;
}

function keeps(element: unknown, filter: Filter): boolean {
  const v = valueAt(element, filter.path);
  if (v === undefined) return false;
  if (filter.op === undefined) return true;
  const lit = filter.literal;
  switch (filter.op) {
    case '==':
      return v === lit;
    case '!=':
      return v !== lit;
    default: {
      // Order compares numbers only (a string against a number is no match).
      if (typeof v !== 'number' || typeof lit !== 'number') return false;
      return filter.op === '<' ? v < lit : filter.op === '>' ? v > lit : filter.op === '<=' ? v <= lit : v >= lit;
    }
  }
}

/** Every value `steps` reach, in document order (a printer column shows the first). */
export function valuesAt(value: unknown, steps: readonly ColumnStep[]): unknown[] {
  let current: unknown[] = [value];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const at of current) {
      if (typeof step === 'object') {
        const elements = Array.isArray(at) ? at : 'every' in step && isObject(at) ? Object.values(at) : [];
        for (const e of elements) if ('every' in step || keeps(e, step.filter)) next.push(e);
      } else {
        const v = valueAt(at, [step]);
        if (v !== undefined) next.push(v);
      }
    }
    current = next;
  }
  return current;
}
