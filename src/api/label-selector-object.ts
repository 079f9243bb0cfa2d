// metav1.LabelSelector objects ({matchLabels, matchExpressions}) as matchers, converted as the
// reference's LabelSelectorAsSelector converts them: an absent selector selects nothing, an empty
// one everything; an invalid one does not convert (with the reference's reason).
import { isQualifiedName, isValidLabelValue } from './names.js';
import { isObject } from '../json.js';

export interface SelectorMatcher {
  /** No requirement: every label set matches. */
  readonly empty: boolean;
  matches(labels: Record<string, unknown> | undefined): boolean;
}

export const SELECTS_NOTHING: SelectorMatcher = { empty: false, matches: () => false };
export const SELECTS_EVERYTHING: SelectorMatcher = { empty: true, matches: () => true };

type Requirement = (labels: Record<string, unknown>) => boolean;

/** The matcher of a selector object, or the reason it does not convert. */
export function convertLabelSelector(selector: unknown): SelectorMatcher | { error: string } {
  if (!isObject(selector)) return SELECTS_NOTHING;
  const requirements: Requirement[] = [];
  const matchLabels = isObject(selector['matchLabels']) ? selector['matchLabels'] : {};
  for (const [key, raw] of Object.entries(matchLabels)) {
    const value = String(raw);
    const bad = [...isQualifiedName(key), ...isValidLabelValue(value)];
    if (bad.length) return { error: `invalid label selector ${key}=${value}: ${bad.join('; ')}` };
    requirements.push((l) => l[key] === value);
  }
  const expressions = Array.isArray(selector['matchExpressions']) ? selector['matchExpressions'] : [];
  for (const raw of expressions) {
    const e = isObject(raw) ? raw : {};
    const key = String(e['key'] ?? '');
    const operator = String(e['operator'] ?? '');
    const values = Array.isArray(e['values']) ? e['values'].map(String) : [];
    const badKey = isQualifiedName(key);
    if (badKey.length) return { error: `key: Invalid value: ${JSON.stringify(key)}: ${badKey.join('; ')}` };
    const has = (l: Record<string, unknown>) => Object.prototype.hasOwnProperty.call(l, key);
    switch (operator) {
      case 'In':
      case 'NotIn': {
        if (values.length === 0) return { error: "for 'in', 'notin' operators, values set can't be empty" };
        const badValue = values.flatMap((v) => isValidLabelValue(v));
        if (badValue.length) return { error: `values: Invalid value: ${badValue.join('; ')}` };
        const set = new Set(values);
        const isIn = (l: Record<string, unknown>) => has(l) && set.has(String(l[key]));
        requirements.push(operator === 'In' ? isIn : (l) => !isIn(l));
        break;
      }
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) return { error: 'values set must be empty for exists and does not exist' };
        requirements.push(operator === 'Exists' ? has : (l) => !has(l));
        break;
      default:
        return { error: `${JSON.stringify(operator)} is not a valid pod selector operator` };
    }
  }
  if (requirements.length === 0) return SELECTS_EVERYTHING;
  return { empty: false, matches: (labels) => requirements.every((r) => r(labels ?? {})) };
}

/** Whether a selector object selects these labels (one that does not convert selects nothing). */
export function selectsLabels(selector: unknown, labels: Record<string, unknown> | undefined): boolean {
  const converted = convertLabelSelector(selector);
  return 'error' in converted ? false : converted.matches(labels);
}
