// Write operations and their semantics, shared by both backends so that preconditions, events and
// results are computed in exactly one place. A backend reads the key's current state, calls
// applyWrite, and persists the outcome.

import { StorageError, type Encode, type Stored, type StorageEvent } from './types.js';

export type Tombstone = (revision: number, last: Buffer) => Buffer;

export type WriteOp =
  | { kind: 'create'; key: string; encode: Encode }
  | { kind: 'update'; key: string; expectModRevision: number; encode: Encode }
  | { kind: 'delete'; key: string; expectModRevision?: number; tombstone?: Tombstone };

export interface WriteOutcome {
  /** What the caller's promise resolves with. */
  result: Stored;
  event: StorageEvent;
  /** The key's new state, or undefined when the write removed it. */
  next: Stored | undefined;
}

/** The op's precondition failure against the key's current state, if any. */
export function checkPrecondition(op: WriteOp, current: Stored | undefined): StorageError | undefined {
  if (op.kind === 'create') {
    return current ? new StorageError('KeyExists', `key ${op.key} already exists`) : undefined;
  }
  if (!current) return new StorageError('NotFound', `key ${op.key} not found`);
  if (op.expectModRevision !== undefined && op.expectModRevision !== current.modRevision) {
    return new StorageError(
      'Conflict',
      `key ${op.key} is at revision ${current.modRevision}, not ${op.expectModRevision}`,
      current.modRevision,
    );
  }
  return undefined;
}

/**
 * Applies an op whose precondition holds at `revision`. Calls the op's encoder, so it throws
 * whatever the encoder throws; the backend then must not consume the revision.
 */
export function applyWrite(op: WriteOp, current: Stored | undefined, revision: number): WriteOutcome {
  if (op.kind === 'delete') {
    if (!current) throw new StorageError('NotFound', `key ${op.key} not found`);
    const value = op.tombstone ? op.tombstone(revision, current.value) : current.value;
    const result: Stored = { key: op.key, value, createRevision: current.createRevision, modRevision: revision };
    const event: StorageEvent = {
      type: 'delete',
      key: op.key,
      value,
      prevValue: current.value,
      createRevision: current.createRevision,
      modRevision: revision,
    };
    return { result, event, next: undefined };
  }
  const value = op.encode(revision);
  const createRevision = current ? current.createRevision : revision;
  const next: Stored = { key: op.key, value, createRevision, modRevision: revision };
  const event: StorageEvent = current
    ? { type: 'update', key: op.key, value, prevValue: current.value, createRevision, modRevision: revision }
    : { type: 'create', key: op.key, value, createRevision, modRevision: revision };
  return { result: { ...next }, event, next };
}

export function closedError(): StorageError {
  return new StorageError('Closed', 'storage is closed');
}

export function compactedError(fromRevision: number, compacted: number): StorageError {
  return new StorageError(
    'Compacted',
    `revision ${fromRevision} is compacted (history starts after revision ${compacted})`,
    compacted,
  );
}
