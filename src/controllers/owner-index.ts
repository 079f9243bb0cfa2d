// Objects (pods, ReplicaSets) as a controller needs them without listing the namespace: by the
// uid of the controller that owns them, and the orphans (no controller) of each namespace.
import type { JsonObject } from '../json.js';
import { controllerOf } from './kit/owned.js';

export interface Indexed {
  namespace: string;
  name: string;
  /** The controller's uid; '' for an orphan. */
  owner: string;
}

export class OwnerIndex {
  private readonly byKey = new Map<string, Indexed>();
  private readonly byOwner = new Map<string, Set<string>>();
  private readonly orphans = new Map<string, Set<string>>();

  /** Indexes the object's current version; returns the entry it replaced. */
  set(namespace: string, name: string, obj: JsonObject): Indexed | undefined {
    const key = `${namespace}/${name}`;
    const before = this.remove(namespace, name);
    const ref = controllerOf(obj);
    const owner = ref && typeof ref['uid'] === 'string' ? ref['uid'] : '';
    const entry: Indexed = { namespace, name, owner };
    this.byKey.set(key, entry);
    if (owner) add(this.byOwner, owner, key);
    else add(this.orphans, namespace, name);
    return before;
  }

  remove(namespace: string, name: string): Indexed | undefined {
    const key = `${namespace}/${name}`;
    const entry = this.byKey.get(key);
    if (!entry) return undefined;
    this.byKey.delete(key);
    if (entry.owner) drop(this.byOwner, entry.owner, key);
    else drop(this.orphans, namespace, name);
    return entry;
  }

  /** The uid of the object's controller; '' for an orphan or an unknown pod. */
  ownerOf(namespace: string, name: string): string {
    return this.byKey.get(`${namespace}/${name}`)?.owner ?? '';
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
