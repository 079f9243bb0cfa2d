// Validation of object contents per type (metadata is validated by ../names.ts): the reference's
// field errors, with its field paths and messages.
import type { FieldError } from '../../errors.js';
import type { JsonObject } from '../../registry/objects.js';

export interface ValidationTarget {
  group: string;
  version: string;
  kind: string;
  resource: string;
}

/** Errors of a new object (after defaulting and admission's mutations). */
export function validateCreate(target: ValidationTarget, obj: JsonObject): FieldError[] {
  void target;
  void obj;
  return [];
}

/** Errors of an update: the new object's own, plus changes the type forbids (immutable fields). */
export function validateUpdate(target: ValidationTarget, obj: JsonObject, old: JsonObject, subresource?: string): FieldError[] {
  void target;
  void obj;
  void old;
  void subresource;
  return [];
}
