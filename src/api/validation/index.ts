// Validation of object contents per type (metadata is validated by ../names.ts): the reference's
// field errors, with its field paths and messages. Each group's rules live in their own module
// and the group modules of registry/builtin say which resource takes which; this one holds what
// the validation of every built-in type shares.
import { type FieldError, fieldInvalid } from '../../errors.js';
import { STANDARD_FINALIZERS } from './core-misc.js';
import { obj, type Obj } from './helpers.js';
import { quantityDecodingError } from './quantity-decoding.js';

/** Built-in types also refuse unprefixed finalizers other than the standard ones. */
export function unprefixedFinalizerErrors(o: Obj): FieldError[] {
  const finalizers = obj(o['metadata'])['finalizers'];
  const errs: FieldError[] = [];
  (Array.isArray(finalizers) ? finalizers : []).forEach((f, i) => {
    if (typeof f === 'string' && !f.includes('/') && !STANDARD_FINALIZERS.includes(f)) {
      errs.push(fieldInvalid(`metadata.finalizers[${i}]`, f, 'name is neither a standard finalizer name nor is it fully qualified'));
    }
  });
  return errs;
}

/** Malformed quantities are refused as the reference's decoder refuses them (400), before any field error. */
export function checkQuantityDecoding(target: { kind: string; version: string }, o: Obj): void {
  const err = quantityDecodingError(target, o);
  if (err) throw err;
}
