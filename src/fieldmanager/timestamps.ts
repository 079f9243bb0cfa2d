// The reference's rule against spurious writes (its field manager's "ignore managedFields
// timestamp-only changes"): a write whose result differs from the stored object only in the times
// of managedFields entries changes nothing. The field manager cannot see every such case itself —
// an applied `averageValue: 4` is the stored quantity "4" only once decoded, a defaulted field
// is the same once defaulted — so the store compares what it would store with what it holds.
import { isObject, jsonEqual, type JsonObject } from '../json.js';

/** managedFields entries equal but for their `time`, in the same order. */
function sameEntries(a: unknown, b: unknown): boolean {
  if (!Array.isArray(a) || !Array.isArray(b)) return jsonEqual(a, b);
  if (a.length !== b.length) return false;
  return a.every((entry, i) => {
    const other: unknown = b[i];
    if (!isObject(entry) || !isObject(other)) return jsonEqual(entry, other);
    return jsonEqual({ ...entry, time: undefined }, { ...other, time: undefined });
  });
}

/** Whether `next` is `current` but for managedFields timestamps (or not even those). */
export function onlyManagedFieldsTimesDiffer(next: JsonObject, current: JsonObject): boolean {
  const nextMeta = next['metadata'];
  const currentMeta = current['metadata'];
  if (!isObject(nextMeta) || !isObject(currentMeta)) return jsonEqual(next, current);
  if (!sameEntries(nextMeta['managedFields'], currentMeta['managedFields'])) return false;
  const withoutEntries = (obj: JsonObject, meta: JsonObject): JsonObject => ({ ...obj, metadata: { ...meta, managedFields: undefined } });
  return jsonEqual(withoutEntries(next, nextMeta), withoutEntries(current, currentMeta));
}
