// Maps within maps, found by a key's parts one at a time: on a request's path a key made of the
// parts (a new string, flattened and hashed at each lookup) costs more than the lookups.

/** A Map or a WeakMap of maps. */
interface MapsBy<K, K2, V> {
  get(key: K): Map<K2, V> | undefined;
  set(key: K, value: Map<K2, V>): unknown;
}

/** The map `outer` holds under `key`, made empty the first time. */
export function innerMap<K, K2, V>(outer: MapsBy<K, K2, V>, key: K): Map<K2, V> {
  let inner = outer.get(key);
  if (inner === undefined) outer.set(key, (inner = new Map()));
  return inner;
}
