// The meta.k8s.io/v1 options of a request — CreateOptions, UpdateOptions, PatchOptions,
// DeleteOptions, ListOptions, GetOptions — as typed objects. The endpoint handler decodes and
// validates them once per request (endpoints/options.ts); the registry receives them as they are,
// and hands admission their JSON form.
import type { FieldSelector, LabelSelector } from './selectors.js';
import type { JsonObject } from '../json.js';

/** fieldValidation as asked ('' when absent). */
export type FieldValidationDirective = '' | 'Ignore' | 'Warn' | 'Strict';

/** What CreateOptions, UpdateOptions and PatchOptions share. */
interface WriteOptionsBase {
  /** dryRun=All: every stage runs, nothing is stored. */
  dryRun: boolean;
  /** The fieldManager parameter ('' when absent: the writer's user agent names the manager). */
  fieldManager: string;
  fieldValidation: FieldValidationDirective;
}

export interface CreateOptions extends WriteOptionsBase {
  kind: 'CreateOptions';
}

export interface UpdateOptions extends WriteOptionsBase {
  kind: 'UpdateOptions';
}

export interface PatchOptions extends WriteOptionsBase {
  kind: 'PatchOptions';
  /** Server-side apply takes over conflicting fields (force present and neither "0" nor "false"). */
  force: boolean;
}

export type WriteOptions = CreateOptions | UpdateOptions | PatchOptions;

export type PropagationPolicy = 'Foreground' | 'Background' | 'Orphan';

export interface DeleteOptions {
  dryRun?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
  gracePeriodSeconds?: number;
  propagationPolicy?: PropagationPolicy;
  /** The deprecated orphanDependents (true: Orphan, false: Background); the policy says the same. */
  orphanDependents?: boolean;
}

/** Where a paged list carries on: the revision it reads at and the key it starts from. */
export interface ContinueToken {
  /** -1: carry on at the current state (the token a 410 hands out). */
  revision: number;
  /** The key (relative to the list's prefix) the next page starts at, inclusive. */
  start: string;
}

export interface ListOptions {
  /** Absent when none was given or it selects everything. */
  labelSelector?: LabelSelector;
  /** Checked against the resource's selectable fields, aliases renamed; absent when none or empty. */
  fieldSelector?: FieldSelector;
  /** Absent: the current state; 0: any state (from the watch cache). */
  resourceVersion?: number;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  /** A positive page size; absent: everything. */
  limit?: number;
  continue?: ContinueToken;
  watch?: boolean;
  allowWatchBookmarks?: boolean;
  /** A positive number of seconds a watch lasts; absent: the server's own (30–60 minutes). */
  timeoutSeconds?: number;
}

export interface GetOptions {
  /** Absent or 0: the latest state. */
  resourceVersion?: number;
}

/** The options of a write as an admission review carries them. */
export function writeOptionsObject(options: WriteOptions): JsonObject {
  const out: JsonObject = { kind: options.kind, apiVersion: 'meta.k8s.io/v1' };
  if (options.dryRun) out['dryRun'] = ['All'];
  if (options.fieldManager) out['fieldManager'] = options.fieldManager;
  if (options.kind === 'PatchOptions' && options.force) out['force'] = true;
  if (options.fieldValidation) out['fieldValidation'] = options.fieldValidation;
  return out;
}

/** The DeleteOptions of a delete as an admission review carries them. */
export function deleteOptionsObject(options: DeleteOptions): JsonObject {
  const out: JsonObject = { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1' };
  if (options.gracePeriodSeconds !== undefined) out['gracePeriodSeconds'] = options.gracePeriodSeconds;
  if (options.preconditions) out['preconditions'] = { ...options.preconditions };
  if (options.orphanDependents !== undefined) out['orphanDependents'] = options.orphanDependents;
  if (options.propagationPolicy !== undefined) out['propagationPolicy'] = options.propagationPolicy;
  if (options.dryRun) out['dryRun'] = ['All'];
  return out;
}
