// Small helpers shared by the schema engine's tests.
import assert from 'node:assert/strict';
import type { FieldError } from '../../../src/errors.js';
import { type JSONSchemaProps, type Structural, toStructural } from '../../../src/apiextensions/schema/index.js';

export const opts = { timeout: 5000 };

/** Errors as a user reads them: `field: detail`. */
export const text = (errs: FieldError[]): string[] => errs.map((e) => `${e.field}: ${e.detail}`);

/** The structural form of `s` (which must convert). */
export function structural(s: JSONSchemaProps): Structural {
  const r = toStructural(s);
  assert.ok('structural' in r, JSON.stringify(r));
  return r.structural;
}
