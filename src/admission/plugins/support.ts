// What the built-in plugins share: which resource a write addresses, the reference's admission
// Forbidden error, reading other objects, and small accessors for plain JSON objects.
import { StatusError } from '../../errors.js';
import { metadataOf } from '../../registry/objects.js';
import type { Registry } from '../../registry/store.js';
import type { AdmissionAttributes } from '../types.js';
import { type JsonObject, isObject } from '../../json.js';

export type { JsonObject };

/** Whether the write addresses `group`/`resource` (any version). */
export function isResource(a: AdmissionAttributes, group: string, resource: string): boolean {
  return a.info.group === group && a.info.resource === resource;
}

/** The object as a JSON object, when there is one. */
export function objectOf(value: unknown): JsonObject | undefined {
  return isObject(value) ? value : undefined;
}

export function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function objectsOf(value: unknown): JsonObject[] {
  return arrayOf(value).filter(isObject);
}

export function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A nested object, created (empty) when absent. */
export function child(obj: JsonObject, key: string): JsonObject {
  if (!isObject(obj[key])) obj[key] = {};
  return obj[key] as JsonObject;
}

/** metadata.annotations to read (registry/objects.ts annotationsIn). */
export { annotationsIn as annotationsOf } from '../../registry/objects.js';

export function labelsOf(obj: JsonObject | undefined): Record<string, unknown> {
  return objectOf(obj && objectOf(obj['metadata'])?.['labels']) ?? {};
}

/**
 * The reference's admission.NewForbidden: `pods "x" is forbidden: why` (403, reason Forbidden). The
 * attributes carry the request's name, "" for a generateName create: the mutating phase then names
 * the prefix (the object has no name yet), the validating phase the name generated meanwhile.
 */
export function forbidden(a: AdmissionAttributes, why: string, phase: 'mutate' | 'validate' = 'validate'): StatusError {
  const meta = a.object ? metadataOf(a.object) : {};
  const name = a.name || stringOf(phase === 'mutate' ? meta['generateName'] : meta['name']) || '';
  return forbiddenNamed(a, name, why);
}

/** apimachinery's NewForbidden for the write's resource and exactly this name ("" leaves the name out). */
export function forbiddenNamed(a: AdmissionAttributes, name: string, why: string): StatusError {
  const { group, resource } = a.info;
  const qualified = group ? `${resource}.${group}` : resource;
  const message = name ? `${qualified} "${name}" is forbidden: ${why}` : `${qualified} is forbidden: ${why}`;
  return new StatusError(403, 'Forbidden', message, { name: name || undefined, group: group || undefined, kind: resource });
}

/**
 * An error a reference plugin returns without a Status: its server answers 500 with the error's text
 * and no reason.
 */
export function plainError(message: string): StatusError {
  return new StatusError(500, undefined, message);
}

/** An object of another resource, in its preferred version, as a consistent read sees it (never a lagging cache). */
export async function readObject(registry: Registry, group: string, resource: string, namespace: string | undefined, name: string): Promise<JsonObject | undefined> {
  const info = registry.definitions.versionsOf(group, resource)[0];
  return info ? registry.currentObject(info, namespace, name) : undefined;
}

/** Every object of a resource (in one namespace, or all), in its preferred version, from its informer (current with every completed write). */
export async function listObjects(registry: Registry, group: string, resource: string, namespace?: string): Promise<JsonObject[]> {
  const info = registry.definitions.versionsOf(group, resource)[0];
  if (!info) return [];
  return (await registry.informer(info)).list(info.namespaced ? namespace : undefined).map((obj) => registry.toVersion(info, obj));
}

/**
 * Sets `obj[key]`; a key that was not there goes before the first present key that follows it in
 * `order` (the reference's field order, as its JSON encoder writes struct fields), so an added field
 * lands where the reference shows it. Other keys keep their places.
 */
export function setOrdered(obj: JsonObject, key: string, value: unknown, order: readonly string[]): void {
  if (key in obj) {
    obj[key] = value;
    return;
  }
  const rank = order.indexOf(key);
  const keys = Object.keys(obj);
  const at = rank < 0 ? -1 : keys.findIndex((k) => order.indexOf(k) > rank);
  if (at < 0) {
    obj[key] = value;
    return;
  }
  const moved = keys.slice(at).map((k) => [k, obj[k]] as const);
  for (const [k] of moved) delete obj[k];
  obj[key] = value;
  for (const [k, v] of moved) obj[k] = v;
}
