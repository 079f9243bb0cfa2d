// metav1.LabelSelector (matchLabels, matchExpressions) as a predicate on a label set, as webhook
// namespaceSelector and objectSelector use it. An empty selector matches everything.
import { isObject } from '../../encoding/decode.js';

export type Labels = Record<string, string> | undefined;

export interface LabelMatcher {
  /** No requirement at all: every label set matches (and nothing needs to be looked up). */
  readonly empty: boolean;
  /** Throws (with the reference's text) when the selector could not be parsed. */
  matches(labels: Labels): boolean;
}

type Requirement = (labels: Record<string, string>) => boolean;

const EVERYTHING: LabelMatcher = { empty: true, matches: () => true };

/** Parses a LabelSelector; an invalid one gives a matcher whose every use throws its error. */
export function labelMatcher(selector: unknown): LabelMatcher {
  if (!isObject(selector)) return EVERYTHING;
  let requirements: Requirement[];
  try {
    requirements = parse(selector);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { empty: false, matches: () => { throw new Error(message); } };
  }
  if (requirements.length === 0) return EVERYTHING;
  return { empty: false, matches: (labels) => requirements.every((r) => r(labels ?? {})) };
}

function parse(selector: Record<string, unknown>): Requirement[] {
  const out: Requirement[] = [];
  const matchLabels = isObject(selector['matchLabels']) ? selector['matchLabels'] : {};
  for (const [key, value] of Object.entries(matchLabels)) {
    const want = String(value);
    out.push((l) => l[key] === want);
  }
  const expressions = Array.isArray(selector['matchExpressions']) ? selector['matchExpressions'] : [];
  for (const raw of expressions) {
    const e = isObject(raw) ? raw : {};
    const key = String(e['key'] ?? '');
    const operator = String(e['operator'] ?? '');
    const values = Array.isArray(e['values']) ? e['values'].map(String) : [];
    const has = (l: Record<string, string>) => Object.prototype.hasOwnProperty.call(l, key);
    switch (operator) {
      case 'In':
      case 'NotIn': {
        if (values.length === 0) throw new Error("for 'in', 'notin' operators, values set can't be empty");
        const set = new Set(values);
        out.push(operator === 'In' ? (l) => has(l) && set.has(l[key]!) : (l) => !has(l) || !set.has(l[key]!));
        break;
      }
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) throw new Error('values set must be empty for exists and does not exist');
        out.push(operator === 'Exists' ? has : (l) => !has(l));
        break;
      default:
        throw new Error(`${JSON.stringify(operator)} is not a valid pod selector operator`);
    }
  }
  return out;
}
