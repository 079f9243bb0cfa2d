// Field errors whose values the reference prints with Go's %#v ([]string{"10.96.0.5"}), which the
// shared formatValue (JSON) does not render.
import type { FieldError } from '../../errors.js';

export function goStringSlice(values: string[] | undefined): string {
  if (values === undefined) return '[]string(nil)';
  return `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;
}

/** An Invalid field error with a value already rendered. */
export function invalidRendered(field: string, rendered: string, why: string): FieldError {
  return { type: 'FieldValueInvalid', field, detail: `Invalid value: ${rendered}: ${why}` };
}

export function duplicateValue(field: string, value: string): FieldError {
  return { type: 'FieldValueDuplicate', field, detail: `Duplicate value: ${JSON.stringify(value)}` };
}
