// Pruning: fields a custom resource's schema does not declare are dropped (kept under
// x-kubernetes-preserve-unknown-fields), as the reference does when it decodes a request body or
// reads an object from storage. The dropped paths are returned, sorted, so that field validation
// (Warn, Strict) can report them as `unknown field "spec.foo"`. Metadata — the object's and its
// embedded resources' — keeps only ObjectMeta's fields.
import type { FieldError } from '../../errors.js';
import { isObject } from '../../json.js';
import { decodeObjectMeta } from './objectmeta.js';
import { childPath, indexPath, invalidValue, keyPath } from './render.js';
import { hasEmbeddedResources } from './subtree.js';
import type { Structural } from './types.js';

const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

/** Builds unknown-field paths as the reference writes them: keys joined by dots, `[i]` for items. */
class Recorder {
  readonly paths: string[] = [];
  record(parent: string, key: string): void {
    this.paths.push(parent ? `${parent}.${key}` : key);
  }
}

const child = (parent: string, key: string) => (parent ? `${parent}.${key}` : key);

function prune(x: unknown, s: Structural | undefined, path: string, rec: Recorder): void {
  if (s?.preserveUnknownFields) {
    skipPrune(x, s, path, rec);
    return;
  }
  if (isObject(x)) {
    for (const k of Object.keys(x)) {
      if (s?.embeddedResource && META_FIELDS.has(k)) continue;
      const prop = s?.properties?.get(k);
      if (prop) prune(x[k], prop, child(path, k), rec);
      else if (s?.additionalProperties) prune(x[k], s.additionalProperties.schema, child(path, k), rec);
      else {
        // apiVersion, kind and metadata at the root are the object's own: not reported.
        if (!META_FIELDS.has(k) || path !== '') rec.record(path, k);
        delete x[k];
      }
    }
  } else if (Array.isArray(x)) {
    x.forEach((v, i) => prune(v, s?.items, `${path}[${i}]`, rec));
  }
}

/** Under x-kubernetes-preserve-unknown-fields: undeclared fields stay, declared ones are pruned inside. */
function skipPrune(x: unknown, s: Structural | undefined, path: string, rec: Recorder): void {
  if (!s) return;
  if (isObject(x)) {
    for (const k of Object.keys(x)) {
      if (s.embeddedResource && META_FIELDS.has(k)) continue;
      const prop = s.properties?.get(k);
      if (prop) prune(x[k], prop, child(path, k), rec);
      else if (s.additionalProperties) prune(x[k], s.additionalProperties.schema, child(path, k), rec);
    }
  } else if (Array.isArray(x)) {
    x.forEach((v, i) => skipPrune(v, s.items, `${path}[${i}]`, rec));
  }
}

/**
 * Prune: drops from `value`, in place, what schema `s` does not declare; returns the dropped
 * paths, sorted. With `isResourceRoot` the value is a whole object (its apiVersion, kind and
 * metadata are left alone).
 */
export function pruneValue(value: unknown, s: Structural | undefined, isResourceRoot: boolean): string[] {
  const rec = new Recorder();
  const root = isResourceRoot && (!s || !s.embeddedResource) ? ({ ...(s ?? emptySchema()), embeddedResource: true } as Structural) : s;
  prune(value, root, '', rec);
  return rec.paths.sort();
}

function emptySchema(): Structural {
  return { type: '', format: '', description: '', title: '', nullable: false, default: undefined, preserveUnknownFields: false, embeddedResource: false, intOrString: false, source: {} };
}

function nonNullableNullWithoutDefault(v: unknown, s: Structural | undefined): boolean {
  return v === null && s !== undefined && !s.nullable && s.default === undefined;
}

/** PruneNonNullableNullsWithoutDefaults: `null` where the schema neither allows it nor defaults it is dropped. */
export function pruneNonNullableNulls(x: unknown, s: Structural | undefined): void {
  if (isObject(x)) {
    for (const k of Object.keys(x)) {
      const sub = s?.properties?.get(k) ?? s?.additionalProperties?.schema;
      if (nonNullableNullWithoutDefault(x[k], sub)) delete x[k];
      else pruneNonNullableNulls(x[k], sub);
    }
  } else if (Array.isArray(x)) {
    for (const v of x) pruneNonNullableNulls(v, s?.items);
  }
}

/** Coerces the metadata of embedded resources: only ObjectMeta's fields are kept. */
function coerce(path: string, x: unknown, s: Structural | undefined, unknown: string[]): FieldError | undefined {
  if (!s || !hasEmbeddedResources(s)) return undefined;
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) {
      const err = coerce(indexPath(path, i), x[i], s.items, unknown);
      if (err) return err;
    }
    return undefined;
  }
  if (!isObject(x)) return undefined;
  for (const k of Object.keys(x)) {
    const v = x[k];
    if (s.embeddedResource && (k === 'apiVersion' || k === 'kind') && typeof v !== 'string') return invalidValue(childPath(path, k), v, 'must be a string');
    if (s.embeddedResource && k === 'metadata') {
      const decoded = decodeObjectMeta(x, path)!;
      unknown.push(...decoded.unknown);
      if (decoded.error) return invalidValue(childPath(path, 'metadata'), v, decoded.error);
      x['metadata'] = decoded.value;
    }
    const prop = s.properties?.get(k);
    const err = prop ? coerce(childPath(path, k), x[k], prop, unknown) : s.additionalProperties ? coerce(keyPath(path, k), x[k], s.additionalProperties.schema, unknown) : undefined;
    if (err) return err;
  }
  return undefined;
}

/** What pruning a custom resource left out, and the error that stops it (malformed metadata). */
export interface PruneResult {
  /** Paths of the fields dropped: the object's metadata's first, then the schema's, then embedded metadata's. */
  unknownFields: string[];
  error?: FieldError;
}

/**
 * What the reference does to a custom resource it decodes (a request body or a stored object):
 * metadata reduced to ObjectMeta's fields, unknown fields pruned, nulls the schema does not allow
 * dropped, embedded resources' metadata reduced too. Changes `obj` in place. Defaulting comes first
 * (see defaulting.ts): the reference defaults, then prunes the defaulted object.
 */
export function pruneCustomResource(obj: Record<string, unknown>, s: Structural): PruneResult {
  const unknownFields: string[] = [];
  const meta = decodeObjectMeta(obj, '');
  if (meta?.error) return { unknownFields, error: invalidValue('metadata', obj['metadata'], meta.error) };
  if (meta) unknownFields.push(...meta.unknown);
  unknownFields.push(...pruneValue(obj, s, true));
  pruneNonNullableNulls(obj, s);
  const embedded: string[] = [];
  const error = coerce('', obj, s, embedded);
  if (meta) obj['metadata'] = meta.value;
  unknownFields.push(...embedded.sort());
  return error ? { unknownFields, error } : { unknownFields };
}
