// The strategy hooks a resource may have on top of the generic registry (the group modules of
// ./builtin give each built-in resource its own, only where it differs).
import type { Registry } from './store.js';
import type { UserInfo } from '../api/user.js';
import { type JsonObject } from '../json.js';

/** What a write took from a shared pool (service IPs, node ports): kept once stored, given back otherwise. */
export interface Claim {
  commit(): void;
  revert(): void;
}

export interface Strategy {
  /** PUT of a missing object creates it. */
  allowCreateOnUpdate?: boolean;
  /**
   * The fields a write to the resource (`subresource` undefined) or to a subresource resets, so
   * that no writer owns them there (the reference strategies' GetResetFields); undefined: the
   * generic rule (status is the status subresource's, spec the main resource's).
   */
  resetFields?(subresource: string | undefined): ReadonlyArray<readonly string[]> | undefined;
  /** Decoding-time conversions and defaults, applied before ownership is recorded. */
  normalize?(obj: JsonObject): void;
  /** `user`: who creates (CertificateSigningRequests record their requester). */
  prepareForCreate?(obj: JsonObject, user: UserInfo): void;
  prepareForUpdate?(next: JsonObject, current: JsonObject): void;
  /**
   * Takes from shared pools what a new object needs (after mutating admission, before validation);
   * a promise where the pools are kept in a store shared with other servers.
   */
  beginCreate?(registry: Registry, obj: JsonObject, dryRun: boolean): Claim | Promise<Claim> | undefined;
  /** The same for an update of the main resource. */
  beginUpdate?(registry: Registry, next: JsonObject, current: JsonObject, dryRun: boolean): Claim | Promise<Claim> | undefined;
  /** Runs once an object is gone from storage (not for dry runs). */
  afterDelete?(registry: Registry, obj: JsonObject): Promise<void>;
  /** Runs before a delete is carried out; may refuse it or clean up. */
  beforeDelete?(registry: Registry, obj: JsonObject, dryRun: boolean): Promise<void>;
  /** Shapes the object a delete answers with. */
  prepareForDelete?(obj: JsonObject): void;
  /** A change besides the spec's that counts as a new generation. */
  generationChange?(next: JsonObject, current: JsonObject): boolean;
  /** Graceful deletion: the grace period (seconds) a delete gives the object; 0 deletes at once. */
  gracePeriod?(obj: JsonObject, requested: number | undefined): number;
  /** The propagation policy of a delete that names none (the reference's DefaultGarbageCollectionPolicy). */
  defaultPropagation?(version: string): 'Orphan' | 'Background' | undefined;
  /** A hold on deletion beyond metadata.finalizers (namespaces: spec.finalizers). */
  heldBySpec?(obj: JsonObject): boolean;
}

/** PUT of a missing object creates it. */
export const createOnUpdate: Strategy = { allowCreateOnUpdate: true };
