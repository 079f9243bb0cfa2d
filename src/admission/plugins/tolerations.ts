// Merging two lists of tolerations, dropping those another one already covers (the reference's
// MergeTolerations), for plugins that add tolerations a pod may already have.
import { isDeepStrictEqual } from 'node:util';
import { stringOf, type JsonObject } from './support.js';

export function mergeTolerations(first: JsonObject[], second: JsonObject[]): JsonObject[] {
  const all = [...first, ...second];
  const merged: JsonObject[] = [];
  all.forEach((t, i) => {
    if (merged.some((kept) => isSuperset(kept, t))) return;
    // Of two equal tolerations the first stays; a strictly wider later one replaces it.
    if (all.slice(i + 1).some((later) => !isDeepStrictEqual(t, later) && isSuperset(later, t))) return;
    merged.push(t);
  });
  return merged;
}

/** Whether `wide` tolerates everything `t` does. */
function isSuperset(wide: JsonObject, t: JsonObject): boolean {
  if (isDeepStrictEqual(wide, t)) return true;
  const key = (x: JsonObject) => stringOf(x['key']) ?? '';
  const operator = (x: JsonObject) => stringOf(x['operator']) ?? '';
  const effect = (x: JsonObject) => stringOf(x['effect']) ?? '';
  // An empty key with Exists matches every key.
  if (key(t) !== key(wide) && (key(wide) !== '' || operator(wide) !== 'Exists')) return false;
  // An empty effect matches every effect.
  if (effect(t) !== effect(wide) && effect(wide) !== '') return false;
  if (effect(wide) === 'NoExecute' && typeof wide['tolerationSeconds'] === 'number') {
    if (typeof t['tolerationSeconds'] !== 'number' || t['tolerationSeconds'] > wide['tolerationSeconds']) return false;
  }
  switch (operator(wide)) {
    case 'Equal':
    case '':
      return operator(t) === 'Equal' && (stringOf(t['value']) ?? '') === (stringOf(wide['value']) ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}
