// Defaulting: the values the reference's generated and hand-written defaulters fill in when an
// object is decoded (before ownership is recorded and before admission), and the fields Go's
// encoder writes even when zero (struct values, fields without omitempty, zero times as null),
// which a decoded object shows as well. Each group's defaulters live in their own module, one per
// kind; the group modules of registry/builtin say which resource and version takes which, and
// every built-in's quantities are normalized besides (./quantities.ts). Defaulters are
// idempotent and never throw: a field of the wrong type is left for validation.
import type { Obj } from './fields.js';

/** Fills in the defaults of one kind, in place. */
export type Defaulter = (obj: Obj) => void;
