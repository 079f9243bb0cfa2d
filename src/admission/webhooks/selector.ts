// Webhook namespaceSelector and objectSelector: an absent selector is the empty one (every label
// set); one that does not convert fails each call that needs it, as the reference's.
import { convertLabelSelector, SELECTS_EVERYTHING, type SelectorMatcher } from '../../api/label-selector-object.js';
import { isObject } from '../../json.js';

export type Labels = Record<string, string> | undefined;
export type LabelMatcher = SelectorMatcher;

export function labelMatcher(selector: unknown): LabelMatcher {
  if (!isObject(selector)) return SELECTS_EVERYTHING;
  const converted = convertLabelSelector(selector);
  if (!('error' in converted)) return converted;
  const message = converted.error;
  return { empty: false, matches: () => { throw new Error(message); } };
}
