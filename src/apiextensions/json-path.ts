// The JSONPath subset CRDs use for printer columns and scale paths: `.a.b`, `.a[0]`, `.a['k']`,
// `.a["k"]` (a path that asks for more than that finds nothing).
import { isObject } from '../json.js';

type Step = string | number;

/** The steps of a path, or undefined when it is not of the subset. */
export function parseJsonPath(path: string): Step[] | undefined {
  const trimmed = path.replace(/^\{(.*)\}$/, '$1').trim();
  if (!trimmed.startsWith('.')) return undefined;
  if (trimmed === '.') return [];
  const steps: Step[] = [];
  const re = /\.([^.[\]]+)|\[(\d+)\]|\['([^']*)'\]|\["([^"]*)"\]/y;
  let at = 0;
  while (at < trimmed.length) {
    re.lastIndex = at;
    const m = re.exec(trimmed);
    if (!m) return undefined;
    if (m[1] !== undefined) steps.push(m[1]);
    else if (m[2] !== undefined) steps.push(Number(m[2]));
    else steps.push(m[3] ?? m[4]!);
    at = re.lastIndex;
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
