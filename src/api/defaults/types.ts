import type { Obj } from './fields.js';

/** Fills in the defaults of one kind, in place. */
export type Defaulter = (obj: Obj) => void;

/** The defaulters of one API group, by `version/Kind`. */
export type DefaulterTable = Readonly<Record<string, Defaulter>>;
