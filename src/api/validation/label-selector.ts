// metav1.LabelSelector (matchLabels and matchExpressions): the reference's validation, and the
// selector it converts to (LabelSelectorAsSelector) for matching a template's labels.
import { type FieldError, fieldForbidden, fieldInvalid, fieldRequired } from '../../errors.js';
import { isQualifiedName, validateLabels } from '../names.js';
import { convertLabelSelector, type SelectorMatcher } from '../label-selector-object.js';
import { child, index, invalidAll, objs, str, strings } from './helpers.js';
import { isObject } from '../../json.js';

/** ValidateLabelSelector (values of expressions are not checked in 1.25). */
export function validateLabelSelector(selector: unknown, field: string): FieldError[] {
  if (!isObject(selector)) return [];
  const errs = validateLabels(selector['matchLabels'], child(field, 'matchLabels'));
  objs(selector['matchExpressions']).forEach((expr, i) => {
    const path = index(child(field, 'matchExpressions'), i);
    const operator = str(expr['operator']);
    const values = strings(expr['values']);
    switch (operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) errs.push(fieldRequired(child(path, 'values'), "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) errs.push(fieldForbidden(child(path, 'values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errs.push(fieldInvalid(child(path, 'operator'), operator, 'not a valid selector operator'));
    }
    errs.push(...invalidAll(child(path, 'key'), str(expr['key']), isQualifiedName(str(expr['key']))));
  });
  return errs;
}

/** A converted selector: a match function, and whether it selects everything (Selector.Empty()). */
export type Selector = SelectorMatcher;

/**
 * LabelSelectorAsSelector: an absent selector selects nothing, an empty one everything;
 * undefined when the selector does not convert (bad operator, key or value).
 */
export function asSelector(selector: unknown): Selector | undefined {
  const converted = convertLabelSelector(selector);
  return 'error' in converted ? undefined : converted;
}

/** Whether a selector has neither matchLabels nor matchExpressions. */
export function selectorHasNoRequirements(selector: Record<string, unknown>): boolean {
  return Object.keys(isObject(selector['matchLabels']) ? selector['matchLabels'] : {}).length === 0
    && (Array.isArray(selector['matchExpressions']) ? selector['matchExpressions'].length : 0) === 0;
}
