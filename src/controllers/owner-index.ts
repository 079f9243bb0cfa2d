// Objects (pods, ReplicaSets) as a controller needs them without listing the namespace: by the
// uid of the controller that owns them, and the orphans (no controller) of each namespace.
import type { JsonObject } from '../json.js';
import { controllerOf } from './kit/owned.js';

export class OwnerIndex {
  /**
   * Each object's controller uid ('' for an orphan) by `namespace/name`: a string, not an entry
   * object, as the ReplicaSet and ReplicationController controllers each index every pod.
   */
  private readonly byKey = new Map<string, string>();
  private readonly byOwner = new Map<string, Set<string>>();
  private readonly orphans = new Map<string, Set<string>>();

  /** Indexes the object's current version; returns the controller uid it had before ('' for an orphan), undefined when new. */
  set(namespace: string, name: string, obj: JsonObject): string | undefined {
    const key = `${namespace}/${name}`;
    const before = this.remove(namespace, name);
    const ref = controllerOf(obj);
    const owner = ref && typeof ref['uid'] === 'string' ? ref['uid'] : '';
    this.byKey.set(key, owner);
    if (owner) add(this.byOwner, owner, key);
    else add(this.orphans, namespace, name);
    return before;
  }

  /** Drops the object; returns the controller uid it had ('' for an orphan), undefined when not indexed. */
  remove(namespace: string, name: string): string | undefined {
    const key = `${namespace}/${name}`;
    const owner = this.byKey.get(key);
    if (owner === undefined) return undefined;
    this.byKey.delete(key);
    if (owner) drop(this.byOwner, owner, key);
    else drop(this.orphans, namespace, name);
    return owner;
  }

  /** The uid of the object's controller; '' for an orphan or an unknown pod. */
  ownerOf(namespace: string, name: string): string {
    return this.byKey.get(`${namespace}/${name}`) ?? '';
  }

  /** The `namespace/name` keys of the objects the controller of that uid owns. */
  owned(uid: string): string[] {
    return [...(this.byOwner.get(uid) ?? [])];
  }

  /** The names of the namespace's objects without a controller. */
  orphansOf(namespace: string): string[] {
    return [...(this.orphans.get(namespace) ?? [])];
  }
}

function add(map: Map<string, Set<string>>, key: string, value: string): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(value);
}

function drop(map: Map<string, Set<string>>, key: string, value: string): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(value);
  if (set.size === 0) map.delete(key);
}
