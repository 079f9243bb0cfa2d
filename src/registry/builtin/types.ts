// What a group module says about its built-in resources: per resource, only where it differs from
// the generic built-in (see ./index.ts for what every built-in gets).
import type { Deprecation } from '../../api/deprecations.js';
import type { Defaulter } from '../../api/defaults/types.js';
import type { NameRule } from '../../api/names.js';
import type { FieldError } from '../../errors.js';
import type { JsonObject } from '../../json.js';
import type { Evaluator } from '../../quota/evaluators.js';
import type { ResourceHooks } from '../definitions.js';
import type { Strategy } from '../strategies.js';

export interface BuiltinValidation {
  /** The errors of a new object. */
  create?(obj: JsonObject): FieldError[];
  /** The errors of an update (the new object's own included); the create rules when absent. */
  update?(obj: JsonObject, old: JsonObject): FieldError[];
  /**
   * The checks of a write to each subresource. Writes to the others (status among them) are not
   * checked: status is the controllers' to report.
   */
  subresources?: Readonly<Record<string, (obj: JsonObject, old: JsonObject) => FieldError[]>>;
}

export interface BuiltinSpec extends Pick<ResourceHooks, 'table' | 'selectableFields' | 'indexedFields' | 'podTemplate' | 'subresourceParts' | 'convert' | 'convertAcross' | 'create' | 'subresourceCreates' | 'computed'> {
  /** How names are validated; a DNS subdomain when absent. */
  nameRule?: NameRule;
  /** metadata.generation is kept (bumped on spec changes), as the reference's create answers show. */
  tracksGeneration?: boolean;
  /** A delete answers with the deleted object (else a Status). */
  returnsDeletedObject?: boolean;
  /** The deprecated served versions, by version. */
  deprecated?: Readonly<Record<string, Deprecation>>;
  /** The reference's defaulter, by version. */
  defaults?: Readonly<Record<string, Defaulter>>;
  validation?: BuiltinValidation;
  strategy?: Strategy;
  /** How ResourceQuota measures the resource: an object count when absent; null when quota ignores it. */
  quota?: Evaluator | null;
}

export interface BuiltinGroup {
  /** The group's name; "" for the core group. */
  name: string;
  /**
   * Whether its kinds refuse unprefixed finalizers other than the standard ones (the core metadata
   * rules); true when absent. The groups of CustomResourceDefinitions and APIServices do not.
   */
  standardFinalizers?: boolean;
  /** By resource (plural name). */
  resources: Readonly<Record<string, BuiltinSpec>>;
}
