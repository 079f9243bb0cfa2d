// Write failures the endpoint controllers expect: an object gone meanwhile, a namespace being deleted.
import { StatusError } from '../../errors.js';
import { isObject } from '../../json.js';

/** A create refused because its namespace is being deleted: nothing to retry. */
export function isNamespaceTerminating(err: unknown): boolean {
  if (!(err instanceof StatusError) || err.code !== 403) return false;
  const causes: unknown[] = err.details && Array.isArray(err.details.causes) ? err.details.causes : [];
  return causes.some((c) => isObject(c) && c['reason'] === 'NamespaceTerminating');
}

/** Runs a write, a missing object being no failure. */
export async function ignoreMissing(write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (err) {
    if (!(err instanceof StatusError && err.code === 404)) throw err;
  }
}
